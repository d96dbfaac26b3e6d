package server

import (
	"math/big"
	"strings"
)

// Redis's INCRBYFLOAT and HINCRBYFLOAT do their sums in C's long double:
// on x86-64, an 80-bit float with a 64-bit mantissa and an exponent range
// far wider than a float64's (to about 1.19e4932). The sum is written
// with 17 decimals, trailing zeros dropped ("%.17Lf"), so that 0.1 + 0.2
// reads 0.3, where float64 would give 0.30000000000000004. A float64
// cannot reproduce those replies; a big.Float of 64 bits of precision,
// rounding to nearest even as the hardware does, can (for every normal
// number; below about 3.4e-4932, where long doubles lose precision,
// the two may differ in the last digits).

// kLongDoublePrec is a long double's mantissa, in bits.
const kLongDoublePrec = 64

// kLongDoubleMaxExp bounds a long double's exponent as big.Float counts
// it (a mantissa in [0.5, 1)): the largest long double is just under
// 2^16384, the least positive one 2^-16445.
const (
	kLongDoubleMaxExp = 16384
	kLongDoubleMinExp = -16444
)

// kLongDoubleMaxChars bounds a number's text, as Redis bounds it
// (MAX_LONG_DOUBLE_CHARS): a longer argument or value is not a float.
const kLongDoubleMaxChars = 5 * 1024

// longDouble is a long double's value: a big.Float of its precision, or
// an infinity.
type longDouble = *big.Float

// parseLongDouble reads s as Redis reads a long double (string2ld over C's
// strtold): the whole of s, no leading space, a decimal or hexadecimal
// number with an optional sign and exponent, or an infinity ("inf",
// "infinity", any case). It refuses NaN, a number too large for a long
// double, and one so small it would round to zero. An empty s or one of
// kLongDoubleMaxChars bytes or more is refused too.
func parseLongDouble(s string) (longDouble, bool) {
	if len(s) == 0 || len(s) >= kLongDoubleMaxChars || !floatSyntax(s) {
		return nil, false
	}
	body := strings.TrimLeft(s, "+-")
	neg := s[0] == '-'
	if l := strings.ToLower(body); l == "inf" || l == "infinity" {
		return new(big.Float).SetInf(neg), true
	}
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		// big.Float wants a binary exponent after a hexadecimal
		// mantissa, which strtold lets go.
		if !strings.ContainsAny(body, "pP") {
			s += "p0"
		}
	}
	f, _, err := new(big.Float).SetPrec(kLongDoublePrec).SetMode(big.ToNearestEven).Parse(s, 0)
	if err != nil || f.IsInf() { // an exponent too large even for big.Float
		return nil, false
	}
	if f.Sign() == 0 {
		// A zero written as one is a zero; a tiny number that would
		// round to zero is refused, as strtold's ERANGE is.
		return f, !nonZeroDigit(body)
	}
	if exp := f.MantExp(nil); exp > kLongDoubleMaxExp || exp < kLongDoubleMinExp {
		return nil, false
	}
	return f, true
}

// nonZeroDigit reports whether the mantissa of a number's text has a digit
// other than 0.
func nonZeroDigit(body string) bool {
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		body = body[2:]
		if i := strings.IndexAny(body, "pP"); i >= 0 {
			body = body[:i]
		}
	} else if i := strings.IndexAny(body, "eE"); i >= 0 {
		body = body[:i]
	}
	return strings.Trim(body, "0.") != ""
}

// floatSyntax reports whether s is, whole, what strtold reads: [+-], then
// "inf" or "infinity" (any case), or decimal digits with at most one
// point and an optional exponent e[+-]digits, or 0x and hexadecimal digits
// with at most one point and an optional exponent p[+-]digits; at least
// one digit in the mantissa. (strtold's NaN spellings are left out: Redis
// refuses a NaN anyway.)
func floatSyntax(s string) bool {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if l := strings.ToLower(s); l == "inf" || l == "infinity" {
		return true
	}
	hex := len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if hex {
		s = s[2:]
		isDigit = func(c byte) bool {
			return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		}
	}
	digits, point, i := 0, false, 0
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			digits++
		case c == '.' && !point:
			point = true
		default:
			goto mantissaDone
		}
	}
mantissaDone:
	if digits == 0 {
		return false
	}
	if i == len(s) {
		return true
	}
	if e := s[i]; hex && e != 'p' && e != 'P' || !hex && e != 'e' && e != 'E' {
		return false
	}
	s = s[i+1:]
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// addLongDouble returns a + b rounded to a long double, and false if the
// sum is an infinity (or overflows to one), as Redis refuses it.
func addLongDouble(a, b longDouble) (longDouble, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	sum := new(big.Float).SetPrec(kLongDoublePrec).SetMode(big.ToNearestEven).Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > kLongDoubleMaxExp {
		return nil, false
	}
	return sum, true
}

// formatLongDouble writes f as Redis writes a long double it computed
// (ld2string's human form): 17 digits after the point, then the trailing
// zeros and a bare point dropped; "-0" is written 0.
func formatLongDouble(f longDouble) string {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// longDoubleWork is the work of reading or writing a number of n bytes
// (parseLongDouble, formatLongDouble): converting between decimal and
// binary takes time that grows with about the square of the digits, some
// 250 us for the 5,119 digits a number may have, 46 us for 2,000, 1.5 us
// for ten; so n*n/8192 units (of 50 to 100 ns, work.go), one for a short
// number.
func longDoubleWork(n int) int { return 1 + n*n/8192 }
