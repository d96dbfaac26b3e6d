package server

import (
	"math/big"
	"strings"

	"example.com/byor/ch20_zsets/cnum"
)

// INCRBYFLOAT, with Redis's arithmetic and its way of printing the sum.
// Redis adds in C's long double, which on x86-64 is the 80-bit extended
// format: a 64-bit mantissa and an exponent up to 16383. It prints the
// sum with "%.17Lf", 17 digits after the point, then drops the trailing
// zeros (and the point, if nothing is left after it). Go has no such
// type, but a big.Float of 64 bits of precision, rounding to nearest even,
// rounds as the extended format does, and prints in fixed notation
// exactly, as glibc's printf does; the exponent's range is checked by hand.

// kLongDoublePrec is the mantissa's bits in x87's extended format.
const kLongDoublePrec = 64

// kLongDoubleMaxExp: a finite extended value is below 2^16384; big.Float's
// MantExp gives the exponent of a mantissa in [0.5, 1).
const kLongDoubleMaxExp = 16384

// kLongDoubleMinExp: below 2^-16445, the least subnormal, strtold's
// result is zero (refused as an underflow).
const kLongDoubleMinExp = -16445

// kMaxLongDoubleChars: Redis copies a number into a buffer of this size
// before strtold reads it; a longer text is not a number.
const kMaxLongDoubleChars = 5 * 1024

// parseLongDouble reads s as Redis reads a long double (string2ld): all
// of s must be a number as strtold reads one, with no white space first,
// not NaN, not out of the extended format's range. An infinity written
// as such ("inf") is a number.
func parseLongDouble(s string) (*big.Float, bool) {
	if len(s) == 0 || len(s) >= kMaxLongDoubleChars || isSpaceC(s[0]) {
		return nil, false
	}
	f, n := cnum.Strtod(s) // the grammar, which strtold shares
	if n != len(s) || f != f {
		return nil, false
	}
	body := strings.TrimLeft(s, "+-")
	if body[0] == 'i' || body[0] == 'I' {
		inf := new(big.Float).SetInf(s[0] == '-')
		return inf, true
	}
	base := 10
	if len(body) > 1 && (body[1] == 'x' || body[1] == 'X') {
		base = 0 // big reads the 0x prefix itself
		if !strings.ContainsAny(body, "pP") {
			s += "p0" // big wants a hex float's exponent
		}
	}
	// Read with room to spare, then round once to the extended format's
	// mantissa, as strtold rounds the exact value.
	wide, _, err := big.ParseFloat(s, base, 4*kLongDoublePrec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	x := new(big.Float).SetPrec(kLongDoublePrec).SetMode(big.ToNearestEven).Set(wide)
	if !inLongDoubleRange(x) || x.Sign() == 0 && !zeroMantissa(s) {
		return nil, false
	}
	if x.Sign() != 0 && x.MantExp(nil) < kLongDoubleMinExp {
		return nil, false
	}
	return x, true
}

// inLongDoubleRange reports whether x is finite in the extended format.
func inLongDoubleRange(x *big.Float) bool {
	return !x.IsInf() && (x.Sign() == 0 || x.MantExp(nil) <= kLongDoubleMaxExp)
}

// formatLongDouble prints x as Redis's INCRBYFLOAT does: "%.17Lf" less
// its trailing zeros, and "0" for a negative zero.
func formatLongDouble(x *big.Float) string {
	s := x.Text('f', 17)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// respIncrByFloat: INCRBYFLOAT key increment adds increment to the number
// at key (a missing key counts as 0) and answers the sum as it now stands
// there. The key keeps its TTL. A sum that is not finite is refused, and
// nothing changes.
func respIncrByFloat(st *respState, w *respWriter, args [][]byte) {
	ent, ok := respString(w, args[1])
	if !ok {
		return
	}
	cur := new(big.Float).SetPrec(kLongDoublePrec)
	if ent != nil {
		if cur, ok = parseLongDouble(ent.val()); !ok {
			w.err(errNotFloat)
			return
		}
	}
	by, ok := parseLongDouble(string(args[2]))
	if !ok {
		w.err(errNotFloat)
		return
	}
	if cur.IsInf() || by.IsInf() {
		w.err("ERR increment would produce NaN or Infinity")
		return
	}
	sum := new(big.Float).SetPrec(kLongDoublePrec).SetMode(big.ToNearestEven).Add(cur, by)
	if !inLongDoubleRange(sum) {
		w.err("ERR increment would produce NaN or Infinity")
		return
	}
	val := []byte(formatLongDouble(sum))
	chargeBytes(len(val))
	if ent == nil {
		insertEntry(newEntry(args[1], val))
	} else {
		ent.setVal(val)
	}
	w.outBulk(val)
}
