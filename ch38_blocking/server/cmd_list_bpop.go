package server

import "strconv"

// The blocking list pops, BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP,
// and LMPOP, BLMPOP's twin that never waits: each pops at once from the
// first of its keys that holds a list, and otherwise waits (blocking.go).
// Each is logged as the pop it did: LPOP, RPOP (with a count for LMPOP),
// LMOVE, RPOPLPUSH.

// The names of the pops they log.
var (
	nameLPop      = []byte("LPOP")
	nameRPop      = []byte("RPOP")
	nameLMove     = []byte("LMOVE")
	nameRPopLPush = []byte("RPOPLPUSH")
)

// popName is the name of the pop at one end of a list.
func popName(left bool) []byte {
	if left {
		return nameLPop
	}
	return nameRPop
}

// respBLPopOf: BLPOP and BRPOP key [key ...] timeout pop one element and
// answer [key, element].
func respBLPopOf(left bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		ms, ok := blockTimeout(w, args[len(args)-1])
		if ok {
			blockOn(st, w, args, args[1:len(args)-1], ms, false, func(w *respWriter, args [][]byte, key []byte) {
				listBPop(w, key, left)
			}, w.outNilArray)
		}
	}
}

// listBPop pops one element of the list at key for BLPOP or BRPOP.
func listBPop(w *respWriter, key []byte, left bool) {
	ent := lookupEntry(key)
	if !listPopFits(w, ent.obj.list, left, 1) {
		w.err(errReplyMemory)
		return
	}
	w.outArr(2)
	w.outBulk(key)
	listPop(w, ent, left, 1)
	blockLog(popName(left), key)
}

// respBLMove: BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout,
// and BRPOPLPUSH source destination timeout (RIGHT LEFT), are LMOVE and
// RPOPLPUSH that wait for source. A destination of another type is
// WRONGTYPE once there is an element to move, and that element stays.
func respBLMove(st *respState, w *respWriter, args [][]byte) {
	if len(args) == 6 {
		if _, ok := listWhere(w, args[3]); !ok {
			return
		}
		if _, ok := listWhere(w, args[4]); !ok {
			return
		}
	}
	ms, ok := blockTimeout(w, args[len(args)-1])
	if ok {
		blockOn(st, w, args, args[1:2], ms, false, listBMove, w.outNil)
	}
}

// listBMove moves an element for BLMOVE or BRPOPLPUSH.
func listBMove(w *respWriter, args [][]byte, key []byte) {
	from, to := false, true
	if len(args) == 6 {
		from, to = cmdIs(args[3], "left"), cmdIs(args[4], "left")
		blockLog(nameLMove, args[1], args[2], args[3], args[4])
	} else {
		blockLog(nameRPopLPush, args[1], args[2])
	}
	listMove(w, args[1], args[2], from, to)
}

// mpopArgs reads LMPOP's and ZMPOP's arguments after the name (args[0] is
// not read: BLMPOP's and BZMPOP's timeout is there): numkeys key [key ...]
// END [COUNT count], with Redis's errors, in the order Redis checks them.
// END is LEFT or RIGHT for a list (first: LEFT), else MIN or MAX (first:
// MIN).
func mpopArgs(w *respWriter, args [][]byte, list bool) (keys [][]byte, first bool, count int64, ok bool) {
	numkeys, ok := respInt(args[1])
	if !ok || numkeys <= 0 {
		w.err("ERR numkeys should be greater than 0")
		return nil, false, 0, false
	}
	if numkeys > int64(len(args)-3) {
		w.err(errSyntax)
		return nil, false, 0, false
	}
	keys, rest := args[2:2+numkeys], args[2+numkeys:]
	switch {
	case list && cmdIs(rest[0], "left"), !list && cmdIs(rest[0], "min"):
		first = true
	case list && cmdIs(rest[0], "right"), !list && cmdIs(rest[0], "max"):
	default:
		w.err(errSyntax)
		return nil, false, 0, false
	}
	count = 1
	switch {
	case len(rest) == 1:
	case len(rest) == 3 && cmdIs(rest[1], "count"):
		if count, ok = respInt(rest[2]); !ok || count <= 0 {
			w.err("ERR count should be greater than 0")
			return nil, false, 0, false
		}
	default:
		w.err(errSyntax)
		return nil, false, 0, false
	}
	return keys, first, count, true
}

// respLMPop: LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] pops up
// to count elements (1 by default) from the first of the keys that holds
// a list, and answers [key, [element, ...]]; a null array if none does.
func respLMPop(st *respState, w *respWriter, args [][]byte) {
	if keys, _, _, ok := mpopArgs(w, args, true); ok {
		blockOn(st, w, args, keys, -1, false, func(w *respWriter, args [][]byte, key []byte) {
			listMPop(w, args, key)
		}, w.outNilArray)
	}
}

// respBLMPop: BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
// is LMPOP that waits; the timeout is read after the rest, as Redis does.
func respBLMPop(st *respState, w *respWriter, args [][]byte) {
	keys, _, _, ok := mpopArgs(w, args[1:], true)
	if !ok {
		return
	}
	if ms, ok := blockTimeout(w, args[1]); ok {
		blockOn(st, w, args, keys, ms, false, func(w *respWriter, args [][]byte, key []byte) {
			listMPop(w, args[1:], key)
		}, w.outNilArray)
	}
}

// listMPop pops for LMPOP's arguments args (args[0] not read) from key,
// logged as LPOP or RPOP with the count it took.
func listMPop(w *respWriter, args [][]byte, key []byte) {
	_, left, count, _ := mpopArgs(w, args, true)
	ent := lookupEntry(key)
	n := int(min(count, int64(ent.obj.list.Len())))
	if !listPopFits(w, ent.obj.list, left, n) {
		w.err(errReplyMemory)
		return
	}
	w.outArr(2)
	w.outBulk(key)
	w.outArr(n)
	listPop(w, ent, left, n)
	blockLog(popName(left), key, strconv.AppendInt(nil, int64(n), 10))
}

// costBLPop: BLPOP and BRPOP look up their keys and pop one element.
func costBLPop(p *execPlan, args [][]byte) int {
	return len(args)*kVisitWork + 2*listNodeWork()
}

// costListMPop: LMPOP pops from one of its keys, at most the largest,
// walking the elements twice, and may drop it.
func costListMPop(p *execPlan, args [][]byte) int {
	most := 0
	for _, key := range args[2:] {
		most = max(most, p.itemLen(key))
	}
	return most*2*kVisitWork + min(most, kLargeContainerSize) + 2*listNodeWork() + len(args)
}

// costBLMPop: BLMPOP is LMPOP after the timeout.
func costBLMPop(p *execPlan, args [][]byte) int { return costListMPop(p, args[1:]) }
