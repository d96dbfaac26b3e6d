package server

import (
	"fmt"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// TestRESPArgumentsBudgeted: the array of a request's arguments, a slice
// header (24 bytes) per argument where an empty argument takes 6 bytes of
// the request, is taken from the budget before it is allocated: a request
// of more arguments than the kept array holds is refused, the connection
// closed, when the budget lacks one byte of its slots, and answered when
// it has them; the slots are given back once it is answered.
// requestReady, which finds the request whole first, builds nothing.
func TestRESPArgumentsBudgeted(t *testing.T) {
	resetData(t)
	saveBudget(t)
	const argc = 2*kRESPArgsKept + 1
	req := fmt.Sprintf("*%d\r\n$6\r\nEXISTS\r\n", argc) + strings.Repeat("$0\r\n\r\n", argc-1)
	slots := argc * kArgSlot
	for _, room := range []int{slots - 1, slots} {
		respArgs = nil
		base := inputHeld + outputHeld // the connections before this one
		conn := pipeConn()
		st := newRESPState(conn)
		conn.framing = st
		st.buf = append(make([]byte, 0, len(req)), req...)
		inputHeld += cap(st.buf)
		held := inputHeld + outputHeld
		maxOutputTotal = held + room
		if !st.requestReady(conn) || st.ready != len(req) || st.argc != argc || cap(respArgs) != 0 {
			t.Fatalf("requestReady: whole %d of %d bytes, %d arguments, an array of %d built", st.ready, len(req), st.argc, cap(respArgs))
		}
		answered := st.oneRequest(conn)
		reply := string(conn.wbuf)
		if room < slots {
			if answered || !strings.HasPrefix(reply, "-ERR the server's memory for clients is full") || conn.state == stateReq {
				t.Errorf("%d arguments, the budget a byte short of their slots: answered %v, %q, state %d", argc, answered, reply, conn.state)
			}
			if cap(respArgs) != 0 || inputHeld+outputHeld != held {
				t.Errorf("the refused request: an array of %d, %d bytes counted, want none and %d", cap(respArgs), inputHeld+outputHeld, held)
			}
			continue
		}
		if !answered || reply != ":0\r\n" {
			t.Errorf("%d arguments, the budget with room for their slots: answered %v, %q", argc, answered, reply)
		}
		if respArgs != nil || inputHeld+outputHeld-base != conn.memory() {
			t.Errorf("after the request: an array of %d kept, %d bytes counted, the connection holds %d", cap(respArgs), inputHeld+outputHeld-base, conn.memory())
		}
	}
}

// TestRESPReadyParsedOnce: a request that requestReady has found whole,
// however often it is asked, is parsed once more, to build its arguments;
// one that oneRequest finds first is parsed once (once the kept array has
// room for its arguments: the first request grows it).
func TestRESPReadyParsedOnce(t *testing.T) {
	resetData(t)
	conn := pipeConn()
	st := newRESPState(conn)
	conn.framing = st
	req := resp.AppendRequest(nil, "SET", "k", "v")
	for _, ready := range []int{-1, 0, 1, 3} {
		st.buf, st.start = append(st.buf[:0], req...), 0
		before := respParses
		for range max(ready, 0) {
			if !st.requestReady(conn) {
				t.Fatal("requestReady: the request is not whole")
			}
		}
		if !st.oneRequest(conn) || string(conn.wbuf) != "+OK\r\n" {
			t.Fatalf("the request not answered: %q", conn.wbuf)
		}
		conn.wbuf = conn.wbuf[:0]
		want := min(ready, 1) + 1
		if ready < 0 {
			continue // the first request, for the kept array
		}
		if parses := respParses - before; parses != want {
			t.Errorf("requestReady called %d times: the request parsed %d times, want %d", ready, parses, want)
		}
	}
}
