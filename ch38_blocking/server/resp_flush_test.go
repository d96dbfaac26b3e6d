package server

import (
	"fmt"
	"testing"
)

// TestRESPFlushAllSwaps: FLUSHALL of 100,000 keys, half of them with a
// TTL, does not delete them one by one on the event loop (which over
// millions of keys took seconds): the old key table is left as it was,
// for the thread pool, rather than emptied key by key; the TTL heap is
// replaced whole; and the keys are gone at once.
func TestRESPFlushAllSwaps(t *testing.T) {
	resetData(t)
	const n = 100_000
	for i := range n {
		k := fmt.Sprint("k", i)
		run("set", k, "v")
		if i%2 == 0 {
			run("pexpire", k, "100000")
		}
	}
	run("zadd", "z", "1", "m")
	for _, mode := range []string{"", "ASYNC", "SYNC"} {
		old := gData.db
		had := old.Len()
		args := []string{"FLUSHALL"}
		if mode != "" {
			args = append(args, mode)
		}
		if got := respRun(t, args...); got != "+OK\r\n" {
			t.Fatalf("%v: %q", args, got)
		}
		if left := old.Len(); left != had {
			t.Errorf("%v deleted %d of %d keys one by one on the event loop", args, had-left, had)
		}
		if gData.db.Len() != 0 || len(gData.heap) != 0 {
			t.Errorf("%v left %d keys, %d timers", args, gData.db.Len(), len(gData.heap))
		}
		if got := run("get", "k0"); got != run("get", "missing") {
			t.Errorf("%v: k0 still there", args)
		}
		run("set", "k0", "v") // something to flush the next time
		run("pexpire", "k0", "100000")
	}
}
