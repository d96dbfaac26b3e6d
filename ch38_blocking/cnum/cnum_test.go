package cnum

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

var negZero = math.Copysign(0, -1)

// The expected values and byte counts below are glibc's: each row is what
// strtod(s, &end) or strtoll(s, &end, 10) returned for s, with end - s,
// printed by a small C program.

func TestStrtod(t *testing.T) {
	tests := []struct {
		s    string
		want float64
		n    int
	}{
		{"1", 0x1p+0, 1},
		{"-1", -0x1p+0, 2},
		{"+1.5", 0x1.8p+0, 4},
		{" 1", 0x1p+0, 2},
		{"\x092", 0x1p+1, 2},
		{"\x0a\x0b\x0c\x0d 3", 0x1.8p+1, 6},
		{"0x10", 0x1p+4, 4},
		{"0X1p4", 0x1p+4, 5},
		{"0x.8", 0x1p-1, 4},
		{"0x1.8p1", 0x1.8p+1, 7},
		{"-0x10", -0x1p+4, 5},
		{"0x", 0x0p+0, 1},
		{"0xg", 0x0p+0, 1},
		{"0x1p", 0x1p+0, 3},
		{"0x1p+", 0x1p+0, 3},
		{"0x1P-2", 0x1p-2, 6},
		{"", 0x0p+0, 0},
		{" ", 0x0p+0, 0},
		{"-", 0x0p+0, 0},
		{"+", 0x0p+0, 0},
		{".", 0x0p+0, 0},
		{".5", 0x1p-1, 2},
		{"5.", 0x1.4p+2, 2},
		{"1e", 0x1p+0, 1},
		{"1e+", 0x1p+0, 1},
		{"1e5", 0x1.86ap+16, 3},
		{"1E-2", 0x1.47ae147ae147bp-7, 4},
		{"1e400", math.Inf(1), 5},
		{"-1e400", math.Inf(-1), 6},
		{"1e-400", 0x0p+0, 6},
		{"4.9e-324", 0x0.0000000000001p-1022, 8},
		{"2.5e-324", 0x0.0000000000001p-1022, 8},
		{"1e-310", 0x0.012688b70e62bp-1022, 6},
		{"inf", math.Inf(1), 3},
		{"INF", math.Inf(1), 3},
		{"-Inf", math.Inf(-1), 4},
		{"infinity", math.Inf(1), 8},
		{"InFiNiTy", math.Inf(1), 8},
		{"infinit", math.Inf(1), 3},
		{"infx", math.Inf(1), 3},
		{"nan", math.NaN(), 3},
		{"NaN", math.NaN(), 3},
		{"-nan", math.NaN(), 4},
		{"nan()", math.NaN(), 5},
		{"nan(123abc_)", math.NaN(), 12},
		{"nan(", math.NaN(), 3},
		{"nan(1", math.NaN(), 3},
		{"1_0", 0x1p+0, 1},
		{"1.5x", 0x1.8p+0, 3},
		{"abc", 0x0p+0, 0},
		{"1 ", 0x1p+0, 1},
		{"0", 0x0p+0, 1},
		{"-0", negZero, 2},
		{"00012", 0x1.8p+3, 5},
		{"1e0001", 0x1.4p+3, 6},
		{"0x1p-1074", 0x0.0000000000001p-1022, 9},
		{"0x1p-1075", 0x0p+0, 9},
		{"0x1.00000000000008p0", 0x1p+0, 20},
		{"0x1.000000000000080000001p0", 0x1.0000000000001p+0, 27},
		{"0x1.fffffffffffff8p1023", math.Inf(1), 23},
		{"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792", math.Inf(1), 309},
		{"0.1", 0x1.999999999999ap-4, 3},
		{"3.14159265358979323846264338327950288", 0x1.921fb54442d18p+1, 37},
		{"0x1.fffffffffffffp+1023", 0x1.fffffffffffffp+1023, 23},
		{"1e308", 0x1.1ccf385ebc8ap+1023, 5},
		{"1.7976931348623159e308", math.Inf(1), 22},
		{"\xc2\xa01", 0x0p+0, 0},
		{"1\x002", 0x1p+0, 1},
		{"-0x", negZero, 2},
		{" 0x", 0x0p+0, 2},
		{"+inf", math.Inf(1), 4},
		{"  -infinity", math.Inf(-1), 11},
		{".e1", 0x0p+0, 0},
		{"0.e1", 0x0p+0, 4},
		{"1.5e+3x", 0x1.77p+10, 6},
		{"0x1.Fp-1x", 0x1.fp-1, 8},
		{"\x0b-0x1P+3", -0x1p+3, 8},
	}
	for _, tt := range tests {
		got, n := Strtod(tt.s)
		same := got == tt.want && math.Signbit(got) == math.Signbit(tt.want) ||
			math.IsNaN(got) && math.IsNaN(tt.want)
		if !same || n != tt.n {
			t.Errorf("Strtod(%q) = %v, %d; want %v, %d", tt.s, got, n, tt.want, tt.n)
		}
	}
}

func TestStrtoll(t *testing.T) {
	tests := []struct {
		s    string
		want int64
		n    int
	}{
		{"0", 0, 1},
		{"1", 1, 1},
		{"-1", -1, 2},
		{"+5", 5, 2},
		{" 5", 5, 2},
		{"\x09-5", -5, 3},
		{"\x0a\x0b\x0c\x0d7", 7, 5},
		{"", 0, 0},
		{"  ", 0, 0},
		{" ", 0, 0},
		{"-", 0, 0},
		{"+", 0, 0},
		{"+-1", 0, 0},
		{"5x", 5, 1},
		{"5 ", 5, 1},
		{"0x10", 0, 1},
		{"007", 7, 3},
		{"-0", 0, 2},
		{"9223372036854775807", math.MaxInt64, 19},
		{"9223372036854775808", math.MaxInt64, 19},
		{"99999999999999999999", math.MaxInt64, 20},
		{"-9223372036854775808", math.MinInt64, 20},
		{"-9223372036854775809", math.MinInt64, 20},
		{"-99999999999999999999", math.MinInt64, 21},
		{" +12", 12, 4},
		{"1e3", 1, 1},
		{"1.5", 1, 1},
		{"\xc2\xa01", 0, 0},
		{"1\x002", 1, 1},
	}
	for _, tt := range tests {
		got, n := Strtoll(tt.s)
		if got != tt.want || n != tt.n {
			t.Errorf("Strtoll(%q) = %d, %d; want %d, %d", tt.s, got, n, tt.want, tt.n)
		}
	}
}

// FuzzStrtod checks Strtod against strconv where the two must agree: a
// string ParseFloat reads whole without error (and without Go's digit
// separators) is a whole C number too, of the same value. It also checks
// that the count is in range and that the number read is a number on its
// own: Strtod of the prefix it used reads all of it, to the same value.
func FuzzStrtod(f *testing.F) {
	for _, s := range []string{"1", " -1.5e3", "0x1.8p1", "0x10", "inf", "nan(x)", "", "1e400", ".5", "1e", "0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := Strtod(s)
		if n < 0 || n > len(s) {
			t.Fatalf("Strtod(%q) used %d bytes", s, n)
		}
		same := func(a, b float64) bool {
			return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
		}
		if n > 0 {
			again, m := Strtod(s[:n])
			if m != n || !same(again, got) {
				t.Fatalf("Strtod(%q) = %v, %d but Strtod(%q) = %v, %d", s, got, n, s[:n], again, m)
			}
		}
		if want, err := strconv.ParseFloat(s, 64); err == nil && !strings.Contains(s, "_") {
			if n != len(s) || !same(got, want) {
				t.Fatalf("Strtod(%q) = %v, %d; ParseFloat reads %v", s, got, n, want)
			}
		}
	})
}

// FuzzStrtoll checks Strtoll against strconv.ParseInt in the same way, and
// that a count of 0 comes with the value 0.
func FuzzStrtoll(f *testing.F) {
	for _, s := range []string{"1", " -15", "+7", "", "99999999999999999999", "-", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := Strtoll(s)
		if n < 0 || n > len(s) || n == 0 && got != 0 {
			t.Fatalf("Strtoll(%q) = %d, %d", s, got, n)
		}
		if n > 0 {
			if again, m := Strtoll(s[:n]); m != n || again != got {
				t.Fatalf("Strtoll(%q) = %d, %d but Strtoll(%q) = %d, %d", s, got, n, s[:n], again, m)
			}
		}
		if want, err := strconv.ParseInt(s, 10, 64); err == nil && !strings.Contains(s, "_") {
			if n != len(s) || got != want {
				t.Fatalf("Strtoll(%q) = %d, %d; ParseInt reads %d", s, got, n, want)
			}
		}
	})
}
