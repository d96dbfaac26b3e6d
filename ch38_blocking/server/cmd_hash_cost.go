package server

import "math"

// The cost functions of the hash rows this chapter adds (see
// resp_cost.go): the work each may do besides its arguments and its
// reply's bytes, for EXEC's weighing.

// costHIncrByFloat: HINCRBYFLOAT finds and writes one field (as HINCRBY),
// reads its increment and the field's value, each at most a long
// double's longest text, and writes the sum (longDoubleWork).
func costHIncrByFloat(p *execPlan, args [][]byte) int {
	return costHashGrowBy(3, 1)(p, args) + longDoubleWork(len(args[3])) + 2*longDoubleWork(kLongDoubleMaxChars)
}

// costHRandField: HRANDFIELD reclaims the hash's expired fields, at most
// its volatile ones (those the commands before may have added too) and
// kHRandReclaim, then picks: |count| places with a negative count; with a
// positive one, a place each or, for more than a third of the hash, a
// pass over every place (at most three times the count); and it may drop
// the hash.
func costHRandField(p *execPlan, args [][]byte) int {
	n := p.itemLen(args[1])
	reclaim := min(n, p.items[string(args[1])])
	if ent := lookupEntry(args[1]); ent != nil && ent.typ() == tHash {
		reclaim = min(n, reclaim+ent.obj.hash.VolatileLen())
	}
	reclaim = min(reclaim, kHRandReclaim)
	picks := 1
	if len(args) > 2 {
		count, ok := respInt(args[2])
		switch {
		case !ok || count == math.MinInt64 || len(args) > 3 && (count < -math.MaxInt64/2 || count > math.MaxInt64/2):
			picks = 0 // refused before any work
		case count < 0:
			picks = int(min(-(count+1), int64(kMaxExecWork))) + 1 // no overflow for MinInt64
		default:
			picks = int(min(count, int64(n)))
		}
	}
	return reclaim*kMemberWork + picks*kVisitWork + 3*picks + p.dropBound(args[1])
}

// costHScan: HSCAN's walk visits at most kHashSmall or COUNT places
// (kScanMaxCount at most), and its matching is bounded as SCAN's.
func costHScan(p *execPlan, args [][]byte) int {
	return kScanMaxCount*kVisitWork + kMatchMaxSteps/kMatchStepsPerItem + 1
}
