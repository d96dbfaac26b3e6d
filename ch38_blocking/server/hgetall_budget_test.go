package server

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestHGetAllCutOffEarly: an HGETALL whose reply outgrows the budget for
// clients stops walking the hash as soon as the writer says no: its work
// is the fields written before that, not the whole hash, and nothing is
// built beside the reply (no list of the fields, which the budget would
// not see). A reply that fits is the whole hash, in GetAll's order.
func TestHGetAllCutOffEarly(t *testing.T) {
	resetData(t)
	const n = 100_000
	value := strings.Repeat("v", 100)
	ent, _ := hashForWrite("h")
	for i := range n {
		ent.obj.hash.Set(getUnixMs(), "field:"+strconv.Itoa(i), value)
	}
	run := func() (reply string, over bool, work int, allocated uint64, grown int) {
		st := newRESPState(nil)
		st.w.begin(nil)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		before := workDone
		respDo(&conn{state: stateReq}, st, [][]byte{[]byte("HGETALL"), []byte("h")})
		work = workDone - before
		runtime.ReadMemStats(&m1)
		outputHeld -= cap(st.w.buf)
		return string(st.w.buf), st.w.over, work, m1.TotalAlloc - m0.TotalAlloc, cap(st.w.buf)
	}

	// Some 13 MiB of reply, in a budget of 4 MiB: past the least bytes
	// the command checks first (12 a field), so it starts, and is cut off
	// at about half the budget (see growSteps), some 15,000 fields in.
	saved := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = saved })
	maxOutputTotal = 4 << 20
	_, over, work, allocated, grown := run()
	if !over {
		t.Fatal("HGETALL of 13 MiB in a budget of 4 MiB was not cut off")
	}
	if work > n*kVisitWork/2 {
		t.Errorf("the cut-off HGETALL did %d units of work, want less than half the hash's %d", work, n*kVisitWork)
	}
	// The reply's buffer, grown by doubling or less, is all it allocates:
	// the buffers it outgrew sum to no more than twice the last one.
	if allocated > uint64(3*grown) {
		t.Errorf("the cut-off HGETALL allocated %d bytes, more than three times its reply's buffer (%d)", allocated, grown)
	}
	t.Logf("cut off: %d units of work, %d bytes allocated, a buffer of %d", work, allocated, grown)

	maxOutputTotal = saved
	reply, over, work, _, _ := run()
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(2*n) + "\r\n")
	for _, p := range ent.obj.hash.GetAll(getUnixMs()) {
		b.WriteString("$" + strconv.Itoa(len(p.Name)) + "\r\n" + p.Name + "\r\n$" + strconv.Itoa(len(p.Value)) + "\r\n" + p.Value + "\r\n")
	}
	if want := b.String(); over || reply != want {
		t.Errorf("HGETALL within the budget: %d bytes (over %v), want %d: %.60q", len(reply), over, len(want), strings.TrimPrefix(reply, want[:min(len(want), len(reply))]))
	}
	if work < n*kVisitWork {
		t.Errorf("HGETALL of %d fields did %d units of work, want at least %d", n, work, n*kVisitWork)
	}
}
