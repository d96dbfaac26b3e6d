package server

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// lcsRefTable is the textbook table of a and b, a cell to a word, as
// Redis keeps it: cell (i, j), at i*(len(b)+1)+j, holds the LCS length
// of a[:i] and b[:j]. The reference the bit columns are checked against.
func lcsRefTable(a, b string) []uint32 {
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
	return t
}

// lcsRefWalk walks lcsRefTable back from its corner as Redis does (on a
// tie it moves along b), and returns the subsequence and its runs, the
// last run first.
func lcsRefWalk(a, b string) ([]byte, []lcsMatch) {
	t := lcsRefTable(a, b)
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
				cur.aStart, cur.bStart = i, j
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
	return seq, runs
}

// lcsByBits runs the bit columns on a and b: the length from the last
// column alone (LEN's), and the walk back's subsequence and runs.
func lcsByBits(a, b string) (int, []byte, []lcsMatch) {
	long, short := a, b
	if len(b) > len(a) {
		long, short = b, a
	}
	t, _ := newLCSBits(long, short, false)
	t.make(false)
	t.fill()
	n := t.length()
	t, _ = newLCSBits(long, short, true)
	t.make(true)
	t.fill()
	var runs []lcsMatch
	seq := lcsWalk(a, b, t, func(m lcsMatch) { runs = append(runs, m) })
	return n, seq, runs
}

// TestLCSBitsAsTable: the bit columns give the textbook table's length,
// and their walk back the same subsequence and the same runs, in the same
// order, on random strings of random lengths over small alphabets (so
// that they share much, and ties are many), empty ones among them, either
// one the longer, across the words' edges, with bytes one string lacks.
func TestLCSBitsAsTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	str := func(n, letters int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(letters))
		}
		return string(b)
	}
	for k := range 4000 {
		letters := 1 + rng.IntN(5)
		la, lb := rng.IntN(70), rng.IntN(70)
		if k%4 == 0 {
			la, lb = rng.IntN(300), rng.IntN(8) // one much the longer
		}
		if k%8 == 1 {
			la, lb = lb, la
		}
		a, b := str(la, letters), str(lb, letters)
		if k%16 == 3 {
			b = strings.ReplaceAll(b, "a", "z") // a byte a lacks
		}
		seq, runs := lcsRefWalk(a, b)
		n, gotSeq, gotRuns := lcsByBits(a, b)
		if n != len(seq) || string(gotSeq) != string(seq) || fmt.Sprint(gotRuns) != fmt.Sprint(runs) {
			t.Fatalf("LCS of %q and %q: length %d, %q, runs %v; the table: %d, %q, %v", a, b, n, gotSeq, gotRuns, len(seq), seq, runs)
		}
	}
}

// TestLCSHoldsBits: LCS, LCS IDX and LCS LEN of two 4,000-byte strings
// allocate and hold in the budget the table as bits, about 2 MB (LEN a
// column, 500 bytes), where each allocated the whole table of 64 MB of
// words on every call; they are charged the words filled and counted,
// some tens of thousands of units, not the million of the cells one at a
// time; and they answer as the table does.
func TestLCSHoldsBits(t *testing.T) {
	resetData(t)
	rng := rand.New(rand.NewPCG(19, 4))
	str := func() string {
		b := make([]byte, 4000)
		for i := range b {
			b[i] = "ACGT"[rng.IntN(4)]
		}
		return string(b)
	}
	a, b := str(), str()
	respRun(t, "SET", "a", a)
	respRun(t, "SET", "b", b)
	seq, runs := lcsRefWalk(a, b)
	const cellWork = 4001 * 4001 / 16 // the cells, charged one at a time
	for _, tc := range []struct {
		args  []string
		reply string // its start
		bytes uint64 // at most allocated
	}{
		{[]string{"LCS", "a", "b"}, "$" + strconv.Itoa(len(seq)) + "\r\n" + string(seq), 3 << 20},
		{[]string{"LCS", "a", "b", "IDX", "WITHMATCHLEN"}, fmt.Sprintf("*4\r\n$7\r\nmatches\r\n*%d\r\n*3\r\n*2\r\n:%d\r\n", len(runs), runs[0].aStart), 3 << 20},
		{[]string{"LCS", "a", "b", "LEN"}, ":" + strconv.Itoa(len(seq)) + "\r\n", 64 << 10},
	} {
		var before, after runtime.MemStats
		held := inputHeld
		runtime.ReadMemStats(&before)
		work := workDone
		got := respRun(t, tc.args...)
		work = workDone - work
		runtime.ReadMemStats(&after)
		if !strings.HasPrefix(got, tc.reply) {
			t.Errorf("%q: %.60q, want %.60q", tc.args, got, tc.reply)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > tc.bytes+uint64(len(got)) {
			t.Errorf("%q allocated %d bytes, want at most %d and the reply's %d", tc.args, n, tc.bytes, len(got))
		}
		if work > cellWork/8 || work > lcsWork(4001*4001, len(a)+len(b))+len(got)/kWorkBytes {
			t.Errorf("%q charged %d units, want at most %d (EXEC's estimate) and far below the %d of the cells", tc.args, work, lcsWork(4001*4001, len(a)+len(b)), cellWork)
		}
		if inputHeld != held {
			t.Errorf("%q left %d bytes counted in the budget", tc.args, inputHeld-held)
		}
		t.Logf("%q: %d bytes allocated, %d units charged", tc.args, after.TotalAlloc-before.TotalAlloc, work)
	}
}
