package server

import (
	"fmt"
	"testing"

	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/threadpool"
)

// resetData empties the server's global state, with a new thread pool
// that is closed when the test or benchmark ends.
func resetData(tb testing.TB) {
	gData.db = newKeySpace()
	gData.fd2conn = nil
	gData.idleList.Init()
	bufList.Init()
	outputHeld, inputHeld = 0, 0
	gData.heap = nil
	gData.fieldHeap = nil
	tp := threadpool.New(4)
	tb.Cleanup(tp.Close)
	gData.tp = tp
}

// run executes one command as the server would and returns its reply.
func run(cmd ...string) string {
	args := make([][]byte, len(cmd))
	for i, s := range cmd {
		args[i] = []byte(s)
	}
	return string(doRequest(args, nil))
}

// TestMassExpiryIsBounded: 100,000 keys due at the same moment are removed
// kMaxWorks at a time, one batch per loop iteration, so a client's request
// waits at most one batch; keys without a TTL are never touched.
func TestMassExpiryIsBounded(t *testing.T) {
	resetData(t)
	const n = 100_000
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%d", i)
		run("set", key, "v")
		run("pexpire", key, "0") // due now
	}
	run("set", "keeper", "v")
	if got := gData.db.Len(); got != n+1 {
		t.Fatalf("db holds %d keys, want %d", got, n+1)
	}

	for left := n; left > 0; {
		processTimers()
		removed := left - (gData.db.Len() - 1)
		want := min(kMaxWorks, left)
		if removed != want {
			t.Fatalf("one processTimers call removed %d keys, want %d (with %d due)", removed, want, left)
		}
		left -= removed
		if len(gData.heap) != left {
			t.Fatalf("heap holds %d timers, want %d", len(gData.heap), left)
		}
		// Between batches the server answers as usual.
		if got, want := run("get", "keeper"), string(proto.OutStr(nil, "v")); got != want {
			t.Fatalf("get keeper = %q, want %q", got, want)
		}
	}
	if got := run("pttl", "k0"); got != string(proto.OutInt(nil, -2)) {
		t.Fatalf("pttl of an expired key = %q, want -2", got)
	}
}

// TestDeleteRemovesTimer: del, and a negative pexpire, take the key's
// timer out of the heap, keeping every other timer's back-index right.
func TestDeleteRemovesTimer(t *testing.T) {
	resetData(t)
	for i := 0; i < 100; i++ {
		key := fmt.Sprintf("k%d", i)
		run("set", key, "v")
		run("pexpire", key, fmt.Sprint(100000+i*7%13))
	}
	for i := 0; i < 100; i += 3 {
		run("del", fmt.Sprintf("k%d", i))
	}
	for i := 1; i < 100; i += 3 {
		run("pexpire", fmt.Sprintf("k%d", i), "-1")
	}
	if len(gData.heap) != 33 {
		t.Fatalf("heap holds %d timers, want 33", len(gData.heap))
	}
	for pos, item := range gData.heap {
		if int(item.Owner.heapIdx) != pos {
			t.Fatalf("timer at %d has back-index %d", pos, item.Owner.heapIdx)
		}
		if pos > 0 && gData.heap[(pos-1)/2].Val > item.Val {
			t.Fatalf("heap order broken at %d", pos)
		}
	}
}
