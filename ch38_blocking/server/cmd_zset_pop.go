package server

import (
	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/zset"
)

// The pops: ZPOPMIN and ZPOPMAX take members from one end of a sorted
// set, ZMPOP from the first of several keys that has any. Each end is a
// seek down the tree (the least member, or the one past the greatest,
// less one), and each pop is a removal from both indexes, O(log n).

// zEnd returns the member at the end max chooses: the greatest, or the
// least.
func zEnd(z *zset.ZSet, max bool) *zset.ZNode {
	if max {
		return z.Last()
	}
	return z.First()
}

// zStep returns the member after node, walking from the end max chooses.
func zStep(z *zset.ZSet, node *zset.ZNode, max bool) *zset.ZNode {
	if max {
		return z.Prev(node)
	}
	return z.Next(node)
}

// zPopFits reports whether the reply of popping count members from the
// end max chooses fits in what the budget has left: the members are
// walked first, without taking them, so that a pop the reply cannot hold
// is refused with nothing taken (an error reply means nothing changed).
func zPopFits(w *respWriter, z *zset.ZSet, max bool, count int64) bool {
	need := 0
	n := int64(0)
	for node := zEnd(z, max); node != nil && n < count; node = zStep(z, node, max) {
		need += len(node.Name()) + 3*respHeaderMax + 24 // the pair, the name and the score
		n++
		workDone += kVisitWork
		if need > w.left() {
			return false
		}
	}
	return true
}

// zPop takes up to count members from the end max chooses of the sorted
// set in ent and writes each, flat ([member, score, ...]) or as pairs
// (nested), in the array the caller opened (beginArr at at). It deletes
// the key once its last member goes, and returns how many it took.
func zPop(w *respWriter, ent *entry, max bool, count int64, nested bool) int {
	z := ent.obj.zset
	n := 0
	for ; int64(n) < count; n++ {
		node := zEnd(z, max)
		if node == nil {
			break
		}
		chargeMembers(1) // found at the end, then taken from both indexes
		z.Pop(node.Name())
		if nested {
			w.outArr(2)
		}
		w.outStr(node.Name())
		w.outDbl(node.Score())
	}
	if n > 0 {
		touchKey(ent.key())
	}
	if z.Len() == 0 {
		removeEntry(ent)
		entryDel(ent)
	}
	return n
}

// respZPopOf: ZPOPMIN and ZPOPMAX key [count]. Without a count, one member
// as [member, score]; with one, up to count members: pairs in RESP3, a
// flat array in RESP2. No key, or a count of 0, is an empty array.
func respZPopOf(max bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		if len(args) > 3 {
			w.err(errSyntax)
			return
		}
		count := int64(1)
		if len(args) == 3 {
			var ok bool
			if count, ok = respInt(args[2]); !ok || count < 0 {
				w.err(errNotPositive)
				return
			}
		}
		ent := zsetForCount(w, args[1], count)
		if ent == nil {
			return
		}
		if !zPopFits(w, ent.obj.zset, max, count) {
			w.err(errReplyMemory)
			return
		}
		nested := len(args) == 3 && w.ver == resp.RESP3
		at := w.beginArr()
		n := zPop(w, ent, max, count, nested)
		if !nested {
			n *= 2
		}
		w.endArr(at, n)
	}
}

// zsetForCount is zsetFor for a command that takes up to count members,
// as ZPOPMIN does: once the key's type is checked, a count of 0 is
// answered as a missing key is, with an empty array.
func zsetForCount(w replyWriter, key []byte, count int64) *entry {
	ent, ok := zsetOf(w, key)
	if ok && (ent == nil || count == 0) {
		w.outArr(0)
		return nil
	}
	return ent
}

// errNotPositive is Redis's error for a count that must not be negative.
const errNotPositive = "ERR value is out of range, must be positive"

// respZMPop: ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] pops up to
// count members (1 by default) from the first of the keys that holds a
// sorted set, and replies [key, [[member, score], ...]]; a null array if
// every key is empty. The keys are looked at in order up to that one: a
// key of another type before it is WRONGTYPE, as in Redis.
func respZMPop(st *respState, w *respWriter, args [][]byte) {
	if keys, _, _, ok := mpopArgs(w, args, false); ok {
		blockOn(st, w, args, keys, -1, true, zsetMPop, w.outNilArray)
	}
}

// costZPop: ZPOPMIN and ZPOPMAX walk their count's members to weigh the
// reply, then find and take each (at most the set).
func costZPop(p *execPlan, args [][]byte) int {
	n := int64(p.itemLen(args[1]))
	if len(args) == 3 {
		if count, ok := respInt(args[2]); ok && count >= 0 {
			n = min(n, count)
		}
	} else {
		n = min(n, 1)
	}
	return int(n)*(kVisitWork+kMemberWork) + len(args)
}

// costZMPop: ZMPOP pops from one of its keys, at most the largest.
func costZMPop(p *execPlan, args [][]byte) int {
	most := 0
	for _, key := range args[2:] {
		most = max(most, p.itemLen(key))
	}
	return most*(kVisitWork+kMemberWork) + len(args)
}
