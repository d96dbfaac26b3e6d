package server

import (
	"strings"
	"testing"
)

// TestLongDoubleSums: a value and an increment, and the reply Redis 7.0.15
// gives HINCRBYFLOAT for them on x86-64 (or, for "", the value refused as
// not a float, or the sum refused as an infinity).
func TestLongDoubleSums(t *testing.T) {
	for _, c := range []struct{ val, by, want string }{
		{"0.1", "0.2", "0.3"},
		{"1.5", "0.1", "1.6"},
		{"10.5", "-0.5", "10"},
		{"3.0e3", "0.0001", "3000.00009999999999999"},
		{"0x10", "0.5", "16.5"},
		{"5.", ".5", "5.5"},
		{"-0", "0", "0"},
		{"-1.5", "1.5", "0"},
		{"1.23456789012345678901", "0", "1.23456789012345679"},
		{"17179869184", "1.5", "17179869185.5"},
		{"0x1p-3", "0", "0.125"},
		{"1e-20", "1", "1"},
		{"+7", "-8", "-1"},
		{"123456789.123456789", "0.000000001", "123456789.12345678999554366"},
		{"1e18", "1", "1000000000000000001"},
		{"9223372036854775807", "1", "9223372036854775808"},
		{"1e-4940", "0", "0"},
		{"0.0000000000000000001", "0", "0"},
		{"0e0", "0", "0"},
		{"0x1.8p1", "0", "3"},
		{"1.0e+2", "0", "100"},
		{"00012.5000", "0", "12.5"},
		{"2.5e-3", "1e2", "100.0025"},
		{"0.3333333333333333333333", "0.6666666666666666666", "1"},
		{"1e400", "1", "10000000000000000000281880683947586514586453433629052038625910693539685534008629862039363994848324160522094053927317616200295822777259255734023828976593340661017797447434546173917862448116674971723778943824391593338047470675026246684401359237513603830343735485505244955964979021825038280091068414947402456898653040951017512658092615827588920183472511643316591362664138176309734806343732497430221946880"},
		{"1e-5000", "0", ""},
		{"0x", "0", ""},
		{"1e", "0", ""},
		{"1_0", "0", ""},
		{"nan", "0", ""},
		{" 1", "0", ""},
		{"1 ", "0", ""},
		{"", "0", ""},
		{"1e5000", "0", ""},
		{"1e999999999", "0", ""},
		{"1e99999999999999999999", "0", ""},
		{"1e-999999999", "0", ""},
		{"0.0e-99999999999999999", "0", "0"},
		{"1.18973149535723176509e4932", "0", ""},
		{"INF", "0", "inf"},
		{"-Infinity", "0", "inf"},
		{"1.1e4932", "1.1e4932", "inf"},
	} {
		v, ok := parseLongDouble(c.val)
		if !ok {
			if c.want != "" {
				t.Errorf("%q refused, want %q", c.val, c.want)
			}
			continue
		}
		if c.want == "" {
			t.Errorf("%q read as %v, want it refused", c.val, v)
			continue
		}
		by, _ := parseLongDouble(c.by)
		sum, ok := addLongDouble(v, by)
		switch {
		case !ok && c.want != "inf":
			t.Errorf("%s + %s: infinite, want %s", c.val, c.by, c.want)
		case ok && c.want == "inf":
			t.Errorf("%s + %s = %s, want an infinity", c.val, c.by, formatLongDouble(sum))
		case ok:
			if got := formatLongDouble(sum); got != c.want {
				t.Errorf("%s + %s = %s, want %s", c.val, c.by, got, c.want)
			}
		}
	}
	// The largest long double is written whole, 4933 digits, as Redis
	// writes it.
	if v, ok := parseLongDouble("1.18973149535723176502e4932"); !ok {
		t.Errorf("the largest long double refused")
	} else if got := formatLongDouble(v); len(got) != 4933 || !strings.HasPrefix(got, "118973149535723176502126385303097020516906") {
		t.Errorf("the largest long double written in %d digits, %.42s..., want 4933, 118973149535723176502126385303097020516906...", len(got), got)
	}
	if _, ok := parseLongDouble(strings.Repeat("1", kLongDoubleMaxChars)); ok {
		t.Errorf("a number of %d digits read, want it refused as Redis refuses it", kLongDoubleMaxChars)
	}
}
