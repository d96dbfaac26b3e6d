package server

import (
	"bytes"

	"example.com/byor/ch37_lists/quicklist"
)

// The list commands, with Redis 7.0's replies and errors. A list lives in
// a quicklist (package quicklist): nodes of packed elements, linked both
// ways, so that both ends are O(1) and an index is a walk over nodes,
// not elements. A list whose last element goes is deleted, as in Redis:
// no key holds an empty list.

// listOf finds the list at key: nil if there is no such key. A key of
// another type is answered here, WRONGTYPE, and reported false.
func listOf(w *respWriter, key []byte) (*entry, bool) {
	ent := lookupEntry(key)
	if ent != nil && ent.typ() != tList {
		w.err(errWrongType)
		return nil, false
	}
	return ent, true
}

// listCreate returns the list at key, which listOf found missing, new.
func listCreate(key []byte) *entry {
	ent := newEntry(key, nil)
	ent.obj = &object{list: &quicklist.List{}}
	insertEntry(ent)
	return ent
}

// listChanged notes a change to the list in ent: WATCH sees it, and a
// list left empty is deleted.
func listChanged(ent *entry) {
	touchKey(ent.key())
	if ent.obj.list.Len() == 0 {
		removeEntry(ent)
		entryDel(ent)
	}
}

// listPush pushes v at the head (left) or the tail of l, and charges it.
func listPush(l *quicklist.List, left bool, v []byte) {
	var moved int
	if left {
		moved = l.PushHead(v)
	} else {
		moved = l.PushTail(v)
	}
	workDone += kVisitWork
	chargeBytes(moved)
}

// respPushOf: LPUSH and RPUSH key element [element ...] push each element
// in turn at the head (left) or the tail, creating the list; with
// exists (LPUSHX, RPUSHX) only onto a list already there. Replies the
// list's length, 0 for LPUSHX's missing key.
func respPushOf(left, exists bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		ent, ok := listOf(w, args[1])
		switch {
		case !ok:
			return
		case ent == nil && exists:
			w.outInt(0)
			return
		case ent == nil:
			ent = listCreate(args[1])
		}
		for _, v := range args[2:] {
			listPush(ent.obj.list, left, v)
		}
		touchKey(args[1])
		w.outInt(int64(ent.obj.list.Len()))
	}
}

// listEnd returns the place of the element at the head or the tail.
func listEnd(l *quicklist.List, left bool) quicklist.Iter {
	if left {
		return l.First()
	}
	return l.Last()
}

// listStep moves it one element away from the end left chooses.
func listStep(it *quicklist.Iter, left bool) {
	if left {
		it.Next()
	} else {
		it.Prev()
	}
}

// listPopFits reports whether the reply of popping n elements from the
// end left chooses fits in what the budget has left: they are walked
// first, without taking them, so that a pop the reply cannot hold is
// refused with nothing taken (an error reply means nothing changed).
func listPopFits(w *respWriter, l *quicklist.List, left bool, n int) bool {
	need := 0
	for it := listEnd(l, left); it.Valid() && n > 0; listStep(&it, left) {
		need += len(it.Value()) + respHeaderMax
		n--
		workDone += kVisitWork
		if need > w.left() {
			return false
		}
	}
	return true
}

// listPop writes up to n elements from the end left chooses of the list
// in ent, in the order they come off it, takes them, and deletes the key
// if it is left empty. It returns how many it wrote.
func listPop(w *respWriter, ent *entry, left bool, n int) int {
	l := ent.obj.list
	n = min(n, l.Len())
	it := listEnd(l, left)
	for i := 0; i < n; i++ {
		w.outBulk(it.Value())
		listStep(&it, left)
		workDone += kVisitWork
	}
	if left {
		chargeBytes(l.DeleteHead(n))
	} else {
		chargeBytes(l.DeleteTail(n))
	}
	listChanged(ent)
	return n
}

// respPopOf: LPOP and RPOP key [count]. Without a count, the element at
// the head (left) or the tail, or null; with one, an array of up to count
// elements, a null array for a missing key, an empty one for a count of 0.
func respPopOf(left bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		if len(args) > 3 {
			w.err(errArity(w.cmd.name))
			return
		}
		count := int64(-1)
		if len(args) == 3 {
			var ok bool
			if count, ok = respInt(args[2]); !ok || count < 0 {
				w.err(errNotPositive)
				return
			}
		}
		ent, ok := listOf(w, args[1])
		switch {
		case !ok:
			return
		case ent == nil && count < 0:
			w.outNil()
			return
		case ent == nil:
			w.outNilArray()
			return
		case count == 0:
			w.outArr(0)
			return
		}
		n := int(min(count, int64(ent.obj.list.Len())))
		if count < 0 {
			n = 1
		}
		if !listPopFits(w, ent.obj.list, left, n) {
			w.err(errReplyMemory)
			return
		}
		if count >= 0 {
			w.outArr(n)
		}
		listPop(w, ent, left, n)
	}
}

// respLLen: LLEN key replies the list's length, 0 for no key.
func respLLen(st *respState, w *respWriter, args [][]byte) {
	if ent, ok := listOf(w, args[1]); ok && ent == nil {
		w.outInt(0)
	} else if ok {
		w.outInt(int64(ent.obj.list.Len()))
	}
}

// listSpan turns start and stop, indexes that count from the end when
// negative, into the first index and the number of elements from there
// on, within a list of n, as Redis's LRANGE and LTRIM read them: a start
// past the end, or after stop, is no element.
func listSpan(n int, start, stop int64) (int, int) {
	if start < 0 {
		start += int64(n)
	}
	if stop < 0 {
		stop += int64(n)
	}
	start = max(start, 0)
	if start > stop || start >= int64(n) {
		return 0, 0
	}
	stop = min(stop, int64(n)-1)
	return int(start), int(stop - start + 1)
}

// listIndexArgs reads LRANGE's and LTRIM's start and stop.
func listIndexArgs(w *respWriter, args [][]byte) (int64, int64, bool) {
	start, ok1 := respInt(args[2])
	stop, ok2 := respInt(args[3])
	if !ok1 || !ok2 {
		w.err(errNotInt)
	}
	return start, stop, ok1 && ok2
}

// respLRange: LRANGE key start stop replies the elements from start to
// stop, both included. The walk to start hops over whole nodes; each
// element after it is charged as it is written.
func respLRange(st *respState, w *respWriter, args [][]byte) {
	start, stop, ok := listIndexArgs(w, args)
	if !ok {
		return
	}
	ent, ok := listOf(w, args[1])
	if !ok {
		return
	}
	from, n := 0, 0
	if ent != nil {
		from, n = listSpan(ent.obj.list.Len(), start, stop)
	}
	if n == 0 {
		w.outArr(0)
		return
	}
	if n > w.left()/5 { // each element takes at least "$0\r\n\r\n"
		w.err(errReplyMemory)
		return
	}
	it, steps := ent.obj.list.Seek(from)
	workDone += steps
	w.outArr(n)
	for ; n > 0 && !w.over; n-- {
		w.outBulk(it.Value())
		it.Next()
		workDone += kVisitWork
	}
}

// respLTrim: LTRIM key start stop keeps only the elements from start to
// stop: whole nodes are dropped from either end, and the nodes at the
// edges cut once each.
func respLTrim(st *respState, w *respWriter, args [][]byte) {
	start, stop, ok := listIndexArgs(w, args)
	if !ok {
		return
	}
	ent, ok := listOf(w, args[1])
	if !ok {
		return
	}
	if ent != nil {
		l := ent.obj.list
		from, n := listSpan(l.Len(), start, stop)
		chargeBytes(l.DeleteTail(l.Len() - from - n))
		chargeBytes(l.DeleteHead(from))
		listChanged(ent)
	}
	w.simple("OK")
}

// listAt finds the element at index (negative counts from the end) of the
// list in ent, and charges the walk; false if there is none.
func listAt(ent *entry, index int64) (quicklist.Iter, bool) {
	l := ent.obj.list
	if index < 0 {
		index += int64(l.Len())
	}
	if index < 0 || index >= int64(l.Len()) {
		return quicklist.Iter{}, false
	}
	it, steps := l.Seek(int(index))
	workDone += steps
	return it, true
}

// respLIndex: LINDEX key index replies the element at index, or null.
func respLIndex(st *respState, w *respWriter, args [][]byte) {
	index, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	ent, ok := listOf(w, args[1])
	if !ok {
		return
	}
	if ent == nil {
		w.outNil()
	} else if it, ok := listAt(ent, index); ok {
		w.outBulk(it.Value())
	} else {
		w.outNil()
	}
}

// respLSet: LSET key index element sets the element at index.
func respLSet(st *respState, w *respWriter, args [][]byte) {
	index, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	ent, ok := listOf(w, args[1])
	switch {
	case !ok:
		return
	case ent == nil:
		w.err(errNoSuchKey)
		return
	}
	it, ok := listAt(ent, index)
	if !ok {
		w.err("ERR index out of range")
		return
	}
	chargeBytes(ent.obj.list.Replace(it, args[3]))
	touchKey(args[1])
	w.simple("OK")
}

// respLInsert: LINSERT key BEFORE|AFTER pivot element puts element next to
// the first element equal to pivot. Replies the new length, -1 if no
// element is pivot, 0 for no key.
func respLInsert(st *respState, w *respWriter, args [][]byte) {
	var after bool
	switch {
	case cmdIs(args[2], "after"):
		after = true
	case !cmdIs(args[2], "before"):
		w.err(errSyntax)
		return
	}
	ent, ok := listOf(w, args[1])
	switch {
	case !ok:
		return
	case ent == nil:
		w.outInt(0)
		return
	}
	l := ent.obj.list
	for it := l.First(); it.Valid(); it.Next() {
		workDone += kVisitWork
		if bytes.Equal(it.Value(), args[3]) {
			chargeBytes(l.Insert(it, args[4], after))
			touchKey(args[1])
			w.outInt(int64(l.Len()))
			return
		}
	}
	w.outInt(-1)
}

// respLRem: LREM key count element removes the first count elements equal
// to element, the last -count of them if count is negative, all of them
// if it is 0. Replies how many it removed.
func respLRem(st *respState, w *respWriter, args [][]byte) {
	count, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	ent, ok := listOf(w, args[1])
	switch {
	case !ok:
		return
	case ent == nil:
		w.outInt(0)
		return
	}
	fromTail := count < 0
	if fromTail {
		count = -count // -(-2^63) stays negative: as 0, all of them, below
	}
	removed, looked, moved := ent.obj.list.RemoveMatches(args[3], int(min(max(count, 0), int64(ent.obj.list.Len()))), fromTail)
	workDone += looked * kVisitWork
	chargeBytes(moved)
	if removed > 0 {
		listChanged(ent)
	}
	w.outInt(int64(removed))
}

// respLPos: LPOS key element [RANK rank] [COUNT num] [MAXLEN len] replies
// the index of the rank-th match (from the end for a negative rank), or
// with COUNT an array of up to num of them (0: all), looking at no more
// than MAXLEN elements (0: all).
func respLPos(st *respState, w *respWriter, args [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for i := 3; i < len(args); i += 2 {
		if i+1 >= len(args) {
			w.err(errSyntax)
			return
		}
		v, ok := respInt(args[i+1])
		switch {
		case cmdIs(args[i], "rank"):
			switch {
			case !ok:
				w.err(errNotInt)
				return
			case v == 0:
				w.err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = v
		case cmdIs(args[i], "count"):
			if !ok || v < 0 {
				w.err("ERR COUNT can't be negative")
				return
			}
			count = v
		case cmdIs(args[i], "maxlen"):
			if !ok || v < 0 {
				w.err("ERR MAXLEN can't be negative")
				return
			}
			maxlen = v
		default:
			w.err(errSyntax)
			return
		}
	}
	ent, ok := listOf(w, args[1])
	switch {
	case !ok:
		return
	case ent == nil && count >= 0:
		w.outArr(0)
		return
	case ent == nil:
		w.outNil()
		return
	}
	l := ent.obj.list
	fromTail := rank < 0
	if fromTail {
		rank = -rank // -(-2^63) stays negative: the first match, as Redis 7.0's
	}
	at := w.beginArr()
	matches, found := int64(0), 0
	it, index := listEnd(l, !fromTail), 0
	for ; it.Valid() && (maxlen == 0 || int64(index) < maxlen); listStep(&it, !fromTail) {
		workDone += kVisitWork
		if bytes.Equal(it.Value(), args[2]) {
			if matches++; matches >= rank {
				pos := index
				if fromTail {
					pos = l.Len() - 1 - index
				}
				if count < 0 {
					w.outInt(int64(pos))
					return
				}
				w.outInt(int64(pos))
				if found++; count > 0 && int64(found) >= count {
					break
				}
			}
		}
		index++
	}
	if count < 0 {
		w.outNil()
		return
	}
	w.endArr(at, found)
}

// listWhere reads LEFT or RIGHT: true for LEFT.
func listWhere(w *respWriter, arg []byte) (left, ok bool) {
	switch {
	case cmdIs(arg, "left"):
		return true, true
	case cmdIs(arg, "right"):
		return false, true
	}
	w.err(errSyntax)
	return false, false
}

// respLMove: LMOVE source destination LEFT|RIGHT LEFT|RIGHT takes an
// element from one end of source and pushes it at one end of
// destination (the same list rotates), and replies it; null if source
// has none.
func respLMove(st *respState, w *respWriter, args [][]byte) {
	from, ok1 := listWhere(w, args[3])
	if !ok1 {
		return
	}
	to, ok2 := listWhere(w, args[4])
	if ok2 {
		listMove(w, args[1], args[2], from, to)
	}
}

// respRPopLPush: RPOPLPUSH source destination is LMOVE source
// destination RIGHT LEFT.
func respRPopLPush(st *respState, w *respWriter, args [][]byte) {
	listMove(w, args[1], args[2], false, true)
}

// listMove moves an element from the end from chooses of the list at src
// to the end to chooses of the one at dst. Both keys' types are checked
// before anything moves.
func listMove(w *respWriter, src, dst []byte, from, to bool) {
	sent, ok := listOf(w, src)
	switch {
	case !ok:
		return
	case sent == nil:
		w.outNil()
		return
	}
	dent, ok := listOf(w, dst)
	if !ok {
		return
	}
	it := listEnd(sent.obj.list, from)
	v := bytes.Clone(it.Value())
	chargeBytes(len(v))
	if dent == nil {
		dent = listCreate(dst)
	}
	if from {
		sent.obj.list.DeleteHead(1)
	} else {
		sent.obj.list.DeleteTail(1)
	}
	listPush(dent.obj.list, to, v)
	touchKey(dst)
	listChanged(sent)
	w.outBulk(v)
}

// respLMPop: LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] pops up
// to count elements (1 by default) from the first of the keys that holds
// a list, and replies [key, [element, ...]]; a null array if none does.
// A key of another type before that one is WRONGTYPE, as in Redis.
func respLMPop(st *respState, w *respWriter, args [][]byte) {
	numkeys, ok := respInt(args[1])
	if !ok || numkeys <= 0 {
		w.err("ERR numkeys should be greater than 0")
		return
	}
	if numkeys > int64(len(args)-3) {
		w.err(errSyntax)
		return
	}
	keys, rest := args[2:2+numkeys], args[2+numkeys:]
	left, ok := listWhere(w, rest[0])
	if !ok {
		return
	}
	count := int64(1)
	switch {
	case len(rest) == 1:
	case len(rest) == 3 && cmdIs(rest[1], "count"):
		if count, ok = respInt(rest[2]); !ok || count <= 0 {
			w.err("ERR count should be greater than 0")
			return
		}
	default:
		w.err(errSyntax)
		return
	}
	for _, key := range keys {
		workDone++ // each key looked up, up to the first that has elements
		ent, ok := listOf(w, key)
		if !ok {
			return
		}
		if ent == nil {
			continue
		}
		n := int(min(count, int64(ent.obj.list.Len())))
		if !listPopFits(w, ent.obj.list, left, n) {
			w.err(errReplyMemory)
			return
		}
		w.outArr(2)
		w.outStr(ent.key())
		w.outArr(n)
		listPop(w, ent, left, n)
		return
	}
	w.outNilArray()
}

// The rows' costs, for EXEC (resp_cost.go). A push may move up a node's
// bytes for each element (at the head); a walk may visit every element
// twice and move each node's bytes once (LREM), and then drop the list.
const kListNodeWork = quicklist.NodeBytes / kWorkBytes

// costListPush: LPUSH, RPUSH and their X forms push each argument after
// the key.
func costListPush(p *execPlan, args [][]byte) int {
	n := len(args) - 2
	p.addItems(args[1], n)
	return n * (kVisitWork + kListNodeWork)
}

// costListWalk: a command that may walk the whole list at its key (LRANGE,
// LREM, LPOS, LPOP with a count, ...).
func costListWalk(p *execPlan, args [][]byte) int {
	work := p.itemLen(args[1])*2*kVisitWork + 2*kListNodeWork + p.dropBound(args[1])
	if ent := lookupEntry(args[1]); ent != nil && ent.typ() == tList {
		work += ent.obj.list.Bytes() / kWorkBytes
	}
	return work
}

// costListMove: LMOVE and RPOPLPUSH take one element and push it.
func costListMove(p *execPlan, args [][]byte) int {
	p.addItems(args[2], 1)
	return 2*(kVisitWork+kListNodeWork) + p.dropBound(args[1])
}

// costListMPop: LMPOP pops from one of its keys, at most the largest.
func costListMPop(p *execPlan, args [][]byte) int {
	most := 0
	for _, key := range args[2:] {
		most = max(most, p.itemLen(key))
	}
	return most*2*kVisitWork + 2*kListNodeWork + len(args)
}
