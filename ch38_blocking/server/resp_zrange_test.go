package server

import (
	"fmt"
	"testing"
)

// TestRESPZRangeExclusiveMin: ZRANGE ... BYSCORE with an exclusive
// minimum starts past every member tied at that score, by seeking to the
// next float above it (one descent of the tree, however many members are
// tied there) rather than stepping over them; "(+inf" matches nothing and
// "(-inf" leaves out members scoring -inf.
func TestRESPZRangeExclusiveMin(t *testing.T) {
	resetData(t)
	for i := range 300 {
		respRun(t, "zadd", "ties", "5", fmt.Sprintf("t%03d", i))
	}
	respRun(t, "zadd", "ties", "4", "below", "6", "above", "-inf", "bottom", "+inf", "top")
	for _, c := range []struct{ min, max, want string }{
		{"(5", "+inf", "*2\r\n$5\r\nabove\r\n$3\r\ntop\r\n"},
		{"(5", "(+inf", "*1\r\n$5\r\nabove\r\n"},
		{"(+inf", "+inf", "*0\r\n"},
		{"(-inf", "4", "*1\r\n$5\r\nbelow\r\n"},
		{"-inf", "(5", "*2\r\n$6\r\nbottom\r\n$5\r\nbelow\r\n"},
		{"(4", "5", "*300\r\n"},
	} {
		got := respRun(t, "zrange", "ties", c.min, c.max, "byscore")
		if c.want == "*300\r\n" {
			got = got[:len(c.want)]
		}
		if got != c.want {
			t.Errorf("ZRANGE ties %s %s BYSCORE = %q, want %q", c.min, c.max, got, c.want)
		}
	}
}
