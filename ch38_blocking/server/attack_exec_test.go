package server

import (
	"strings"
	"testing"
)

// TestAttackExecAppendWork: each APPEND copied the whole value, so a
// transaction of "APPEND big x" on a value near maxAppend, 3 arguments
// each, once copied some 10 GB in one request. EXEC now weighs each
// APPEND at a copy of the value (costAppend, one unit per kWorkBytes:
// whether it will find room to grow in cannot be told beforehand) before
// running anything: a transaction of too many is refused whole, the value
// unchanged, and one that fits runs within kMaxExecWork, its work no more
// than weighed.
func TestAttackExecAppendWork(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	half := strings.Repeat("v", 512_000)
	a.expect(okReply, "SET", "big", half)
	a.expect(":1024000\r\n", "APPEND", "big", half)
	perAppend := 1024_000 / kWorkBytes
	tooMany := kMaxExecWork/perAppend + 10
	a.expect(okReply, "MULTI")
	for range tooMany {
		a.expect(queued, "APPEND", "big", "x")
	}
	got := a.do("EXEC")
	if !strings.HasPrefix(got, "-EXECABORT ") {
		t.Fatalf("EXEC of %d APPENDs to a 1 MB value: %.100q", tooMany, got)
	}
	if n := len(lookupEntry("big").val()); n != 1024_000 {
		t.Fatalf("the value is %d bytes after a refused EXEC", n)
	}
	// A tenth of the bound runs.
	fits := kMaxExecWork / perAppend / 10
	var estimate, work int
	execDone = func(weighed, did []int) {
		for i := range weighed {
			estimate, work = estimate+weighed[i], work+did[i]
		}
	}
	t.Cleanup(func() { execDone = nil })
	a.expect(okReply, "MULTI")
	for range fits {
		a.expect(queued, "APPEND", "big", "x")
	}
	before := workDone
	got = a.do("EXEC")
	done := workDone - before
	t.Logf("%d APPENDs refused whole (%.60q); %d ran: weighed %d, did %d (bound %d)", tooMany, got, fits, estimate, work, kMaxExecWork)
	if !strings.HasPrefix(got, "*") || work > estimate || done > kMaxExecWork {
		t.Fatalf("EXEC of %d APPENDs: %.40q, weighed %d, did %d in the run, %d in all", fits, got, estimate, work, done)
	}
	if n := len(lookupEntry("big").val()); n != 1024_000+fits {
		t.Fatalf("the value is %d bytes after %d APPENDs", n, fits)
	}
}
