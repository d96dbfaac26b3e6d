package server

import (
	"strconv"
	"strings"
	"testing"
)

// The log's bytes against the request's: a command logged as its effect
// must not turn a small request into a big record. Each attack below is
// compared with its honest twin, HSET of the same fields under the same
// long key, which is logged as given.

// respBytes is the size of a request in RESP.
func respBytes(args [][]byte) int {
	n := len("*\r\n") + len(strconv.Itoa(len(args)))
	for _, a := range args {
		n += len("$\r\n\r\n") + len(strconv.Itoa(len(a))) + len(a)
	}
	return n
}

// runLogged runs one RESP command with an empty log buffer and returns
// the request's size and the bytes it logged.
func runLogged(t *testing.T, words ...string) (req, log int) {
	t.Helper()
	args := make([][]byte, len(words))
	for i, w := range words {
		args[i] = []byte(w)
	}
	aofBuf = aofBuf[:0]
	st := newRESPState(nil)
	st.w.begin(nil)
	respDo(&conn{state: stateReq}, st, args)
	outputHeld -= cap(st.w.buf)
	if len(st.w.buf) > 0 && st.w.buf[0] == '-' {
		t.Fatalf("%.40q...: %s", words, st.w.buf)
	}
	return respBytes(args), len(aofBuf)
}

// TestAOFLogAmplification: fields named under a long key, given TTLs or
// values with TTLs, log at most about what HSET of the same fields does.
func TestAOFLogAmplification(t *testing.T) {
	logOn(t)
	key := strings.Repeat("k", 1000)
	const n = 500
	fields := func(pairs bool) []string {
		var w []string
		for i := range n {
			w = append(w, "f"+strconv.Itoa(i))
			if pairs {
				w = append(w, "")
			}
		}
		return w
	}
	withFields := func(head []string, pairs bool) []string {
		return append(append(head, "FIELDS", strconv.Itoa(n)), fields(pairs)...)
	}
	twinReq, twinLog := runLogged(t, append([]string{"HSET", key}, fields(true)...)...)
	t.Logf("twin HSET: %d request bytes, %d logged", twinReq, twinLog)
	for _, c := range []struct {
		attack []string
		bound  bool // false: reported, not yet bounded (see below)
	}{
		{withFields([]string{"HSETEX", key, "PX", "100000"}, true), true},
		{withFields([]string{"HGETEX", key, "PX", "300000"}, false), true},
		// Only f0 takes the new TTL: the others, which keep theirs, are
		// not logged.
		{withFields([]string{"HPEXPIRE", key, "200000", "NX"}, false), true},
		// Values given to fields that keep TTLs of their own, each a
		// different time, are logged with one HPEXPIREAT per time, each
		// with the key: this still logs about the key's length a field.
		{withFields([]string{"HSETEX", key, "KEEPTTL"}, true), false},
	} {
		// Each field a TTL of its own, a millisecond apart, but f0.
		for i := range n {
			runLogged(t, "HPEXPIRE", key, strconv.Itoa(100000+i), "FIELDS", "1", "f"+strconv.Itoa(i))
		}
		runLogged(t, "HPERSIST", key, "FIELDS", "1", "f0")
		req, log := runLogged(t, c.attack...)
		t.Logf("%s %s: %d request bytes, %d logged (%.1fx the request)", c.attack[0], c.attack[2], req, log, float64(log)/float64(req))
		if c.bound && log > 3*req {
			t.Errorf("%s %s: %d request bytes logged as %d, more than 3x", c.attack[0], c.attack[2], req, log)
		}
	}
}

// TestAOFLogsFieldPairsGrouped: HSETEX's fields are logged as one HSET
// and one HPEXPIREAT for each expiry time, whatever their number.
func TestAOFLogsFieldPairsGrouped(t *testing.T) {
	logOn(t)
	respSession(t, "HSETEX h PX 3000 FIELDS 3 a 1 b 2 c 3")
	expectLog(t, "MULTI", "HSET h a 1 b 2 c 3", "HPEXPIREAT h AT+3000 FIELDS 3 a b c", "EXEC")
	respSession(t, "HSET h d 4", "HSETEX h KEEPTTL FIELDS 2 a 5 d 6")
	expectLog(t, "HSET h d 4", "MULTI", "HSET h a 5 d 6", "HPEXPIREAT h AT+3000 FIELDS 1 a", "EXEC")
}
