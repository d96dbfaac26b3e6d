package server

import (
	"bytes"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
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

// TestEntryCopiesValueOnce: a new entry and a replaced value copy the
// value once, into a string of their own. key + string(val) copied a
// value twice (a SET of 200 MiB allocated 400 MiB); and with an empty
// key the value's string could be the request's bytes, and with an empty
// value the key could be a slice of the old string, value and all.
func TestEntryCopiesValueOnce(t *testing.T) {
	val := bytes.Repeat([]byte("v"), 1<<20)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	ent := newEntry("k", val)
	ent.setVal(val)
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > 2*uint64(len(val))+(64<<10) {
		t.Errorf("newEntry and setVal of a 1 MiB value allocated %d bytes, want about %d", got, 2*len(val))
	}
	empty := newEntry("", val)
	val[0] = 'x'
	if empty.val()[0] != 'v' {
		t.Error("the value of an entry with an empty key is the caller's bytes")
	}
	old := ent.kv
	ent.setVal(nil)
	if ent.key() != "k" || ent.val() != "" || unsafe.StringData(ent.kv) == unsafe.StringData(old) {
		t.Errorf("setVal(nil): key %q, val %q, sharing the old string: %v", ent.key(), ent.val(), unsafe.StringData(ent.kv) == unsafe.StringData(old))
	}
}
