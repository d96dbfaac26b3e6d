package server

import (
	"strings"
	"testing"
)

// TestExecConfigWork: a queued CONFIG GET weighs its patterns' bound on
// steps against kMaxExecWork, as KEYS weighs its bound. Weighed as its
// arguments only, 50 CONFIG GETs of "*[512 KiB]z" were queued, and EXEC
// ran some 10^8 matching steps in one request. Now those that fit are
// queued and the next is refused, and EXEC stays within kMaxExecWork;
// 50 names of the same length, looked up without matching, all queue.
func TestExecConfigWork(t *testing.T) {
	resetTx(t)
	maxOutputTotal = 256 << 20 // room for 50 queued arguments of 512 KiB
	a := newTxClient(t)
	costly := "*[" + strings.Repeat("b", 512<<10) + "]z"
	a.expect(okReply, "MULTI")
	n := 0
	for ; n < 50; n++ {
		if got := a.do("CONFIG", "GET", costly); got != queued {
			if got != "-"+errTooMuchWork+"\r\n" {
				t.Fatalf("CONFIG GET number %d: %.60q", n+1, got)
			}
			break
		}
	}
	a.expect(execAborted, "EXEC")
	if n == 0 || n > kMaxExecWork/(kMatchMaxSteps/kMatchStepsPerItem) {
		t.Fatalf("%d costly CONFIG GETs queued in one transaction", n)
	}
	// The ones that fit, run: within the bound.
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "CONFIG", "GET", costly)
	}
	weighed, before := a.st.tx.queueWork, workDone
	got := a.do("EXEC")
	done := workDone - before
	t.Logf("%d CONFIG GETs queued as %d items of work; EXEC did %d (bound %d)", n, weighed, done, kMaxExecWork)
	if done > kMaxExecWork {
		t.Errorf("EXEC did %d items of work, past kMaxExecWork (%d)", done, kMaxExecWork)
	}
	if want := "-" + errConfigMatchTooCostly + "\r\n"; strings.Count(got, want) != n {
		t.Errorf("EXEC's reply holds %d refusals of the costly match, want %d", strings.Count(got, want), n)
	}

	plain := strings.Repeat("x", len(costly))
	a.expect(okReply, "MULTI")
	for range 50 {
		a.expect(queued, "CONFIG", "GET", plain)
	}
	if got, want := a.do("EXEC"), "*50\r\n"+strings.Repeat("*0\r\n", 50); got != want {
		t.Errorf("EXEC of 50 plain CONFIG GETs = %.60q", got)
	}
}
