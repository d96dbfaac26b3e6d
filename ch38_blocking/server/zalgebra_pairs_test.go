package server

import (
	"fmt"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// TestZAlgebraReplyAllocs: a ZUNION, ZINTER or ZDIFF that replies lists
// its result from pairs it sorts, without building a sorted set of them:
// its allocations do not grow a member at a time (a tree node and a hash
// table entry each), as they would if it did.
func TestZAlgebraReplyAllocs(t *testing.T) {
	const n = 4000
	resetData(t)
	for i := range n {
		run("zadd", "a", fmt.Sprint(i%97), fmt.Sprintf("m%05d", i))
		if i%2 == 0 {
			run("zadd", "b", fmt.Sprint(i%89), fmt.Sprintf("m%05d", i))
		} else {
			run("zadd", "b", fmt.Sprint(i%89), fmt.Sprintf("x%05d", i))
		}
	}
	for _, cmd := range [][]string{
		{"ZUNION", "2", "a", "b", "WITHSCORES"},
		{"ZINTER", "2", "a", "b", "WEIGHTS", "2", "3", "WITHSCORES"},
		{"ZDIFF", "2", "a", "b"},
	} {
		req := resp.AppendRequest(nil, cmd...)
		st := newRESPState(nil)
		c := newConn(-1)
		c.framing = st
		handle := func() {
			st.buf, st.start = append(st.buf[:0], req...), 0
			if !st.oneRequest(c) {
				t.Fatal("request not handled")
			}
			c.wbuf = c.wbuf[:0]
		}
		got := testing.AllocsPerRun(5, handle)
		t.Logf("%q: %v allocations", cmd, got)
		if got > n/16 {
			t.Errorf("%q: %v allocations, want at most %d for a result of up to %d members", cmd, got, n/16, 3*n/2)
		}
	}
}
