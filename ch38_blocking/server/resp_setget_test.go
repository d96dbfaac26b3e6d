package server

import (
	"strings"
	"testing"
)

// TestRESPSetGetTooBigChangesNothing: SET key value GET whose old value
// does not fit in what the budget of all connections' memory has left
// answers an error (the reply is cut off, and the caller replaces it with
// errReplyMemory, "try again later"), so it must change nothing. It
// replaced the value anyway: a 20 MB value under a 16 MiB budget was
// lost, and the client, told to try again, got the new value back.
func TestRESPSetGetTooBigChangesNothing(t *testing.T) {
	st, big := valueOverBudget(t)
	respDoArgs(st, "SET", "k", "new", "GET")
	if !st.w.over {
		t.Fatalf("SET k new GET with an old value of %d bytes under a budget of %d: %.40q, want the reply cut off", len(big), maxOutputTotal, st.w.buf)
	}
	if got := lookupEntry("k"); got == nil || got.val() != big {
		t.Fatal("SET k new GET answered an error, and replaced the value")
	}
}

// valueOverBudget sets "k" to a value of 128 KiB under a budget of 64
// KiB, which a reply of it cannot fit, and returns a connection state to
// run commands on, and the value.
func valueOverBudget(t *testing.T) (*respState, string) {
	resetData(t)
	saveBudget(t)
	maxOutputTotal = 64 << 10
	big := strings.Repeat("v", 128<<10)
	insertEntry(newEntry("k", []byte(big)))
	return newRESPState(nil), big
}

// respDoArgs runs one RESP command on the connection state st, as its
// request would, and leaves the reply in st.w (taken at once: it counts
// in nothing).
func respDoArgs(st *respState, args ...string) {
	cmd := make([][]byte, len(args))
	for i, a := range args {
		cmd[i] = []byte(a)
	}
	st.w.begin(nil)
	respDo(&conn{state: stateReq}, st, cmd)
	outputHeld -= cap(st.w.buf)
}
