package server

// The hash commands (chapter 16's, which already have Redis's semantics
// and names): the book's functions, answered in RESP. HGETALL has its own,
// for RESP3's map and a reply larger than the book's 4 KiB.

// respHash runs fn, a hash command of chapter 16, on the RESP listener.
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
	h := ent.obj.hash
	// Each field takes at least 12 bytes of the reply ("$0\r\n\r\n" for
	// its name and its value): a reply that cannot fit in what the budget
	// has left is refused before the walk.
	n := h.Len(now)
	if 12*n > w.left() {
		w.err(errReplyMemory)
		return
	}
	// The fields go into the reply as the walk finds them, with no list of
	// them first (which the budget would not see): a reply that outgrows
	// the budget stops the walk at once, and is refused (respWriter.over);
	// only the fields walked are charged (expired ones too).
	w.outMap(n)
	workDone += h.Each(now, func(name, value string) bool {
		w.outStr(name)
		w.outStr(value)
		return !w.over
	}) * kVisitWork
	hashDone(ent, now)
}
