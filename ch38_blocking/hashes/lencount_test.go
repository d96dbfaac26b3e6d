package hashes

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLenCountKept: the expired count behind Len stays exact while fields
// come, go and change expiry between calls at the same time, and when the
// clock moves either way; a plain scan is the reference.
func TestLenCountKept(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := &Hash{}
	now := t0
	for step := range 20000 {
		name := fmt.Sprint("f", r.IntN(200))
		at := now - 20 + r.Uint64N(60)
		switch r.IntN(9) {
		case 0:
			h.SetExpireAt(now, name, "v", at)
		case 1:
			h.Expire(now, name, at, Always)
		case 2:
			h.Persist(now, name)
		case 3:
			h.Delete(now, name)
		case 4:
			h.Set(now, name, "v")
		case 5:
			h.ExpireSome(now, r.IntN(5))
		case 6:
			now += r.Uint64N(10)
		case 7:
			now -= r.Uint64N(3) // the wall clock may step back
		}
		if got, want := h.Len(now), len(h.GetAll(now)); got != want {
			t.Fatalf("step %d: Len = %d, want %d", step, got, want)
		}
	}
}

// TestLenBacklogCountedOnce: with 200,000 expired fields awaiting
// reclaiming, Len walks them once per millisecond, not once per call (each
// walk takes about a millisecond; 2,000 of them took seconds). The test
// counts, rather than times: after the first call has kept its count, a
// later call at the same time must answer from that count, which the test
// doctors to see it used.
func TestLenBacklogCountedOnce(t *testing.T) {
	const n = 200_000
	h := &Hash{}
	for i := range n {
		h.SetExpireAt(t0, fmt.Sprint("f", i), "v", t0+1)
	}
	h.Set(t0, "keeper", "v")
	now := t0 + 10
	if got := h.Len(now); got != 1 {
		t.Fatalf("Len = %d, want 1", got)
	}
	if h.nExpiredAt != now || h.nExpired != n {
		t.Fatalf("after one Len, the count kept is %d at %d, want %d at %d", h.nExpired, h.nExpiredAt, n, now)
	}
	h.nExpired = n - 7 // a walk would find n again
	for range 2000 {
		if got := h.Len(now); got != 1+7 {
			t.Fatalf("Len = %d, want the kept count's answer, 8: Len walked the %d expired fields again", got, n)
		}
	}
	h.nExpired = n
	// Reclaiming some keeps the count exact without a new walk.
	h.ExpireSome(now, 1000)
	if got := h.Len(now); got != 1 || h.nExpired != n-1000 {
		t.Fatalf("after reclaiming 1000: Len = %d (want 1), count kept %d (want %d)", got, h.nExpired, n-1000)
	}
}
