package server

import (
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// TestKeysWrittenAsFound: KEYS writes each match into the reply as the
// walk finds it, with no list of the matches held first, outside the
// budget: over 5,000 keys it allocates no more than over none (once the
// write buffer has grown), where a list of them took a dozen. The replies
// are as ever: the count first, a pattern matching none, and the error
// of a pattern too costly to match with nothing of the walk left behind.
func TestKeysWrittenAsFound(t *testing.T) {
	resetData(t)
	for i := range 5000 {
		run("set", "key:"+strconv.Itoa(i), "v")
	}
	st := newRESPState(nil)
	c := newConn(-1)
	c.framing = st
	do := func(args ...string) string {
		req := resp.AppendRequest(nil, args...)
		st.buf, st.start = append(st.buf[:0], req...), 0
		if !st.oneRequest(c) {
			t.Fatal("request not handled")
		}
		out := string(c.wbuf)
		c.wbuf = c.wbuf[:0]
		return out
	}
	if got := do("KEYS", "*"); !strings.HasPrefix(got, "*5000\r\n$") || strings.Count(got, "$") != 5000 {
		t.Fatalf("KEYS * = %.40q... with %d strings, want 5000", got, strings.Count(got, "$"))
	}
	if got := do("KEYS", "key:4999"); got != "*1\r\n$8\r\nkey:4999\r\n" {
		t.Errorf("KEYS key:4999 = %q", got)
	}
	if got := do("KEYS", "nomatch*"); got != "*0\r\n" {
		t.Errorf("KEYS nomatch* = %q", got)
	}
	all := testing.AllocsPerRun(20, func() { do("KEYS", "*") })
	none := testing.AllocsPerRun(20, func() { do("KEYS", "nomatch*") })
	if all > none+1 {
		t.Errorf("KEYS * over 5,000 keys: %v allocations, %v for none matched: the matches were listed first", all, none)
	}

	// 400 keys the pattern matches in some 8,000 steps each, and one it
	// takes 10^8 to fail on: whichever the walk meets first, the reply is
	// the error alone, none of the matches written before it.
	resetData(t)
	a := strings.Repeat("a", 8<<10)
	for i := range 400 {
		run("set", strconv.Itoa(i)+a+"b", "v")
	}
	run("set", a+a, "v")
	if got := do("KEYS", "*"+a+"b"); got != "-"+errMatchTooCostly+"\r\n" {
		t.Errorf("KEYS of a pattern too costly for one key = %.80q, want %q", got, errMatchTooCostly)
	}
}
