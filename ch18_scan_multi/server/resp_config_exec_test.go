package server

import (
	"strings"
	"testing"
)

// TestExecConfigWork: a queued CONFIG GET weighs its patterns' bound on
// steps against kMaxExecWork, as KEYS weighs its bound, and runs within
// it. Weighed as its arguments only and matched without a bound, 50
// CONFIG GETs of "*[<512 KiB>]z" were queued and EXEC ran some 10^8
// matching steps in one request, uncounted. Now each is weighed at
// kConfigMatchMaxSteps and answers its refusal inside EXEC's reply,
// its steps counted; more of them than kMaxExecWork allows are refused
// when queued; 50 names as long, looked up without matching, all queue
// and run.
func TestExecConfigWork(t *testing.T) {
	resetTx(t)
	maxOutputTotal = 256 << 20 // room for 50 queued arguments of 512 KiB
	a := newTxClient(t)
	const n = 50
	weight := kConfigMatchMaxSteps / kMatchStepsPerItem
	costly := "*[" + strings.Repeat("b", 512<<10) + "]z"
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "CONFIG", "GET", costly)
	}
	if a.st.tx.queueWork < n*weight {
		t.Errorf("%d costly CONFIG GETs weighed %d items of work, want at least %d", n, a.st.tx.queueWork, n*weight)
	}
	weighed, before := a.st.tx.queueWork, workDone
	got := a.do("EXEC")
	done := workDone - before
	t.Logf("%d CONFIG GETs weighed %d items of work; EXEC did %d (bound %d)", n, weighed, done, kMaxExecWork)
	if want := "-" + errConfigMatchTooCostly + "\r\n"; strings.Count(got, want) != n {
		t.Errorf("EXEC's reply holds %d refusals of the costly match, want %d", strings.Count(got, want), n)
	}
	if done < n*weight || done > weighed {
		t.Errorf("EXEC did %d items of work, want %d to what its commands weighed", done, n*weight)
	}

	// Past kMaxExecWork: a pattern of 32 KiB takes the whole bound too.
	a.expect(okReply, "MULTI")
	k := 0
	for ; k <= kMaxExecWork/weight; k++ {
		if got := a.do("CONFIG", "GET", costly[:32<<10]+"]z"); got != queued {
			if got != "-"+errTooMuchWork+"\r\n" {
				t.Fatalf("CONFIG GET number %d: %.60q", k+1, got)
			}
			break
		}
	}
	a.expect(execAborted, "EXEC")
	if k == 0 || k >= kMaxExecWork/weight {
		t.Fatalf("%d CONFIG GETs of a 32 KiB pattern queued in one transaction, weighing %d each against %d", k, weight, kMaxExecWork)
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
