package hashes

import "testing"

// TestExpiredCounts: Expired counts each field removed by its TTL once,
// whichever way it goes (named after its time, reclaimed by ExpireSome,
// given a time not in the future by Expire or SetExpireAt), and nothing
// else.
func TestExpiredCounts(t *testing.T) {
	Expired = 0
	var h Hash
	for _, f := range []string{"a", "b", "c"} {
		h.SetExpireAt(0, f, "1", 10)
	}
	for _, f := range []string{"d", "e", "f"} {
		h.Set(0, f, "1")
	}
	check := func(step string, want int64) {
		t.Helper()
		if Expired != want {
			t.Errorf("after %s: Expired = %d, want %d", step, Expired, want)
		}
	}
	h.Delete(5, "d")
	h.Get(5, "a")
	check("a delete and a read before the time", 0)
	if _, ok := h.Get(20, "a"); ok {
		t.Error("a read after a's time found it")
	}
	check("a read after the time", 1)
	if n := h.ExpireSome(20, 10); n != 2 {
		t.Errorf("ExpireSome removed %d, want 2", n)
	}
	check("ExpireSome", 3)
	h.Expire(20, "e", 20, Always)
	check("Expire to now", 4)
	h.SetExpireAt(20, "f", "2", 5)
	check("SetExpireAt in the past", 5)
	h.SetExpireAt(20, "g", "2", 5)
	h.Expire(20, "nosuch", 5, Always)
	check("the same of fields that do not exist", 5)
}
