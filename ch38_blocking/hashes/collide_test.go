package hashes

import (
	"testing"

	"example.com/byor/testkit"
)

// TestCollidingFieldsSpread: fields whose names share one book's hash are
// spread over the hash's table like any others, so finding one walks a
// chain of about the load factor (8), not of every field before it. With
// the book's hash they formed one chain, which each new field walked to
// its end: n fields cost n*n/2 name comparisons.
func TestCollidingFieldsSpread(t *testing.T) {
	const now = 1000
	names := testkit.BookCollisions(4096)
	var h Hash
	for i, name := range names {
		if !h.Set(now, name, name) {
			t.Fatalf("field %d reported as existing", i)
		}
	}
	longest := h.fields.LongestChain()
	// Chains of random codes: about Poisson(8) to Poisson(16), where one of
	// 64 comes about once in 10^16 hashes.
	if longest > 64 {
		t.Errorf("the longest chain holds %d of %d fields", longest, len(names))
	}
	for i, name := range names {
		if v, ok := h.Get(now, name); !ok || v != name {
			t.Fatalf("field %d: Get = %q, %v", i, v, ok)
		}
	}
	for i, name := range names {
		if !h.Delete(now, name) {
			t.Fatalf("field %d: not deleted", i)
		}
	}
	if n := h.Len(now); n != 0 {
		t.Errorf("%d fields left after deleting them all", n)
	}
}
