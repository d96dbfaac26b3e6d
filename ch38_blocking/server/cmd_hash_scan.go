package server

import (
	"math"
	"math/rand/v2"
	"strconv"

	"example.com/byor/ch38_blocking/glob"
	"example.com/byor/ch38_blocking/hashes"
	"example.com/byor/ch38_blocking/resp"
)

// HSCAN and HRANDFIELD, both made of the hash's dense order of fields
// (package hashes): HSCAN's cursor is a place in it, HRANDFIELD's pick a
// random place.

// kHashSmall is the most fields HSCAN answers in one call from cursor 0,
// as Redis answers a hash still in its compact encoding (at most
// hash-max-listpack-entries, 128, fields) whatever the COUNT.
const kHashSmall = 128

// errHScanMatchTooCostly refuses an HSCAN whose matching would pass
// kMatchMaxSteps, as errMatchTooCostly refuses a SCAN's.
var errHScanMatchTooCostly = "ERR the pattern would take more than " + strconv.Itoa(kMatchMaxSteps) + " steps to match against these fields: use a shorter pattern"

// respHScan: HSCAN key cursor [MATCH pattern] [COUNT count], with Redis
// 7.0's order of checks: the cursor (as SCAN reads one), the key and its
// type (a missing key answers the empty scan), then the options, in any order, the last of each kind counting.
// COUNT is how many places to look at (capped at kScanMaxCount, as
// SCAN's), not how many fields to return; MATCH's steps are bounded and
// counted as SCAN's. The walk also ends before a field the reply has no
// room for (unless it is the first), and once its work, places visited
// and matching, reaches ten times COUNT (or kHashSmall), as SCAN's does.
func respHScan(st *respState, w *respWriter, args [][]byte) {
	ent, cursor, count, pattern := keyScanStart(w, args, hashOf[[]byte])
	if ent == nil {
		return
	}
	usePattern := pattern != "*"
	now := getUnixMs()
	budget := min(10*max(count, kHashSmall), kScanMaxWork)
	steps, work, size := 0, 0, 0
	left := w.left() - 2*respHeaderMax
	pairs := gHScanPairs[:0]
	next, visited := ent.obj.hash.Scan(now, cursor, count, kHashSmall, func(name, value string) bool {
		add := 2*respHeaderMax + len(name) + len(value)
		if len(pairs) > 0 && (size+add > left || work+steps/kMatchStepsPerItem >= budget) {
			return false
		}
		work += kVisitWork
		if usePattern {
			if steps > kMatchMaxSteps {
				return true
			}
			ok, n, _ := glob.MatchLimit(pattern, name, kMatchMaxSteps-steps)
			steps += n
			if !ok {
				return true
			}
		}
		size += add
		pairs = append(pairs, hashes.Pair{Name: name, Value: value})
		return true
	})
	workDone += visited*kVisitWork + steps/kMatchStepsPerItem
	gHScanPairs = pairs
	defer clear(gHScanPairs)
	if steps > kMatchMaxSteps {
		w.err(errHScanMatchTooCostly)
		return
	}
	w.outArr(2)
	w.outStr(strconv.FormatUint(next, 10))
	w.outArr(2 * len(pairs))
	for _, p := range pairs {
		w.outStr(p.Name)
		w.outStr(p.Value)
	}
}

// gHScanPairs holds one HSCAN's fields between the walk and the reply;
// reused, and cleared after each so that it keeps no value alive.
var gHScanPairs []hashes.Pair

// errHRandRange is Redis's error for a count of HRANDFIELD past what it
// takes (a count of 64 bits, as C's long, without its least value).
var errHRandRange = "ERR value is out of range, value must between " + strconv.FormatInt(-math.MaxInt64, 10) + " and " + strconv.FormatInt(math.MaxInt64, 10)

// respHRandField: HRANDFIELD key [count [WITHVALUES]], with Redis 7.0's
// replies: without a count, one field or null; with a positive count,
// that many distinct fields (all of them if the hash has no more); with
// a negative one, that many picks, each of any field. WITHVALUES adds
// each field's value, as a [field, value] pair in RESP3. The count is
// checked first, then WITHVALUES (which halves the range of counts
// Redis takes), then the key.
//
// Bounded: a reply that cannot fit in what the budget has left, at its
// least bytes an item, is refused before anything is picked, and so is a
// count whose picks could do more work than a transaction may
// (respWorkRefusal: they run whole, and every other client waits for
// them); then each pick costs one random place (kVisitWork), and the
// reply's bytes are charged as every reply's are. Expired fields are
// reclaimed first (kMemberWork each), so that every place holds a live
// field; each is reclaimed once, work active expiry would do anyway (see
// hrandReclaim).
func respHRandField(st *respState, w *respWriter, args [][]byte) {
	if len(args) == 2 {
		respHRandOne(w, args[1])
		return
	}
	n, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	if n == math.MinInt64 {
		w.err(errHRandRange)
		return
	}
	withValues := false
	if len(args) > 3 {
		if len(args) > 4 || !cmdIs(args[3], "withvalues") {
			w.err(errSyntax)
			return
		}
		withValues = true
		if n < -math.MaxInt64/2 || n > math.MaxInt64/2 {
			w.err("ERR value is out of range")
			return
		}
	}
	ent, ok := hashOf(w, args[1])
	if !ok {
		return
	}
	if ent == nil || n == 0 {
		w.outArr(0)
		return
	}
	now := getUnixMs()
	h := ent.obj.hash
	distinct := n > 0
	count := n
	if !distinct {
		count = -n
	}
	// The refusals come before the expired fields are reclaimed, so that a
	// refused request changes nothing: they weigh the hash as it will be
	// once its live fields are all it holds (if more are expired than one
	// request may reclaim, hrandReclaim refuses it anyway).
	if live := h.Len(now); live > 0 {
		if distinct {
			count = min(count, int64(live))
		}
		// The least an item takes: "$0\r\n\r\n" for a field, as much for
		// its value, and "*2\r\n" around the two in RESP3.
		least := int64(6)
		if withValues {
			least = 12
			if w.ver == resp.RESP3 {
				least = 16
			}
		}
		if count > int64(w.left())/least {
			w.err(errReplyMemory)
			return
		}
		// The picks run whole, in one request: if what they and the
		// reclaim would do could pass what a transaction may, the request
		// is refused.
		reclaim := min(h.StoredLen()-live, kHRandReclaim)
		estimate := int64(reclaim*kMemberWork) + hrandWork(int64(live), count, distinct) + count*least/kWorkBytes
		if estimate > kMaxExecWork {
			w.err(respWorkRefusal(int(estimate)))
			return
		}
	}
	if !hrandReclaim(w, ent, now) {
		return
	}
	size := h.StoredLen()
	if size == 0 {
		hashDone(ent, now)
		w.outArr(0)
		return
	}
	emit := func(i int) bool {
		p, _ := h.At(now, i)
		workDone += kVisitWork
		if withValues && w.ver == resp.RESP3 {
			w.outArr(2)
		}
		w.outStr(p.Name)
		if withValues {
			w.outStr(p.Value)
		}
		return !w.over
	}
	items := int(count)
	if withValues && w.ver != resp.RESP3 {
		items *= 2
	}
	w.outArr(items)
	switch {
	case !distinct:
		for range count {
			if !emit(rand.IntN(size)) {
				break
			}
		}
	case int(count) == size:
		for i := range size {
			if !emit(i) {
				break
			}
		}
	default:
		hrandDistinct(size, int(count), emit)
	}
	hashDone(ent, now)
}

// hrandWork is the work respHRandField's picks of count places out of
// size do (a distinct count at most size), as they charge it: kVisitWork
// a field emitted; for distinct ones, a unit a place the one pass goes
// by, or kVisitWork a draw of Floyd's way. count is at most 2^63-1, and
// past 2^40 it is weighed as 2^40, far past any bound, so that the
// products cannot overflow.
func hrandWork(size, count int64, distinct bool) int64 {
	count = min(count, 1<<40)
	switch {
	case !distinct || count == size:
		return count * kVisitWork
	case 3*count > size:
		return size + count*kVisitWork
	}
	return 2 * count * kVisitWork
}

// hrandDistinct calls emit with count distinct places out of size, count
// < size, chosen uniformly. A count above a third of the size takes each
// place with the chance that leaves the right number to take (selection
// sampling: one pass, no memory); a smaller one draws places and keeps
// those not drawn before (Floyd's way: exactly count draws, a set of
// count places).
func hrandDistinct(size, count int, emit func(i int) bool) {
	if 3*count > size {
		need := count
		for i := 0; i < size && need > 0; i++ {
			workDone++
			if rand.IntN(size-i) < need {
				need--
				if !emit(i) {
					return
				}
			}
		}
		return
	}
	taken := make(map[int]struct{}, count)
	for j := size - count; j < size; j++ {
		i := rand.IntN(j + 1)
		if _, dup := taken[i]; dup {
			i = j
		}
		taken[i] = struct{}{}
		workDone += kVisitWork
		if !emit(i) {
			return
		}
	}
}

// respHRandOne: HRANDFIELD key, one random field, or null for no key.
func respHRandOne(w *respWriter, key []byte) {
	ent, ok := hashOf(w, key)
	if !ok {
		return
	}
	if ent == nil {
		w.outNil()
		return
	}
	now := getUnixMs()
	h := ent.obj.hash
	if !hrandReclaim(w, ent, now) {
		return
	}
	if h.StoredLen() == 0 {
		hashDone(ent, now)
		w.outNil()
		return
	}
	p, _ := h.At(now, rand.IntN(h.StoredLen()))
	hashDone(ent, now)
	w.outStr(p.Name)
}

// kHRandReclaim bounds the expired fields one HRANDFIELD reclaims: some
// 6 ms of work. A million fields expiring together took 400 ms to
// reclaim, all in the one request that found them, while active expiry
// spreads them over its passes (kMaxWorks a pass).
const kHRandReclaim = 1 << 14

// errHRandReclaim refuses an HRANDFIELD on a hash that still holds
// expired fields after kHRandReclaim of them were reclaimed: a pick could
// land on one. Active expiry reclaims the rest within some passes of the
// loop, and the command then succeeds.
var errHRandReclaim = "ERR HRANDFIELD is refused while the hash has more than " + strconv.Itoa(kHRandReclaim) +
	" expired fields to reclaim: they are being reclaimed, try again shortly"

// hrandReclaim reclaims the expired fields of the hash at ent for
// HRANDFIELD, up to kHRandReclaim, and reports whether none is left; if
// some are, it refuses the command.
func hrandReclaim(w *respWriter, ent *entry, now uint64) bool {
	h := ent.obj.hash
	chargeMembers(h.ExpireSome(now, kHRandReclaim))
	if at, ok := h.NextExpiry(); ok && at < now {
		hashDone(ent, now)
		w.err(errHRandReclaim)
		return false
	}
	return true
}
