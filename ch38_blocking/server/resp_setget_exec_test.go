package server

import "testing"

// TestRESPSetGetTooBigInExec: inside a transaction, SET key value GET
// whose old value does not fit in the budget gets an error as its element
// of EXEC's reply (errExecTooBig), and so must change nothing either (see
// TestRESPSetGetTooBigChangesNothing).
func TestRESPSetGetTooBigInExec(t *testing.T) {
	st, big := valueOverBudget(t)
	respDoArgs(st, "MULTI")
	respDoArgs(st, "SET", "k", "new", "GET")
	respDoArgs(st, "EXEC")
	if want := "*1\r\n-" + errExecTooBig + "\r\n"; string(st.w.buf) != want {
		t.Fatalf("EXEC of SET k new GET: %.60q, want %q", st.w.buf, want)
	}
	if got := lookupEntry("k"); got == nil || got.val() != big {
		t.Fatal("EXEC answered SET k new GET an error, and the value was replaced")
	}
}
