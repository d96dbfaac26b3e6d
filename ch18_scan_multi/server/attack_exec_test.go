package server

import (
	"strings"
	"testing"
)

// TestAttackExecAppendWork: EXEC's work is bounded when its commands are
// queued (kMaxExecWork), each counted as its arguments unless it is in
// respExecWeight. APPEND is not, yet each copies the whole value, counted
// by APPEND itself at 1 item a KiB once it runs: a value near kMaxAppend
// makes each queued "APPEND big x" weigh 3 items and do 1,000. A
// transaction of kMaxQueued of them would copy some 10 GB in one request.
func TestAttackExecAppendWork(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	half := strings.Repeat("v", 512_000)
	a.expect(okReply, "SET", "big", half)
	a.expect(":1024000\r\n", "APPEND", "big", half)
	n := kMaxExecWork/1000 + 100
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "APPEND", "big", "x")
	}
	queuedWork := a.st.tx.queueWork
	before := workDone
	got := a.do("EXEC")
	done := workDone - before
	t.Logf("%d APPENDs queued as %d items of work; EXEC did %d (bound %d); reply %.20q", n, queuedWork, done, kMaxExecWork, got)
	if done > kMaxExecWork {
		t.Errorf("EXEC did %d items of work, past kMaxExecWork (%d): its APPENDs were weighed %d when queued", done, kMaxExecWork, queuedWork)
	}
}
