package server

import "strconv"

// The blocking pops of sorted sets, BZPOPMIN, BZPOPMAX and BZMPOP: each
// pops at once from the first of its keys that holds a sorted set, and
// otherwise waits for one (blocking.go). Each is logged as the pop it
// did: ZPOPMIN or ZPOPMAX, with a count for BZMPOP and ZMPOP.

// The names of the pops they log.
var (
	nameZPopMin = []byte("ZPOPMIN")
	nameZPopMax = []byte("ZPOPMAX")
)

// zpopName is the name of the pop at one end of a sorted set.
func zpopName(max bool) []byte {
	if max {
		return nameZPopMax
	}
	return nameZPopMin
}

// respBZPopOf: BZPOPMIN and BZPOPMAX key [key ...] timeout pop one member
// and answer [key, member, score].
func respBZPopOf(max bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		ms, ok := blockTimeout(w, args[len(args)-1])
		if ok {
			blockOn(st, w, args, args[1:len(args)-1], ms, true, func(w *respWriter, args [][]byte, key []byte) {
				zsetBPop(w, key, max)
			}, w.outNilArray)
		}
	}
}

// zsetBPop pops one member of the sorted set at key for BZPOPMIN or
// BZPOPMAX.
func zsetBPop(w *respWriter, key []byte, max bool) {
	ent := lookupEntry(key)
	if !zPopFits(w, ent.obj.zset, max, 1) {
		w.err(errReplyMemory)
		return
	}
	w.outArr(3)
	w.outBulk(key)
	zPop(w, ent, max, 1, false)
	blockLog(zpopName(max), key)
}

// respBZMPop: BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
// is ZMPOP that waits; the timeout is read after the rest, as Redis does.
func respBZMPop(st *respState, w *respWriter, args [][]byte) {
	keys, _, _, ok := mpopArgs(w, args[1:], false)
	if !ok {
		return
	}
	if ms, ok := blockTimeout(w, args[1]); ok {
		blockOn(st, w, args, keys, ms, true, func(w *respWriter, args [][]byte, key []byte) {
			zsetMPop(w, args[1:], key)
		}, w.outNilArray)
	}
}

// zsetMPop pops for ZMPOP's arguments args (args[0] not read) from key,
// and answers [key, [[member, score], ...]].
func zsetMPop(w *respWriter, args [][]byte, key []byte) {
	_, min, count, _ := mpopArgs(w, args, false)
	ent := lookupEntry(key)
	if !zPopFits(w, ent.obj.zset, !min, count) {
		w.err(errReplyMemory)
		return
	}
	w.outArr(2)
	w.outBulk(key)
	at := w.beginArr()
	n := zPop(w, ent, !min, count, true)
	w.endArr(at, n)
	blockLog(zpopName(!min), key, strconv.AppendInt(nil, int64(n), 10))
}

// costBZPop: BZPOPMIN and BZPOPMAX look up their keys and pop one member.
func costBZPop(p *execPlan, args [][]byte) int {
	return len(args)*(kVisitWork+kMemberWork) + len(args)
}

// costBZMPop: BZMPOP is ZMPOP after the timeout.
func costBZMPop(p *execPlan, args [][]byte) int { return costZMPop(p, args[1:]) }
