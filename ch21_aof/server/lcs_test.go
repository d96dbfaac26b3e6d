package server

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestLCSLenRows: the length from two rows (lcsLen) is the whole table's
// corner, on random strings of random lengths over small alphabets (so
// that they share much), empty ones among them, either one the shorter.
func TestLCSLenRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	str := func(n, letters int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(letters))
		}
		return string(b)
	}
	for range 3000 {
		letters := 1 + rng.IntN(4)
		a, b := str(rng.IntN(60), letters), str(rng.IntN(60), letters)
		tab := lcsTable(a, b)
		if got, want := lcsLen(a, b), tab[len(tab)-1]; got != want {
			t.Fatalf("lcsLen(%q, %q) = %d, the table says %d", a, b, got, want)
		}
	}
}

// TestLCSLenHoldsRows: LCS LEN of two 4,000-byte strings allocates two
// rows of 4,001 cells, where it allocated the whole table of 64 MB on
// every call, and answers as the table does; the plain LCS still walks
// the table back.
func TestLCSLenHoldsRows(t *testing.T) {
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
	tab := lcsTable(a, b)
	want := tab[len(tab)-1]
	tab = nil
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := respRun(t, "LCS", "a", "b", "LEN")
	runtime.ReadMemStats(&after)
	if got != ":"+strconv.Itoa(int(want))+"\r\n" {
		t.Fatalf("LCS LEN: %q, the table says %d", got, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("LCS LEN of two 4000-byte strings allocated %d bytes, want two rows (%d)", n, lcsLenBytes(a, b))
	}
	if seq := respRun(t, "LCS", "a", "b"); !strings.HasPrefix(seq, "$"+strconv.Itoa(int(want))+"\r\n") {
		t.Errorf("LCS: %.40q, want %d bytes", seq, want)
	}
}
