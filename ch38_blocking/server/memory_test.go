package server

import (
	"runtime"
	"strconv"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

// TestHeapPerKey measures the live heap a key costs: 200,000 keys as
// TestMemoryPerKey loads them (set key:N v, pexpire key:N 3600000), in
// process, counted by runtime.MemStats after a full collection. Unlike the
// server's RSS this figure holds no garbage-collector headroom and no
// noise from the machine, so it is the same on every run and can be held
// to a tight limit.
//
// It measures about 79 bytes: the 32-byte entry, 16 for the key's string,
// the 24-byte heap item with the timer slice's spare capacity, and the key
// table's slots. The limit of 84 fails a regression such as an entry of the
// next size class (48 bytes).
func TestHeapPerKey(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a million keys")
	}
	const keys, limit = 200_000, 84
	expireSet := string(proto.OutInt(nil, 1))
	resetData(t)
	before := liveHeap()
	for i := 0; i < keys; i++ {
		key := "key:" + strconv.Itoa(i)
		run("set", key, "v")
		if got := run("pexpire", key, "3600000"); got != expireSet {
			t.Fatalf("pexpire %s = %q, want %q: the key was not stored", key, got, expireSet)
		}
	}
	perKey := float64(liveHeap()-before) / keys
	if len(gData.heap) != keys {
		t.Fatalf("%d timers, want %d", len(gData.heap), keys)
	}
	t.Logf("live heap: %.1f bytes per key", perKey)
	if perKey > limit {
		t.Errorf("%.1f bytes of live heap per key, above %d", perKey, limit)
	}
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
