package server

// The hash commands (chapter 15's, which already have Redis's semantics
// and names): the book's functions, answered in RESP. HGETALL has its own,
// for RESP3's map and a reply larger than the book's 4 KiB.

// respHashCommands are the hash commands that run as they are.
var respHashCommands = map[string]func(cmd []string, w replyWriter){
	"hget": doHGet, "hdel": doHDel, "hlen": doHLen, "hexists": doHExists,
	"hexpire": doHExpire, "hpexpire": doHExpire, "hexpireat": doHExpire, "hpexpireat": doHExpire,
	"hpersist": doHPersist,
	"httl":     doHTTL, "hpttl": doHTTL, "hexpiretime": doHTTL, "hpexpiretime": doHTTL,
	"hsetex": doHSetEx, "hgetex": doHGetEx,
}

// hashArgs copies the arguments into strings, which package hashes takes.
func hashArgs(args [][]byte) []string {
	cmd := make([]string, len(args))
	for i, a := range args {
		cmd[i] = string(a)
	}
	return cmd
}

// respHash runs one of respHashCommands.
func respHash(st *respState, w *respWriter, args [][]byte) {
	cmd := hashArgs(args)
	respHashCommands[respLookup(args[0]).name](cmd, w)
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
	pairs := ent.obj.hash.GetAll(now)
	workDone += len(pairs)
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
