package server

import (
	"strconv"
	"strings"
	"testing"
)

// TestHKeysValsCutOffEarly: HKEYS and HVALS, as HGETALL
// (TestHGetAllCutOffEarly), write the fields as they walk them, so that a
// reply that outgrows the budget stops the walk there: its work is the
// fields written, not the whole hash. Within the budget each answers
// every field.
func TestHKeysValsCutOffEarly(t *testing.T) {
	resetData(t)
	const n = 100_000
	long := strings.Repeat("x", 100)
	ent, _ := hashForWrite("h")
	for i := range n {
		ent.obj.hash.Set(getUnixMs(), long+strconv.Itoa(i), long+strconv.Itoa(i))
	}
	run := func(cmd string) (reply string, over bool, work int) {
		st := newRESPState(nil)
		st.w.begin(nil)
		before := workDone
		respDo(&conn{state: stateReq}, st, [][]byte{[]byte(cmd), []byte("h")})
		outputHeld -= cap(st.w.buf)
		return string(st.w.buf), st.w.over, workDone - before
	}
	saved := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = saved })
	for _, cmd := range []string{"HKEYS", "HVALS"} {
		// Some 11 MiB of reply in a budget of 4 MiB, past the 6 bytes a
		// field the command checks first.
		maxOutputTotal = 4 << 20
		if _, over, work := run(cmd); !over || work > n*kVisitWork/2 {
			t.Errorf("%s in a budget of 4 MiB: cut off %v after %d units of work, want it cut off within %d", cmd, over, work, n*kVisitWork/2)
		}
		maxOutputTotal = saved
		reply, over, work := run(cmd)
		if over || strings.Count(reply, "\r\n"+long) != n || !strings.HasPrefix(reply, "*"+strconv.Itoa(n)+"\r\n") || work < n*kVisitWork {
			t.Errorf("%s within the budget: %d bytes, over %v, %d units of work; want %d fields", cmd, len(reply), over, work, n)
		}
	}
}
