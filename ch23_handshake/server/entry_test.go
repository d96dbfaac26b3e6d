package server

import (
	"reflect"
	"testing"
)

// TestEntryLayout holds entry to the 32-byte size class, and a new string
// key to two allocations: the entry, and one string holding key and value.
func TestEntryLayout(t *testing.T) {
	if size := reflect.TypeFor[entry]().Size(); size != 32 {
		t.Errorf("entry is %d bytes, want 32", size)
	}
	resetData(t)
	set := [][]byte{[]byte("set"), []byte("k0000000"), []byte("value")}
	del := [][]byte{[]byte("del"), set[1]}
	out := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		doRequest(set, out)
		doRequest(del, out)
	})
	// AllocsPerRun averages; the table's occasional resize adds a little.
	if allocs < 2 || allocs > 2.5 {
		t.Errorf("set of a new key then del: %.1f allocations, want 2", allocs)
	}
	ent := &entry{}
	for _, c := range []struct{ key, val string }{{"k", "v"}, {"", "v"}, {"key", ""}} {
		*ent = *newEntry(c.key, []byte(c.val))
		if ent.key() != c.key || ent.val() != c.val || ent.typ() != tStr || ent.heapIdx != -1 {
			t.Errorf("newEntry(%q, %q): key %q, val %q", c.key, c.val, ent.key(), ent.val())
		}
		ent.setVal([]byte("new"))
		if ent.key() != c.key || ent.val() != "new" {
			t.Errorf("after setVal: key %q, val %q", ent.key(), ent.val())
		}
	}
}
