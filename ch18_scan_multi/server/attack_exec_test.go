package server

import (
	"strings"
	"testing"
)

// TestAttackExecAppendWork: EXEC's work is bounded when its commands are
// queued (kMaxExecWork), each counted as its arguments unless it is in
// respExecWeight. Each APPEND copies the whole value, counted by APPEND
// itself at 1 item a KiB once it runs: weighed only as its 3 arguments, a
// value near kMaxAppend made each queued "APPEND big x" weigh 3 items and
// do 1,000, and a transaction of kMaxQueued of them copy some 10 GB in
// one request. Weighed at its bound, the APPENDs that fit are queued, the
// next one is refused, and EXEC stays within kMaxExecWork.
func TestAttackExecAppendWork(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	half := strings.Repeat("v", 512_000)
	a.expect(okReply, "SET", "big", half)
	a.expect(":1024000\r\n", "APPEND", "big", half)
	a.expect(okReply, "MULTI")
	n := 0
	for ; n < kMaxExecWork/1000+100; n++ {
		if got := a.do("APPEND", "big", "x"); got != queued {
			if got != "-"+errTooMuchWork+"\r\n" {
				t.Fatalf("APPEND number %d: %q", n+1, got)
			}
			break
		}
	}
	a.expect(execAborted, "EXEC")
	if n == 0 || n > kMaxExecWork/1000 {
		t.Fatalf("%d APPENDs of a 1 MB value queued in one transaction", n)
	}
	// The ones that fit, run: within the bound.
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "APPEND", "big", "x")
	}
	before := workDone
	got := a.do("EXEC")
	done := workDone - before
	t.Logf("%d APPENDs queued as %d items of work; EXEC did %d (bound %d); reply %.20q", n, a.st.tx.queueWork, done, kMaxExecWork, got)
	if done > kMaxExecWork {
		t.Errorf("EXEC did %d items of work, past kMaxExecWork (%d)", done, kMaxExecWork)
	}
}
