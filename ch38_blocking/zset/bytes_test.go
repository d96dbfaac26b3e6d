package zset

import "testing"

// TestAddBytes: a name given as bytes is copied when it becomes a member
// (the caller's buffer is reused), and finding or updating a member by
// bytes allocates nothing.
func TestAddBytes(t *testing.T) {
	z := &ZSet{}
	buf := []byte("alice")
	if !z.AddBytes(buf, 1) {
		t.Fatal("AddBytes of a new name reported an update")
	}
	copy(buf, "bobby") // the request buffer, reused
	if z.Lookup("alice") == nil || z.Lookup("bobby") != nil {
		t.Fatal("the member's name changed with the caller's buffer")
	}
	name := []byte("alice")
	if z.AddBytes(name, 2) {
		t.Fatal("AddBytes of an existing name reported a new member")
	}
	if got := z.LookupBytes(name); got == nil || got.Score() != 2 || z.Len() != 1 {
		t.Fatalf("after the update: %v, %d members; want alice at 2, 1 member", got, z.Len())
	}
	score := 3.0
	allocs := testing.AllocsPerRun(100, func() {
		z.AddBytes(name, score)
		score = -score
		if z.LookupBytes(name) == nil {
			t.Fatal("LookupBytes lost the member")
		}
	})
	if allocs != 0 {
		t.Errorf("updating and finding a member by bytes: %v allocations, want 0", allocs)
	}
}
