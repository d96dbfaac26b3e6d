// Arguments as Redis reads them: integers.

package server

import (
	"math"
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
