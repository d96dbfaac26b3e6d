package server

import (
	"math"

	"example.com/byor/ch38_blocking/zset"
)

// The sorted set commands: ZADD, ZREM, ZSCORE, ZCARD, ZRANK, ZREVRANK
// and ZINCRBY, with Redis's semantics; the ranges are in cmd_zset_range.go. A
// sorted set whose last member goes is deleted.

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

// respZMScore: ZMSCORE key member [member ...] replies each member's
// score, null for one the set does not have (every one, if there is no
// set).
func respZMScore(st *respState, w *respWriter, args [][]byte) {
	ent, ok := zsetOf(w, args[1])
	if !ok {
		return
	}
	w.outArr(len(args) - 2)
	for _, m := range args[2:] {
		chargeMembers(1)
		var node *zset.ZNode
		if ent != nil {
			node = ent.obj.zset.LookupBytes(m)
		}
		if node == nil {
			w.outNil()
		} else {
			w.outDbl(node.Score())
		}
	}
}

// respZCard: ZCARD key.
func respZCard(st *respState, w *respWriter, args [][]byte) {
	if ent := zsetFor(w, args[1], replyZero); ent != nil {
		w.outInt(int64(ent.obj.zset.Len()))
	}
}

// respZRank: ZRANK and ZREVRANK key member: the member's place counting
// from 0, from the lowest score or from the highest; null if there is no
// such member. Redis 7.0 has no WITHSCORE.
func respZRankOf(rev bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { respZRank(w, args, rev) }
}

func respZRank(w *respWriter, args [][]byte, rev bool) {
	ent := zsetFor(w, args[1], replyWriter.outNil)
	if ent == nil {
		return
	}
	chargeMembers(1)
	node := ent.obj.zset.LookupBytes(args[2])
	if node == nil {
		w.outNil()
		return
	}
	rank := ent.obj.zset.Rank(node)
	if rev {
		rank = int64(ent.obj.zset.Len()) - 1 - rank
	}
	w.outInt(rank)
}

// respZIncrBy: ZINCRBY key increment member adds to the member's score, or
// adds the member with that score, and replies the new score. As with ZADD
// INCR, a sum that is not a number (inf plus -inf) is refused.
func respZIncrBy(st *respState, w *respWriter, args [][]byte) {
	by, ok := respFloat(args[2])
	if !ok {
		w.err(errNotFloat)
		return
	}
	ent, ok := zsetOf(w, args[1])
	if !ok {
		return
	}
	chargeMembers(1) // looked up, then added or updated
	name := string(args[3])
	score, changed := by, true
	if ent != nil {
		if node := ent.obj.zset.Lookup(name); node != nil {
			score += node.Score()
			changed = score != node.Score()
		}
	}
	if math.IsNaN(score) {
		w.err("ERR resulting score is not a number (NaN)")
		return
	}
	if ent == nil {
		ent = newEntry(args[1], nil)
		ent.obj = &object{zset: &zset.ZSet{}}
		insertEntry(ent)
	}
	ent.obj.zset.Add(name, score+0) // -0 stored as 0, as in respZAdd
	if changed {
		touchKey(args[1]) // as Redis: not when the score stays the same
	}
	w.outDbl(score)
}
