// Package cnum reads numbers from text the way the C library's strtod and
// strtoll do in the C locale, so a server can accept exactly the numbers
// the book's C++ accepts.
//
// Each function returns the value and how many bytes of s it used. Like C's
// end pointer, the count is 0 when no number could be read at all, even if
// s starts with white space or a sign. A caller that wants the whole string
// to be a number checks that the count equals len(s); that is what the
// book's str2dbl and str2int do. The rules, all from the C standard:
//
//   - Leading white space is skipped: the bytes isspace accepts in the C
//     locale, which are space, \t, \n, \v, \f and \r. Nothing else (no
//     Unicode spaces), and white space after the number is not used.
//   - An optional + or - sign follows.
//   - Strtoll then reads decimal digits. A value out of the int64 range is
//     clamped to math.MaxInt64 or math.MinInt64 (C sets errno to ERANGE,
//     which the book does not check), and all its digits are used.
//   - Strtod reads a decimal number (digits with an optional point, at
//     least one digit, then an optional exponent e[sign]digits), a
//     hexadecimal one (0x or 0X, hex digits with an optional point, then an
//     optional binary exponent p[sign]digits), "inf" or "infinity", or
//     "nan" optionally followed by "(chars)", in any case. An exponent
//     without digits is not used ("1e" uses 1 byte), nor is an "x" without
//     hex digits after it ("0x" uses 1). A value too large becomes an
//     infinity, one too small rounds to a subnormal or zero (C sets ERANGE
//     for both). Rounding is to the nearest double, as glibc does.
//
// strconv differs on purpose: it wants the whole string, refuses white
// space, out-of-range values and hex floats without a p exponent, and takes
// Go's digit separators ("1_000").
package cnum

import (
	"math"
	"strconv"
)

// isSpace reports whether c is white space for C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r' // \t \n \v \f \r
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f'
}

// lower lowers an ASCII letter; |0x20 also changes some non-letters, but
// only letters are ever compared with its result.
func lower(c byte) byte { return c | 0x20 }

// hasPrefixFold reports whether s starts with the lower-case ASCII word w,
// in any case.
func hasPrefixFold(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if lower(s[i]) != w[i] {
			return false
		}
	}
	return true
}

// digits returns the index of the first byte at or after i that is not
// accepted by ok.
func digits(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// exponent returns where an exponent starting at s[i] ends: after
// mark[sign]digits, or i itself if there is no complete exponent there.
func exponent(s string, i int, mark byte) int {
	if i >= len(s) || lower(s[i]) != mark {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if k := digits(s, j, isDigit); k > j {
		return k
	}
	return i
}

// Strtod reads a double from the start of s as C's strtod does (see the
// package comment) and returns it with the number of bytes used, 0 if
// there is no number. A NaN comes back as NaN; refusing it is the caller's
// choice.
func Strtod(s string) (float64, int) {
	i := digits(s, 0, isSpace)
	start := i // where the text handed to strconv begins
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := 1
	if neg {
		sign = -1
	}
	switch {
	case hasPrefixFold(s[i:], "infinity"):
		return math.Inf(sign), i + len("infinity")
	case hasPrefixFold(s[i:], "inf"):
		return math.Inf(sign), i + len("inf")
	case hasPrefixFold(s[i:], "nan"):
		end := i + len("nan")
		// "nan(chars)" with letters, digits and _ between the brackets.
		if end < len(s) && s[end] == '(' {
			k := digits(s, end+1, func(c byte) bool {
				return isDigit(c) || 'a' <= lower(c) && lower(c) <= 'z' || c == '_'
			})
			if k < len(s) && s[k] == ')' {
				end = k + 1
			}
		}
		return math.NaN(), end
	}

	if i+1 < len(s) && s[i] == '0' && lower(s[i+1]) == 'x' {
		j := digits(s, i+2, isHexDigit)
		n := j - (i + 2)
		if j < len(s) && s[j] == '.' {
			k := digits(s, j+1, isHexDigit)
			n += k - (j + 1)
			j = k
		}
		if n == 0 {
			// No hex digits: only the 0 before the x is a number.
			return math.Copysign(0, float64(sign)), i + 1
		}
		end := exponent(s, j, 'p')
		text := s[start:end]
		if end == j {
			text += "p0" // strconv wants the exponent of a hex float
		}
		return parse(text), end
	}

	j := digits(s, i, isDigit)
	n := j - i
	if j < len(s) && s[j] == '.' {
		k := digits(s, j+1, isDigit)
		n += k - (j + 1)
		j = k
	}
	if n == 0 {
		return 0, 0
	}
	end := exponent(s, j, 'e')
	return parse(s[start:end]), end
}

// parse converts text Strtod has already checked. strconv rounds to
// nearest, as strtod does, and on overflow returns the infinity strtod
// returns, with an error that is ignored like C's ERANGE.
func parse(text string) float64 {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
		panic("cnum: strconv refused " + strconv.Quote(text)) // a bug in Strtod
	}
	return f
}

// Strtoll reads a decimal int64 from the start of s as C's
// strtoll(s, &end, 10) does (see the package comment) and returns it with
// the number of bytes used, 0 if there is no number. Out-of-range values
// are clamped.
func Strtoll(s string) (int64, int) {
	i := digits(s, 0, isSpace)
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	end := digits(s, i, isDigit)
	if end == i {
		return 0, 0
	}
	// Accumulate the magnitude as a negative number: its range reaches
	// math.MinInt64, which has no positive counterpart.
	var v int64
	clamped := false
	for _, c := range []byte(s[i:end]) {
		d := int64(c - '0')
		if v < (math.MinInt64+d)/10 {
			clamped = true
			break
		}
		v = v*10 - d
	}
	switch {
	case clamped && neg:
		return math.MinInt64, end
	case clamped:
		return math.MaxInt64, end
	case neg:
		return v, end
	case v == math.MinInt64:
		return math.MaxInt64, end
	}
	return -v, end
}
