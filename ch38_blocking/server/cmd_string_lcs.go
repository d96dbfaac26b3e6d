package server

import (
	"math/bits"
	"strconv"
)

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest
// common subsequence of two strings, from the table of the LCS lengths of
// every pair of prefixes, walked back from its corner to spell the
// subsequence or to list the matching ranges, as Redis does. The table
// is not kept a cell to a word, as the textbook (and Redis) keeps it: two
// cells next to each other down a column differ by 0 or 1, so a column is
// kept as one bit a cell, and filled 64 cells at a time with a word's
// arithmetic (lcsFill). Its time and memory still grow as the product of
// the lengths, over 64.

// kLCSMaxCells bounds the table: 2^24 cells (64 MiB a cell to a word, 2
// MiB as bits) fill in about a millisecond, and Redis's own table of them
// in some tens. Redis bounds it only by its memory (proto-max-bulk-len
// bytes, 2^27 cells, and seconds of work); here an LCS past the bound is
// refused, and the README lists it among the deliberate differences. A
// variable, so that tests can reach it.
var kLCSMaxCells = 1 << 24

// kLCSWordsPerUnit is how many words of bit columns make one unit of
// work, filled (an add with carry and three logical operations) or
// counted (a popcount) in the walk back: some nanoseconds each.
const kLCSWordsPerUnit = 16

// errLCSTooLong refuses an LCS whose table would pass kLCSMaxCells.
func errLCSTooLong() string {
	return "ERR LCS is refused when the lengths, each plus one, multiply past " + strconv.Itoa(kLCSMaxCells) +
		": the table would stall the server"
}

// errLCSMemory refuses an LCS whose table the budget of all connections'
// memory cannot hold now.
const errLCSMemory = "ERR LCS's table does not fit in the server's memory for clients now (-max-output-mb): try again later"

// lcsOpts are LCS's options.
type lcsOpts struct {
	length, idx, withLen bool
	minLen               int64
}

// parseLCSOpts reads LCS's options, or answers the error.
func parseLCSOpts(w *respWriter, args [][]byte) (o lcsOpts, ok bool) {
	for i := 0; i < len(args); i++ {
		switch opt := args[i]; {
		case cmdIs(opt, "idx"):
			o.idx = true
		case cmdIs(opt, "len"):
			o.length = true
		case cmdIs(opt, "withmatchlen"):
			o.withLen = true
		case cmdIs(opt, "minmatchlen") && i+1 < len(args):
			i++
			if o.minLen, ok = respInt(args[i]); !ok {
				w.err(errNotInt)
				return o, false
			}
			o.minLen = max(o.minLen, 0)
		default:
			w.err(errSyntax)
			return o, false
		}
	}
	if o.idx && o.length {
		w.err("ERR If you want both the length and indexes, please just use IDX.")
		return o, false
	}
	return o, true
}

// lcsBits is the table of a long and a short string (either may be key1)
// as bit columns. Column y, for short[:y], has bit x-1 clear when the LCS
// of long[:x] and short[:y] is one more than that of long[:x-1] and
// short[:y], set when it is the same; so a cell is x less the bits set
// below it (prefix). Column 0 is all set.
type lcsBits struct {
	long, short string
	words       int      // a column's words: one bit for each byte of long
	cols        []uint64 // column y at y*words, all of them, for a walk back
	col         []uint64 // the last column filled
	masks       []uint64 // for each byte of short also in long, where long holds it
	mask        [256]int32
	counted     int // words counted by prefix, charged with the walk
}

// newLCSBits sizes the table of long and short (len(long) >=
// len(short)), all its columns if keep is set, else the last; bytes is
// what it will hold (lcsBits.make allocates it).
func newLCSBits(long, short string, keep bool) (t *lcsBits, bytes int) {
	t = &lcsBits{long: long, short: short, words: (len(long) + 63) / 64}
	var inLong, inShort [256]bool
	for i := 0; i < len(long); i++ {
		inLong[long[i]] = true
	}
	for i := 0; i < len(short); i++ {
		inShort[short[i]] = true
	}
	n := int32(0)
	for c := range t.mask {
		// A byte of short that long lacks matches nothing: its column
		// is the one before, and it needs no mask.
		t.mask[c] = -1
		if inLong[c] && inShort[c] {
			t.mask[c] = n
			n++
		}
	}
	cols := 1
	if keep {
		cols += len(short)
	}
	return t, 8 * t.words * (int(n) + cols)
}

// make allocates the table and fills the masks.
func (t *lcsBits) make(keep bool) {
	n := 0
	for _, m := range t.mask {
		if m >= 0 {
			n++
		}
	}
	t.masks = make([]uint64, n*t.words)
	for x := 0; x < len(t.long); x++ {
		if m := t.mask[t.long[x]]; m >= 0 {
			t.masks[int(m)*t.words+x/64] |= 1 << (x % 64)
		}
	}
	if keep {
		t.cols = make([]uint64, (len(t.short)+1)*t.words)
		t.col = t.cols[:t.words]
	} else {
		t.col = make([]uint64, t.words)
	}
	for k := range t.col {
		t.col[k] = ^uint64(0) // column 0
	}
	workDone += len(t.long)/kWorkBytes + 8*(len(t.masks)+max(len(t.cols), len(t.col)))/kWorkBytes
}

// fill fills the columns, one for each byte of short: with m the bits of
// long that match it, a column v becomes (v + (v & m)) | (v &^ m), the
// bit-parallel form of the table's rule (Allison and Dix; Crochemore et
// al.; Hyyrö): a cell is one more than its neighbour up and left where
// the bytes match, else the larger of its neighbours up and to the left.
// The bits past long's end stay set, as column 0's are, and count for
// nothing. Without all the columns, the one there is is filled in place.
func (t *lcsBits) fill() {
	prev := t.col
	for y := 1; y <= len(t.short); y++ {
		v := prev
		if t.cols != nil {
			v = t.cols[y*t.words : (y+1)*t.words]
		}
		if m := t.mask[t.short[y-1]]; m < 0 {
			copy(v, prev)
		} else {
			mw := t.masks[int(m)*t.words : (int(m)+1)*t.words]
			mw, v = mw[:len(prev)], v[:len(prev)] // no bounds checks inside
			var carry uint64
			for k, p := range prev {
				var sum uint64
				sum, carry = bits.Add64(p, p&mw[k], carry)
				v[k] = sum | p&^mw[k]
			}
		}
		prev = v
	}
	t.col = prev
	workDone += len(t.short) * t.words / kLCSWordsPerUnit
}

// length is the LCS length of long and short: the last column's cells.
func (t *lcsBits) length() int { return t.prefix(len(t.short), len(t.long)) }

// prefix returns cell (x, y), the LCS length of long[:x] and short[:y].
func (t *lcsBits) prefix(y, x int) int {
	if y <= 0 || x <= 0 {
		return 0
	}
	v := t.col
	if t.cols != nil {
		v = t.cols[y*t.words : (y+1)*t.words]
	}
	set := 0
	for _, w := range v[:x/64] {
		set += bits.OnesCount64(w)
	}
	if r := x % 64; r != 0 {
		set += bits.OnesCount64(v[x/64] & (1<<r - 1))
	}
	t.counted += x/64 + 1
	return x - set
}

// step returns cell (x, y) less cell (x-1, y): 0 or 1 (x >= 1), from
// the columns kept.
func (t *lcsBits) step(y, x int) int {
	return int(^t.cols[y*t.words+(x-1)/64] >> ((x - 1) % 64) & 1)
}

// lcsMatch is one run of bytes common to both strings: a[aStart..aEnd]
// equals b[bStart..bEnd].
type lcsMatch struct{ aStart, aEnd, bStart, bEnd int }

// lcsWalk walks the table t of a and b back from its corner, as Redis
// does: where the bytes at (i, j) match, it takes them and moves to (i-1,
// j-1); else to (i-1, j) if that cell is the larger of it and (i, j-1),
// to (i, j-1) on a tie. It returns the subsequence, and hands each run to
// run as it closes, the last run first. Cell (i, j) is t's (x, y), x along
// the longer string: one step along x costs a bit; the cell beside it
// along y is kept (side) and counted again only when y moves, as many
// times as the shorter string is long.
func lcsWalk(a, b string, t *lcsBits, run func(lcsMatch)) []byte {
	aLong := len(a) >= len(b)
	i, j := len(a), len(b)
	x, y := i, j
	if !aLong {
		x, y = j, i
	}
	v := t.prefix(y, x)      // cell (x, y)
	side := t.prefix(y-1, x) // cell (x, y-1)
	n := v
	seq := make([]byte, n)
	cur, open := lcsMatch{}, false
	for i > 0 && j > 0 {
		if a[i-1] == b[j-1] {
			n--
			seq[n] = a[i-1]
			i, j, x, y, v = i-1, j-1, x-1, y-1, v-1
			side = t.prefix(y-1, x)
			if open && cur.aStart == i+1 && cur.bStart == j+1 {
				cur.aStart, cur.bStart = i, j // the run grows backwards
			} else {
				if open {
					run(cur)
				}
				cur, open = lcsMatch{i, i, j, j}, true
			}
			continue
		}
		if open {
			run(cur)
			open = false
		}
		alongX := v - t.step(y, x) // cell (x-1, y)
		up, left := alongX, side   // cells (i-1, j) and (i, j-1)
		if !aLong {
			up, left = side, alongX
		}
		if up > left {
			i--
		} else {
			j--
		}
		if (up > left) == aLong { // x moves
			side -= t.step(y-1, x)
			v, x = alongX, x-1
		} else {
			v, y = side, y-1
			side = t.prefix(y-1, x)
		}
	}
	if open {
		run(cur)
	}
	workDone += (len(a)+len(b))/kWorkBytes + t.counted/kLCSWordsPerUnit
	return seq
}

// lcsWork bounds the work an LCS is charged (lcsBits.make, fill,
// lcsWalk) from its table's cells and the sum of the strings' lengths:
// EXEC's estimate (costLCS). With L and S the lengths, W = L/64+1 words a
// column, and cells C >= L*S: the table holds at most 8W(2S+1) bytes, at
// most C/256 + (L+S)/4 units to allocate; filling it takes at most
// C/1024 + S/16, the walk's counts as much and (L+S)/8, and reading the
// strings (L+S)/32.
func lcsWork(cells, sum int) int { return cells/128 + sum/2 + 8 }

// respLCS runs LCS. Both keys must hold strings (or be missing: empty).
func respLCS(st *respState, w *respWriter, args [][]byte) {
	var strs [2]string
	for i, k := range args[1:3] {
		ent := lookupEntry(k)
		if ent != nil && ent.typ() != tStr {
			w.err("ERR The specified keys must contain string values")
			return
		}
		if ent != nil {
			strs[i] = ent.val()
		}
	}
	o, ok := parseLCSOpts(w, args[3:])
	if !ok {
		return
	}
	a, b := strs[0], strs[1]
	// An empty string makes no table to fill: Redis answers it at once.
	if len(a) > 0 && len(b) > 0 && int64(len(a)+1)*int64(len(b)+1) > int64(kLCSMaxCells) {
		w.err(errLCSTooLong())
		return
	}
	long, short := a, b
	if len(b) > len(a) {
		long, short = b, a
	}
	// The table is held only while the command runs, but it is memory a
	// client made the server take: it counts in the budget of all
	// connections meanwhile, as their buffers do. LEN needs no walk back,
	// so it keeps only the last column.
	keep := !o.length || o.idx
	t, held := newLCSBits(long, short, keep)
	if keep {
		held += len(short) // the subsequence, at most as long
	}
	if !budgetMake(w.conn, held) {
		w.err(errLCSMemory)
		return
	}
	inputHeld += held
	defer func() { inputHeld -= held }()
	t.make(keep)
	t.fill()
	if !keep {
		w.outInt(int64(t.length()))
		workDone += t.counted / kLCSWordsPerUnit
		return
	}
	if !o.idx {
		w.outBulk(lcsWalk(a, b, t, func(lcsMatch) {}))
		return
	}
	// The ranges go into the reply as the walk finds them, the last
	// first, as Redis lists them; the array's header, whose count the
	// filter decides, goes before them at the end (endArr).
	w.outMap(2)
	w.outStr("matches")
	at, shown := w.beginArr(), 0
	total := lcsWalk(a, b, t, func(m lcsMatch) {
		runLen := int64(m.aEnd - m.aStart + 1)
		if runLen < o.minLen {
			return
		}
		if o.withLen {
			w.outArr(3)
		} else {
			w.outArr(2)
		}
		w.outArr(2)
		w.outInt(int64(m.aStart))
		w.outInt(int64(m.aEnd))
		w.outArr(2)
		w.outInt(int64(m.bStart))
		w.outInt(int64(m.bEnd))
		if o.withLen {
			w.outInt(runLen)
		}
		shown++
	})
	w.endArr(at, shown)
	w.outStr("len")
	w.outInt(int64(len(total)))
}
