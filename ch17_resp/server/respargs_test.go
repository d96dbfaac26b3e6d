package server

import "testing"

// TestRespArgs: RESP option names fold ASCII letters only, and RESP floats
// are read strictly, as Redis reads them, not with the book's strtod
// leniencies.
func TestRespArgs(t *testing.T) {
	for in, want := range map[string]string{"withscores": "WITHSCORES", "Ex": "EX", "per\u017fist": "PER\u017fIST"} {
		if got := upper([]byte(in)); got != want {
			t.Errorf("upper(%q) = %q, want %q", in, got, want)
		}
	}
	for in, ok := range map[string]bool{"1.5": true, "-inf": true, "0x1p4": true, " 1": false, "": false, "1e400": false, "nan": false, "1_0": false} {
		if _, got := respDbl(in); got != ok {
			t.Errorf("respDbl(%q) ok = %v, want %v", in, got, ok)
		}
	}
}
