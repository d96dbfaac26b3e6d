package server

import (
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// TestRESPRequestAllocs: a RESP GET, and a PTTL, allocate nothing once
// their bytes are read, as the book's do (TestRequestAllocs): the command
// is found without a copy of its name, and the reply is written straight
// into the write buffer, through the same replyWriter interface.
func TestRESPRequestAllocs(t *testing.T) {
	for _, cmd := range [][]string{{"GET", "key:000042"}, {"get", "nosuchkey"}, {"PTTL", "key:000042"}, {"ZSCORE", "nokey", "m"}} {
		resetData(t)
		run("set", "key:000042", "abc")
		run("pexpire", "key:000042", "3600000")
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
		if got := testing.AllocsPerRun(100, handle); got != 0 {
			t.Errorf("%q: %v allocations per request, want 0", cmd, got)
		}
	}
}
