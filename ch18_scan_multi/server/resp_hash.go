package server

// The hash commands (chapter 15's, which already have Redis's semantics
// and names): the book's functions, answered in RESP. HGETALL has its own,
// for RESP3's map and a reply larger than the book's 4 KiB.

// respHash runs fn, a hash command of chapter 15, on the RESP listener.
func respHash(fn func(cmd []string, w replyWriter)) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { fn(hashArgs(args), w) }
}

// respHSet: HSET key field value [field value ...].
func respHSet(st *respState, w *respWriter, args [][]byte) {
	if len(args)%2 != 0 {
		w.err(errArity("hset"))
		return
	}
	doHSet(hashArgs(args), w)
}

// respHGetAll: HGETALL key, a map in RESP3. A reply the budget of all
// connections' memory cannot hold is cut off by the writer and refused.
func respHGetAll(st *respState, w *respWriter, args [][]byte) {
	ent, wrongType := lookupHash(string(args[1]))
	if wrongType {
		w.err(errWrongType)
		return
	}
	if ent == nil {
		w.outMap(0)
		return
	}
	now := getUnixMs()
	// Each field takes at least 12 bytes of the reply ("$0\r\n\r\n" for
	// its name and its value): a reply that cannot fit in what the budget
	// has left is refused before the walk, which over a million fields
	// would list them all first.
	if 12*ent.obj.hash.Len(now) > w.left() {
		w.err(errReplyMemory)
		return
	}
	workDone += ent.obj.hash.StoredLen() * kVisitWork // the fields GetAll walks, expired ones too
	pairs := ent.obj.hash.GetAll(now)
	hashDone(ent, now)
	w.outMap(len(pairs))
	for _, p := range pairs {
		w.outStr(p.Name)
		w.outStr(p.Value)
		if w.over {
			return
		}
	}
}
