package server

import "testing"

// TestRespArgs: RESP integers and floats are read as Redis reads them
// (string2ll, and strtod with getDoubleFromObject's checks), not with the
// book's strtoll and strtod leniencies; a ZRANGE BYSCORE bound is read with
// plain strtod, as Redis's zslParseRange does.
func TestRespArgs(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808} {
		if got, ok := respInt([]byte(in)); !ok || got != want {
			t.Errorf("respInt(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-", "-0", "+5", "005", " 1", "1 ", "1.0", "0x10", "9223372036854775808", "-9223372036854775809", "99999999999999999999"} {
		if got, ok := respInt([]byte(in)); ok {
			t.Errorf("respInt(%q) = %d, ok; want not an integer", in, got)
		}
	}
	for in, ok := range map[string]bool{"1.5": true, "-inf": true, "+inf": true, "Infinity": true, "0x10": true, "0x1p4": true, "1e-310": true, "0e999": true, "-0": true,
		" 1": false, "1 ": false, "": false, "1e400": false, "1e-400": false, "nan": false, "1_0": false, "(1": false} {
		if _, got := respFloat([]byte(in)); got != ok {
			t.Errorf("respFloat(%q) ok = %v, want %v", in, got, ok)
		}
	}
	for in, ok := range map[string]bool{"(": true, "": true, "1e400": true, "(1e400": true, " 1": true, "-inf": true, "(5": true, "nan": false, "1x": false, "((1": false} {
		if _, _, got := respBound([]byte(in)); got != ok {
			t.Errorf("respBound(%q) ok = %v, want %v", in, got, ok)
		}
	}
}
