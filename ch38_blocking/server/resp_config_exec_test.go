package server

import (
	"strings"
	"testing"
)

// TestExecConfigWork: EXEC weighs a queued CONFIG GET at its patterns'
// bound on steps (costConfig), as it weighs KEYS, and the GET runs within
// it. Weighed as its arguments only and matched without a bound, 50
// CONFIG GETs of "*[<512 KiB>]z" ran some 10^8 matching steps in one
// EXEC, uncounted. Now each is weighed at kConfigMatchMaxSteps and answers
// its refusal inside EXEC's reply, its steps counted; a transaction of
// more of them than kMaxExecWork allows is refused whole; 50 names as
// long, looked up without matching, run.
func TestExecConfigWork(t *testing.T) {
	resetTx(t)
	maxOutputTotal = 256 << 20 // room for the queued arguments of 512 KiB
	a := newTxClient(t)
	const n = 50
	weight := kConfigMatchMaxSteps / kMatchStepsPerItem
	costly := "*[" + strings.Repeat("b", 512<<10) + "]z"
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "CONFIG", "GET", costly)
	}
	before := workDone
	got := a.do("EXEC")
	done := workDone - before
	t.Logf("EXEC of %d costly CONFIG GETs did %d units of work (bound %d)", n, done, kMaxExecWork)
	if want := "-" + errConfigMatchTooCostly + "\r\n"; strings.Count(got, want) != n {
		t.Errorf("EXEC's reply holds %d refusals of the costly match, want %d: %.80q", strings.Count(got, want), n, got)
	}
	if done < n*weight || done > kMaxExecWork {
		t.Errorf("EXEC did %d units of work, want %d to %d", done, n*weight, kMaxExecWork)
	}

	// Past kMaxExecWork: the transaction is refused whole, nothing run.
	a.expect(okReply, "MULTI")
	k := kMaxExecWork/weight + 1
	for range k {
		a.expect(queued, "CONFIG", "GET", costly[:32<<10]+"]z")
	}
	before = workDone
	if got := a.do("EXEC"); !strings.HasPrefix(got, "-EXECABORT ") {
		t.Fatalf("EXEC of %d CONFIG GETs weighing %d each (bound %d) = %.80q, want EXECABORT", k, weight, kMaxExecWork, got)
	}
	if done := workDone - before; done >= weight {
		t.Errorf("a refused EXEC did %d units of work, as much as one costly match (%d)", done, weight)
	}

	plain := strings.Repeat("x", len(costly))
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "CONFIG", "GET", plain)
	}
	if got, want := a.do("EXEC"), "*50\r\n"+strings.Repeat("*0\r\n", n); got != want {
		t.Errorf("EXEC of 50 plain CONFIG GETs = %.60q", got)
	}
}
