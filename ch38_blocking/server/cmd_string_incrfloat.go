package server

import "math/big"

// INCRBYFLOAT, with Redis's arithmetic and its way of printing the sum:
// a long double's, as HINCRBYFLOAT's (floatfmt.go).

// respIncrByFloat: INCRBYFLOAT key increment adds increment to the number
// at key (a missing key counts as 0) and answers the sum as it now stands
// there. The key keeps its TTL. A sum that is not finite is refused, and
// nothing changes.
func respIncrByFloat(st *respState, w *respWriter, args [][]byte) {
	ent, ok := respString(w, args[1])
	if !ok {
		return
	}
	cur := longDouble(new(big.Float))
	if ent != nil {
		workDone += longDoubleWork(min(len(ent.val()), kLongDoubleMaxChars))
		if cur, ok = parseLongDouble(ent.val()); !ok {
			w.err(errNotFloat)
			return
		}
	}
	workDone += longDoubleWork(len(args[2]))
	by, ok := parseLongDouble(string(args[2]))
	if !ok {
		w.err(errNotFloat)
		return
	}
	sum, ok := addLongDouble(cur, by)
	if !ok {
		w.err("ERR increment would produce NaN or Infinity")
		return
	}
	val := []byte(formatLongDouble(sum))
	workDone += longDoubleWork(len(val))
	if ent == nil {
		insertEntry(newEntry(args[1], val))
	} else {
		ent.setVal(val)
	}
	w.outBulk(val)
}
