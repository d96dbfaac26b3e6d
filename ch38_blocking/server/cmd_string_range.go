package server

// The ranges of GETRANGE, BITCOUNT and BITPOS: a start and an end, both
// included, counted from 0 or, when negative, back from the end (-1 is
// the last). One parser and one clamping rule for the three, as Redis
// has them.

// strRange is a range as the request gave it.
type strRange struct {
	start, end int64
}

// parseRange reads a range's start and end, integers as Redis reads them
// (respInt), or answers the error.
func parseRange(w *respWriter, startArg, endArg []byte) (strRange, bool) {
	start, ok1 := respInt(startArg)
	end, ok2 := respInt(endArg)
	if !ok1 || !ok2 {
		w.err(errNotInt)
		return strRange{}, false
	}
	return strRange{start, end}, true
}

// within places the range in a string of n units (bytes or bits) and
// reports whether it is empty. Both ends negative with the start after
// the end is empty, whatever n is, as GETRANGE and BITCOUNT have it.
func (r strRange) within(n int64) (start, end int64, empty bool) {
	if r.start < 0 && r.end < 0 && r.start > r.end {
		return 0, 0, true
	}
	start, end = r.clamp(n)
	return start, end, start > end
}

// clamp counts negative ends from the end of n units, then keeps both
// within [0, n-1]: the start may then be past the end (an empty range).
// BITPOS clamps without within's first rule.
func (r strRange) clamp(n int64) (start, end int64) {
	start, end = r.start, r.end
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	return start, end
}
