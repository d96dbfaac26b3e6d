package server

import "strconv"

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest
// common subsequence of two strings, by the textbook table of the LCS
// lengths of every pair of prefixes, walked back from its corner to spell
// the subsequence or to list the matching ranges. The table has a cell for
// each pair of prefixes, so its time and memory grow as the product of
// the lengths.

// kLCSMaxCells bounds the table: 2^24 cells (64 MiB) fill in some tens of
// milliseconds, about what a transaction may hold the loop for. Redis
// bounds it only by its memory (proto-max-bulk-len bytes, 2^27 cells, and
// seconds of work); here an LCS past the bound is refused, and the README
// lists it among the deliberate differences. A variable, so that tests
// can reach it.
var kLCSMaxCells = 1 << 24

// kLCSCellsPerUnit is how many cells make one unit of work: a cell is a
// compare and a max, some nanoseconds.
const kLCSCellsPerUnit = 16

// errLCSTooLong refuses an LCS whose table would pass kLCSMaxCells.
func errLCSTooLong() string {
	return "ERR LCS is refused when the lengths multiply past " + strconv.Itoa(kLCSMaxCells) +
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

// lcsTable fills the table of a and b: cell (i, j), at i*(len(b)+1)+j,
// holds the LCS length of a[:i] and b[:j].
func lcsTable(a, b string) []uint32 {
	cols := len(b) + 1
	t := make([]uint32, (len(a)+1)*cols)
	for i := 1; i <= len(a); i++ {
		row, prev := t[i*cols:(i+1)*cols], t[(i-1)*cols:i*cols]
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	workDone += len(t) / kLCSCellsPerUnit
	return t
}

// lcsLen returns the LCS length of a and b, the table's corner, from two
// of its rows at a time, the one being filled and the one before, each as
// long as the shorter string (the length does not depend on which string
// is which): LEN needs no walk back, so not the whole table. The cells
// filled, and charged, are the table's.
func lcsLen(a, b string) uint32 {
	if len(b) > len(a) {
		a, b = b, a
	}
	prev, row := make([]uint32, len(b)+1), make([]uint32, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
		prev, row = row, prev // row[0] stays 0; the rest is written before it is read
	}
	workDone += (len(a) + 1) * (len(b) + 1) / kLCSCellsPerUnit
	return prev[len(b)]
}

// lcsLenBytes is what lcsLen holds: two rows as long as the shorter string.
func lcsLenBytes(a, b string) int { return 2 * (min(len(a), len(b)) + 1) * 4 }

// lcsMatch is one run of bytes common to both strings: a[aStart..aEnd]
// equals b[bStart..bEnd].
type lcsMatch struct{ aStart, aEnd, bStart, bEnd int }

// lcsWalk walks the table back from its corner, as Redis does (on a tie
// it moves along b), and returns the subsequence and its runs, the last
// run first.
func lcsWalk(a, b string, t []uint32) ([]byte, []lcsMatch) {
	cols := len(b) + 1
	n := t[len(t)-1]
	seq := make([]byte, n)
	var runs []lcsMatch
	cur, open := lcsMatch{}, false
	i, j := len(a), len(b)
	for i > 0 && j > 0 {
		if a[i-1] == b[j-1] {
			n--
			seq[n] = a[i-1]
			i--
			j--
			if open && cur.aStart == i+1 && cur.bStart == j+1 {
				cur.aStart, cur.bStart = i, j // the run grows backwards
			} else {
				if open {
					runs = append(runs, cur)
				}
				cur, open = lcsMatch{i, i, j, j}, true
			}
			continue
		}
		if open {
			runs = append(runs, cur)
			open = false
		}
		if t[(i-1)*cols+j] > t[i*cols+j-1] {
			i--
		} else {
			j--
		}
	}
	if open {
		runs = append(runs, cur)
	}
	workDone += (len(a) + len(b)) / kWorkBytes
	return seq, runs
}

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
	if int64(len(a)+1)*int64(len(b)+1) > int64(kLCSMaxCells) {
		w.err(errLCSTooLong())
		return
	}
	// The table is held only while the command runs, but it is memory a
	// client made the server take: it counts in the budget of all
	// connections meanwhile, as their buffers do. LEN holds two rows.
	lenOnly := o.length && !o.idx
	tableBytes := (len(a) + 1) * (len(b) + 1) * 4
	if lenOnly {
		tableBytes = lcsLenBytes(a, b)
	}
	if !budgetMake(w.conn, tableBytes) {
		w.err(errLCSMemory)
		return
	}
	inputHeld += tableBytes
	defer func() { inputHeld -= tableBytes }()
	if lenOnly {
		w.outInt(int64(lcsLen(a, b)))
		return
	}
	t := lcsTable(a, b)
	total := t[len(t)-1]
	seq, runs := lcsWalk(a, b, t)
	if !o.idx {
		w.outBulk(seq)
		return
	}
	w.outMap(2)
	w.outStr("matches")
	at, shown := w.beginArr(), 0
	for _, m := range runs {
		runLen := int64(m.aEnd - m.aStart + 1)
		if runLen < o.minLen {
			continue
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
	}
	w.endArr(at, shown)
	w.outStr("len")
	w.outInt(int64(total))
}
