package server

import (
	"math"

	"example.com/byor/ch29_keys/resp"
	"example.com/byor/ch29_keys/zset"
)

// The sorted set commands: ZADD, ZREM, ZSCORE, ZCARD and ZRANGE, with
// Redis's semantics. A sorted set whose last member goes is deleted.

// respZAdd: ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score
// member ...]. Every score is checked before anything changes; replies how
// many members are new (with CH, also how many changed score), or with
// INCR the member's new score (null if a condition stopped it).
func respZAdd(st *respState, w *respWriter, args [][]byte) {
	var nx, xx, gt, lt, ch, incr bool
	i := 2
	for ; i < len(args); i++ {
		switch opt := args[i]; {
		case cmdIs(opt, "ch"):
			ch = true
		case cmdIs(opt, "incr"):
			incr = true
		case !condFlag(opt, &nx, &xx, &gt, &lt):
			goto pairs // the first score
		}
	}
pairs:
	pairs := args[i:]
	switch {
	case len(pairs) == 0 || len(pairs)%2 != 0:
		w.err(errSyntax)
		return
	case nx && xx:
		w.err("ERR XX and NX options at the same time are not compatible")
		return
	case gt && nx || lt && nx || gt && lt:
		w.err("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	case incr && len(pairs) > 2:
		w.err("ERR INCR option supports a single increment-element pair")
		return
	}
	scores := make([]float64, len(pairs)/2)
	for j := range scores {
		var ok bool
		if scores[j], ok = respFloat(pairs[2*j]); !ok {
			w.err(errNotFloat)
			return
		}
	}
	ent, ok := zsetOf(w, args[1])
	if !ok {
		return
	}
	if ent == nil && xx {
		respZAddReply(w, incr, ch, 0, 0, 0, false)
		return
	}
	if ent == nil {
		ent = newEntry(args[1], nil)
		ent.obj = &object{zset: &zset.ZSet{}}
		insertEntry(ent)
	}
	z := ent.obj.zset
	added, updated, score, done := 0, 0, 0.0, false
	for j := range scores {
		chargeMembers(1)
		score = scores[j]
		name := string(pairs[2*j+1])
		node := z.Lookup(name)
		if node == nil {
			if !xx {
				z.Add(name, score+0) // stored as Redis stores a small set's: -0 as 0
				added++
				done = true
			}
			continue
		}
		if nx {
			continue
		}
		cur := node.Score()
		if incr {
			score += cur
			if math.IsNaN(score) {
				w.err("ERR resulting score is not a number (NaN)")
				return // only one pair with INCR: nothing changed
			}
		}
		if gt && score <= cur || lt && score >= cur {
			continue
		}
		done = true
		if score != cur {
			z.Add(name, score+0)
			updated++
		}
	}
	if added+updated > 0 {
		touchKey(args[1])
	}
	respZAddReply(w, incr, ch, added, updated, score, done)
}

// respZAddReply writes ZADD's reply.
func respZAddReply(w *respWriter, incr, ch bool, added, updated int, score float64, done bool) {
	switch {
	case incr && done:
		w.outDbl(score)
	case incr:
		w.outNil()
	case ch:
		w.outInt(int64(added + updated))
	default:
		w.outInt(int64(added))
	}
}

// respZRem: ZREM key member... replies how many members were removed, and
// deletes the key once its last member goes.
func respZRem(st *respState, w *respWriter, args [][]byte) {
	ent, ok := zsetOf(w, args[1])
	if !ok {
		return
	}
	removed := int64(0)
	for _, m := range args[2:] {
		chargeMembers(1)
		if ent != nil && ent.obj.zset.Pop(string(m)) != nil {
			removed++
		}
	}
	if removed > 0 {
		touchKey(args[1])
	}
	if ent != nil && ent.obj.zset.Len() == 0 {
		removeEntry(ent)
		entryDel(ent)
	}
	w.outInt(removed)
}

// respZScore: ZSCORE key member is the book's zscore, answered in RESP.
func respZScore(st *respState, w *respWriter, args [][]byte) { doZScore(args, w) }

// respZCard: ZCARD key.
func respZCard(st *respState, w *respWriter, args [][]byte) {
	if ent := zsetFor(w, args[1], replyZero); ent != nil {
		w.outInt(int64(ent.obj.zset.Len()))
	}
}

// respZRange: ZRANGE key start stop [BYSCORE] [LIMIT offset count]
// [WITHSCORES]. By rank, or with BYSCORE by score: seek to the first
// member at or above min, step offset places and take up to count members
// (all with a negative count), which is the book's zquery. REV and BYLEX
// are not supported.
func respZRange(st *respState, w *respWriter, args [][]byte) {
	var byScore, withScores bool
	offset, count := int64(0), int64(-1)
	for i := 4; i < len(args); i++ {
		switch opt := args[i]; {
		case cmdIs(opt, "byscore"):
			byScore = true
		case cmdIs(opt, "withscores"):
			withScores = true
		case cmdIs(opt, "limit") && i+2 < len(args):
			var ok1, ok2 bool
			offset, ok1 = respInt(args[i+1])
			count, ok2 = respInt(args[i+2])
			if !ok1 || !ok2 {
				w.err(errNotInt)
				return
			}
			i += 2
		default:
			w.err(errSyntax)
			return
		}
	}
	// As in Redis, a LIMIT of count -1 is no limit, and allowed by rank.
	if count != -1 && !byScore {
		w.err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	// The members are written as they are found, and the array's length
	// put before them at the end; a reply that grows past what the budget
	// can hold stops the walk (see respWriter).
	pairs := withScores && w.ver == resp.RESP3 // [member, score] pairs
	n := int64(0)
	emit := func(node *zset.ZNode) bool {
		if pairs {
			w.outArr(2)
		}
		w.outStr(node.Name())
		if withScores {
			w.outDbl(node.Score())
		}
		n++
		workDone += kVisitWork
		return !w.over
	}
	at := w.beginArr()
	if byScore {
		lo, loEx, ok1 := respBound(args[2])
		hi, hiEx, ok2 := respBound(args[3])
		if !ok1 || !ok2 {
			w.err("ERR min or max is not a float")
			return
		}
		ent, ok := zsetOf(w, args[1])
		if !ok {
			return
		}
		if ent == nil || offset < 0 {
			w.outArr(0)
			return
		}
		z := ent.obj.zset
		node := zFirstIn(z, lo, loEx)
		if node != nil && offset > 0 {
			node = z.Offset(node, offset)
		}
		for node != nil && (node.Score() < hi || !hiEx && node.Score() == hi) && n != count && emit(node) {
			node = z.Offset(node, +1)
		}
	} else {
		start, ok1 := respInt(args[2])
		stop, ok2 := respInt(args[3])
		if !ok1 || !ok2 {
			w.err(errNotInt)
			return
		}
		ent, ok := zsetOf(w, args[1])
		if !ok {
			return
		}
		if ent == nil {
			w.outArr(0)
			return
		}
		z := ent.obj.zset
		n := int64(z.Len())
		if start < 0 {
			start = max(n+start, 0)
		}
		if stop < 0 {
			stop = n + stop
		}
		stop = min(stop, n-1)
		if start <= stop {
			node := z.Offset(z.SeekGE(math.Inf(-1), ""), start)
			for ; node != nil && start <= stop && emit(node); start++ {
				node = z.Offset(node, +1)
			}
		}
	}
	if withScores && !pairs {
		n *= 2
	}
	w.endArr(at, int(n))
}

// zFirstIn returns the first member scoring at least lo (above lo, if
// exclusive), or nil if there is none.
func zFirstIn(z *zset.ZSet, lo float64, exclusive bool) *zset.ZNode {
	if exclusive && lo == math.Inf(+1) {
		return nil
	}
	if exclusive {
		lo = math.Nextafter(lo, math.Inf(+1))
	}
	return z.SeekGE(lo, "")
}
