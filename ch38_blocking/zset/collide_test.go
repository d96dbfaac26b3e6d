package zset

import (
	"testing"

	"example.com/byor/testkit"
)

// TestCollidingNamesSpread: members whose names share one book's hash are
// spread over the by-name index like any others, so finding one walks a
// chain of about the load factor (8), not of every member before it. With
// the book's hash they formed one chain, which each new member walked to
// its end: n members cost n*n/2 name comparisons.
func TestCollidingNamesSpread(t *testing.T) {
	names := testkit.BookCollisions(4096)
	var z ZSet
	for i, name := range names {
		if !z.AddBytes([]byte(name), float64(i)) {
			t.Fatalf("member %d reported as an update", i)
		}
	}
	longest := z.hmap.LongestChain()
	// Chains of random codes: about Poisson(8) to Poisson(16), where one of
	// 64 comes about once in 10^16 sets.
	if longest > 64 {
		t.Errorf("the longest chain of the index holds %d of %d members", longest, len(names))
	}
	for i, name := range names {
		if n := z.Lookup(name); n == nil || n.Score() != float64(i) {
			t.Fatalf("member %d: Lookup = %v", i, n)
		}
	}
	for i, name := range names {
		if n := z.Pop(name); n == nil || n.Name() != name {
			t.Fatalf("member %d: Pop = %v", i, n)
		}
	}
	if z.Len() != 0 {
		t.Errorf("%d members left after popping them all", z.Len())
	}
}
