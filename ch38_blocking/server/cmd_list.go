package server

import (
	"bytes"
	"errors"
	"strconv"

	"example.com/byor/ch38_blocking/quicklist"
)

// The list commands, with Redis 7.0's replies and errors, on a quicklist.
// A list whose last element goes is deleted, as in Redis. Left: the head.

// CONFIG SET list-max-listpack-size (list-max-ziplist-size before Redis
// 7) sets how full a node grows (quicklist.Fill).
func init() {
	for _, name := range []string{"list-max-listpack-size", "list-max-ziplist-size"} {
		configSettable[name] = configListFill
		respConfigSet(name, strconv.Itoa(quicklist.Fill))
	}
}

// configListFill reads a list-max-listpack-size.
func configListFill(v string) (func(), string) {
	n, err := strconv.ParseInt(v, 10, 32)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return nil, "argument must be between -2147483648 and 2147483647 inclusive"
	case err != nil:
		return nil, "argument couldn't be parsed into an integer"
	}
	return func() {
		quicklist.Fill = int(n)
		respConfigSet("list-max-listpack-size", v)
		respConfigSet("list-max-ziplist-size", v)
	}, ""
}

// listOf finds the list at key, nil if none; another type is answered
// here, WRONGTYPE, and reported false.
func listOf(w *respWriter, key []byte) (*entry, bool) {
	ent := lookupEntry(key)
	if ent != nil && ent.typ() != tList {
		w.err(errWrongType)
		return nil, false
	}
	return ent, true
}

// listFor is listOf that answers a missing key too, with none's reply:
// nil then always means that the reply is written.
func listFor(w *respWriter, key []byte, none func(replyWriter)) *entry {
	ent, ok := listOf(w, key)
	if ok && ent == nil {
		none(w)
	}
	return ent
}

// listCreate returns the list at key, which listOf found missing, new.
func listCreate(key []byte) *entry {
	ent := newEntry(key, nil)
	ent.obj = &object{list: &quicklist.List{}}
	insertEntry(ent)
	return ent
}

// listChanged tells WATCH of a change to ent, and deletes it if empty.
func listChanged(ent *entry) {
	touchKey(ent.key())
	if ent.obj.list.Len() == 0 {
		removeEntry(ent)
		entryDel(ent)
	}
}

// listPush pushes v at one end of l, and charges it.
func listPush(l *quicklist.List, left bool, v []byte) {
	workDone += kVisitWork
	if left {
		chargeBytes(l.PushHead(v))
	} else {
		chargeBytes(l.PushTail(v))
	}
}

// respPushOf: LPUSH and RPUSH key element... push each in turn, creating
// the list; LPUSHX and RPUSHX (exists) only onto one. Reply: the length.
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

// listEnd returns the place of the element at one end, and the step
// away from that end.
func listEnd(l *quicklist.List, left bool) (quicklist.Iter, func(*quicklist.Iter)) {
	if left {
		return l.First(), (*quicklist.Iter).Next
	}
	return l.Last(), (*quicklist.Iter).Prev
}

// listPopFits walks the n elements a pop would take, to tell whether its
// reply fits in the budget: a pop it cannot hold is refused untaken.
func listPopFits(w *respWriter, l *quicklist.List, left bool, n int) bool {
	need := 0
	for it, step := listEnd(l, left); it.Valid() && n > 0; step(&it) {
		need += len(it.Value()) + respHeaderMax
		n--
		workDone += kVisitWork
		if need > w.left() {
			return false
		}
	}
	return true
}

// listPop writes n elements from one end of the list in ent, in the
// order they come off it, then takes them off, a cut per node.
func listPop(w *respWriter, ent *entry, left bool, n int) {
	l := ent.obj.list
	it, step := listEnd(l, left)
	for i := 0; i < n; i++ {
		w.outBulk(it.Value())
		step(&it)
		workDone += kVisitWork
	}
	chargeBytes(l.Delete(left, n))
	listChanged(ent)
}

// respPopOf: LPOP and RPOP key [count]: one element or null; with a count
// up to count of them, a null array for no key, empty for a count of 0.
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
		n := max(1, int(min(count, int64(ent.obj.list.Len()))))
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
	if ent := listFor(w, args[1], replyZero); ent != nil {
		w.outInt(int64(ent.obj.list.Len()))
	}
}

// listSpan turns start and stop (negative: from the end) into the first
// index and the count, in a list of n, as Redis's LRANGE and LTRIM do.
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

// listRangeOf reads LRANGE's and LTRIM's start and stop, then finds the
// list (nil if none) and the span they name in it; false once answered.
func listRangeOf(w *respWriter, args [][]byte) (ent *entry, from, n int, ok bool) {
	start, ok1 := respInt(args[2])
	stop, ok2 := respInt(args[3])
	if !ok1 || !ok2 {
		w.err(errNotInt)
		return nil, 0, 0, false
	}
	if ent, ok = listOf(w, args[1]); ok && ent != nil {
		from, n = listSpan(ent.obj.list.Len(), start, stop)
	}
	return ent, from, n, ok
}

// respLRange: LRANGE key start stop replies the elements from start to
// stop, both included: a seek, then each element charged as it is written.
func respLRange(st *respState, w *respWriter, args [][]byte) {
	ent, from, n, ok := listRangeOf(w, args)
	switch {
	case !ok:
		return
	case n == 0:
		w.outArr(0)
		return
	case n > w.left()/5: // each element takes at least "$0\r\n\r\n"
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
// stop: whole nodes unlinked at either end, the edge nodes cut once.
func respLTrim(st *respState, w *respWriter, args [][]byte) {
	ent, from, n, ok := listRangeOf(w, args)
	if !ok {
		return
	}
	if ent != nil {
		l := ent.obj.list
		chargeBytes(l.Delete(false, l.Len()-from-n))
		chargeBytes(l.Delete(true, from))
		listChanged(ent)
	}
	w.simple("OK")
}

// listAt seeks the element at index (negative: from the end) of the list
// in ent, charging the walk; false if there is none.
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
	ent := listFor(w, args[1], replyWriter.outNil)
	if ent == nil {
		return
	}
	index, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	if it, ok := listAt(ent, index); ok {
		w.outBulk(it.Value())
		return
	}
	w.outNil()
}

// respLSet: LSET key index element sets the element at index. As LINDEX,
// it looks at the key before it reads the index, as Redis does.
func respLSet(st *respState, w *respWriter, args [][]byte) {
	ent, ok := listOf(w, args[1])
	switch {
	case !ok:
		return
	case ent == nil:
		w.err(errNoSuchKey)
		return
	}
	index, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
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
// the first one equal to pivot: the new length, -1 for none, 0 for no key.
func respLInsert(st *respState, w *respWriter, args [][]byte) {
	var after bool
	switch {
	case cmdIs(args[2], "after"):
		after = true
	case !cmdIs(args[2], "before"):
		w.err(errSyntax)
		return
	}
	ent := listFor(w, args[1], replyZero)
	if ent == nil {
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
// to element, the last -count, or all for 0, and replies how many.
func respLRem(st *respState, w *respWriter, args [][]byte) {
	count, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	ent := listFor(w, args[1], replyZero)
	if ent == nil {
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

// respLPos: LPOS key element [RANK rank] [COUNT num] [MAXLEN len]: the
// index of the rank-th match (negative: from the end), or with COUNT up
// to num of them (0: all), within MAXLEN elements (0: all).
func respLPos(st *respState, w *respWriter, args [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for i := 3; i < len(args); i += 2 {
		if i+1 >= len(args) {
			w.err(errSyntax)
			return
		}
		v, ok := respInt(args[i+1])
		var bad string
		switch {
		case cmdIs(args[i], "rank") && !ok:
			bad = errNotInt
		case cmdIs(args[i], "rank") && v == 0:
			bad = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
		case cmdIs(args[i], "rank"):
			rank = v
		case cmdIs(args[i], "count") && (!ok || v < 0):
			bad = "ERR COUNT can't be negative"
		case cmdIs(args[i], "count"):
			count = v
		case cmdIs(args[i], "maxlen") && (!ok || v < 0):
			bad = "ERR MAXLEN can't be negative"
		case cmdIs(args[i], "maxlen"):
			maxlen = v
		default:
			bad = errSyntax
		}
		if bad != "" {
			w.err(bad)
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
	it, step := listEnd(l, !fromTail)
	for index := 0; it.Valid() && (maxlen == 0 || int64(index) < maxlen); step(&it) {
		workDone += kVisitWork
		if bytes.Equal(it.Value(), args[2]) {
			if matches++; matches >= rank {
				pos := index
				if fromTail {
					pos = l.Len() - 1 - index
				}
				if w.outInt(int64(pos)); count < 0 {
					return
				}
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

// respLMove: LMOVE source destination LEFT|RIGHT LEFT|RIGHT, and
// RPOPLPUSH source destination (RIGHT LEFT), take an element from one end
// of source, push it at one end of destination (the same list rotates),
// and reply it; null if source has none.
func respLMove(st *respState, w *respWriter, args [][]byte) {
	from, to, ok := false, true, true
	if len(args) == 5 {
		if from, ok = listWhere(w, args[3]); ok {
			to, ok = listWhere(w, args[4])
		}
	}
	if ok {
		listMove(w, args[1], args[2], from, to)
	}
}

// listMove moves an element from one end of the list at src to one end
// of the list at dst. Both keys' types are checked before anything moves.
func listMove(w *respWriter, src, dst []byte, from, to bool) {
	sent := listFor(w, src, replyWriter.outNil)
	if sent == nil {
		return
	}
	dent, ok := listOf(w, dst)
	if !ok {
		return
	}
	it, _ := listEnd(sent.obj.list, from)
	v := bytes.Clone(it.Value())
	chargeBytes(len(v))
	if dent == nil {
		dent = listCreate(dst)
	}
	chargeBytes(sent.obj.list.Delete(from, 1))
	listPush(dent.obj.list, to, v)
	touchKey(dst)
	listChanged(sent)
	w.outBulk(v)
}

// The rows' costs, for EXEC (resp_cost.go). listNodeWork is the work of
// moving a node's bytes, which a push at the head may do.
func listNodeWork() int { return quicklist.NodeBytes() / kWorkBytes }

// costListPush: LPUSH, RPUSH and their X forms push each argument.
func costListPush(p *execPlan, args [][]byte) int {
	n := len(args) - 2
	p.addItems(args[1], n)
	return n * (kVisitWork + listNodeWork())
}

// costListWalk: a command that may walk the list twice (LPOP's count),
// move each node's bytes (LREM), and drop it.
func costListWalk(p *execPlan, args [][]byte) int {
	work := p.itemLen(args[1])*2*kVisitWork + 2*listNodeWork() + p.dropBound(args[1])
	if ent := lookupEntry(args[1]); ent != nil && ent.typ() == tList {
		work += ent.obj.list.Bytes() / kWorkBytes
	}
	return work
}

// costListMove: LMOVE and RPOPLPUSH take one element and push it.
func costListMove(p *execPlan, args [][]byte) int {
	p.addItems(args[2], 1)
	return 2*(kVisitWork+listNodeWork()) + p.dropBound(args[1])
}
