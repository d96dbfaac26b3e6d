package server

import (
	"math"
	"testing"
)

// TestStr2dbl checks the book's validation around strtod: the whole
// argument must be read, and NaN is refused. Package cnum tests strtod's
// own rules.
func TestStr2dbl(t *testing.T) {
	tests := []struct {
		s    string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true},
		{" \t1", 1, true},
		{"0x10", 16, true},
		{"", 0, true},
		{"1e400", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"1 ", 0, false},
		{" ", 0, false},
		{"1_0", 0, false},
		{"1\x00", 0, false},
		{"nan", 0, false},
		{"-NaN(1)", 0, false},
	}
	for _, tt := range tests {
		got, ok := str2dbl(tt.s)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("str2dbl(%q) = %v, %v; want %v, %v", tt.s, got, ok, tt.want, tt.ok)
		}
	}
}

// TestStr2int checks the book's validation around strtoll: the whole
// argument must be read; out-of-range values are clamped, not refused.
func TestStr2int(t *testing.T) {
	tests := []struct {
		s    string
		want int64
		ok   bool
	}{
		{"42", 42, true},
		{"-7", -7, true},
		{" +5", 5, true},
		{"\n\t-5", -5, true},
		{"", 0, true},
		{"99999999999999999999", math.MaxInt64, true},
		{"-99999999999999999999", math.MinInt64, true},
		{" ", 0, false},
		{"5 ", 0, false},
		{"0x10", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"-", 0, false},
		{"1\x00", 0, false},
	}
	for _, tt := range tests {
		got, ok := str2int(tt.s)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("str2int(%q) = %v, %v; want %v, %v", tt.s, got, ok, tt.want, tt.ok)
		}
	}
}
