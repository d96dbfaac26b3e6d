package server

import (
	"fmt"
	"testing"

	"example.com/byor/ch38_blocking/waitq"
)

// parkedClient returns a RESP client of no socket, set up as the loop
// sets up a connection, parked by cmd: its reply is empty.
func parkedClient(t *testing.T, cmd ...string) *txClient {
	t.Helper()
	c := newConn(-1)
	st := newRESPState(c)
	c.framing = st
	respIdleList().InsertBefore(&c.idleList)
	tc := &txClient{t, st, c}
	if got := tc.do(cmd...); got != "" || st.block == nil {
		t.Fatalf("%q: answered %q, parked %v; want it parked, unanswered", cmd, got, st.block != nil)
	}
	return tc
}

// TestParkedClientsCostNothing: 10,000 parked clients, half of them with
// a timeout, add no work to commands on other keys, to the loop's timers
// and to the serving of ready keys: each command's work is what it is
// with no client parked, and no waiter is looked at.
func TestParkedClientsCostNothing(t *testing.T) {
	resetTx(t)
	t.Cleanup(func() {
		blockQueues, blockTimers, blockedClients, blockReady = [2]waitq.Queues[waiter]{}, nil, 0, waitq.Ready{}
	})
	a := newTxClient(t)
	turn := func() (works []int) {
		for i := range 50 {
			for _, cmd := range [][]string{
				{"set", fmt.Sprint("s", i), "v"},
				{"rpush", fmt.Sprint("other", i), "x"},
				{"zadd", fmt.Sprint("z", i), "1", "m"},
				{"lpop", fmt.Sprint("other", i)},
				{"del", fmt.Sprint("s", i), fmt.Sprint("z", i)},
			} {
				before := workDone
				a.do(cmd...)
				blockServeReady(nil)
				works = append(works, workDone-before)
			}
			processTimers()
			nextTimerMs()
		}
		return works
	}
	turn() // the key table made, its first growths done
	alone := turn()
	for i := range 10000 {
		timeout := "0"
		if i%2 == 0 {
			timeout = "3600"
		}
		if i%3 == 0 {
			parkedClient(t, "bzpopmin", fmt.Sprint("wz", i%100), timeout)
		} else {
			parkedClient(t, "blpop", fmt.Sprint("w", i%100), fmt.Sprint("w", i%7+100), timeout)
		}
	}
	if blockedClients != 10000 {
		t.Fatalf("%d clients parked, want 10000", blockedClients)
	}
	visits := blockVisits
	parked := turn()
	if blockVisits != visits {
		t.Errorf("%d waiters looked at by commands on other keys and the timers", blockVisits-visits)
	}
	for i := range alone {
		if alone[i] != parked[i] {
			t.Fatalf("command %d: %d units of work with 10,000 clients parked, %d with none", i, parked[i], alone[i])
		}
	}
	if n := blockQueues[0].Len() + blockQueues[1].Len(); n != 100+7+100 {
		t.Errorf("%d keys waited on, want 207", n)
	}
}
