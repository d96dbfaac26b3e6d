// Arguments as Redis reads them: integers, floats and the bounds of a
// range.

package server

import (
	"math"
	"strings"

	"example.com/byor/ch38_blocking/cnum"
)

// respInt parses an integer argument as Redis does (string2ll): an
// optional minus sign and decimal digits, nothing else, no leading zero
// (but "0" itself), no "-0", and within int64. So " 1", "+5", "005", "-0"
// and "" are not integers, where the book's strtoll takes them all.
func respInt(b []byte) (int64, bool) {
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true // -v wraps to the right int64, MinInt64 too
	case !neg && v <= math.MaxInt64:
		return int64(v), true
	}
	return 0, false
}

// respFloat parses a float argument as Redis does (getDoubleFromObject):
// C's strtod must take the whole argument, with no white space first, and
// the result must not be NaN, nor overflow to an infinity or underflow to
// zero. So "0x10" (16), "inf" and "1e-310" are numbers, and " 1", "1e400"
// and "1e-400" are not.
func respFloat(b []byte) (float64, bool) {
	s := string(b)
	f, n := cnum.Strtod(s)
	if len(s) == 0 || n != len(s) || isSpaceC(s[0]) || math.IsNaN(f) {
		return 0, false
	}
	if math.IsInf(f, 0) && asciiLower(s[len(s)-1]) != 'f' && asciiLower(s[len(s)-1]) != 'y' {
		return 0, false // overflow, not "inf" or "infinity": strtod's ERANGE
	}
	if f == 0 && !zeroMantissa(s) {
		return 0, false // underflow to zero: strtod's ERANGE
	}
	return f, true
}

// isSpaceC is C's isspace in the C locale.
func isSpaceC(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// zeroMantissa reports whether the number strtod read from s is written
// as zero (every digit before any exponent is 0), so a result of zero is
// exact and not an underflow.
func zeroMantissa(s string) bool {
	s = strings.TrimLeft(s, "+-")
	hex := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	if hex {
		s = s[2:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !hex && (c == 'e' || c == 'E'), hex && (c == 'p' || c == 'P'):
			return true
		case c == '.' || c == '0':
		default:
			return false
		}
	}
	return true
}

// respBound parses a ZRANGE BYSCORE bound as Redis does (zslParseRange):
// "(" first makes it exclusive, and the rest goes to strtod, which must
// use all of it (up to a NUL) and not give NaN. Unlike a score, white
// space first, an infinity by overflow and even nothing at all (0) pass.
func respBound(b []byte) (f float64, exclusive bool, ok bool) {
	s := string(b)
	if exclusive = strings.HasPrefix(s, "("); exclusive {
		s = s[1:]
	}
	f, n := cnum.Strtod(s)
	return f, exclusive, (n == len(s) || s[n] == 0) && !math.IsNaN(f)
}
