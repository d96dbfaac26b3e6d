package server

import (
	"math"
	"strconv"
)

// The hash commands (chapter 15's, which already have Redis's semantics
// and names): the book's functions, answered in RESP. HGETALL has its own,
// for RESP3's map and a reply larger than the book's 4 KiB, and so have
// HMGET, HINCRBY, HKEYS and HVALS, which the book's protocol lacks.

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

// respHashRead finds the hash at key for a command that reads it: nil if
// there is none. If the key holds another type it answers WRONGTYPE and
// reports false.
func respHashRead(w *respWriter, key []byte) (*entry, bool) {
	ent, wrongType := lookupHash(string(key))
	if wrongType {
		w.err(errWrongType)
		return nil, false
	}
	return ent, true
}

// respHMGet: HMGET key field... replies each field's value, null for a
// missing one (all of them, for a missing key).
func respHMGet(st *respState, w *respWriter, args [][]byte) {
	ent, ok := respHashRead(w, args[1])
	if !ok {
		return
	}
	now := getUnixMs()
	w.outArr(len(args) - 2)
	for _, f := range args[2:] {
		if ent == nil {
			w.outNil()
			continue
		}
		chargeMembers(1)
		if v, ok := ent.obj.hash.Get(now, string(f)); ok {
			w.outStr(v)
		} else {
			w.outNil()
		}
	}
	if ent != nil {
		hashDone(ent, now)
	}
}

// respHIncrBy: HINCRBY key field increment. The field's value must be an
// integer as Redis reads one, a missing field counts as 0, and the field
// keeps its TTL (chapter 15).
func respHIncrBy(st *respState, w *respWriter, args [][]byte) {
	by, ok := respInt(args[3])
	if !ok {
		w.err(errNotInt)
		return
	}
	key := string(args[1])
	ent, wrongType := lookupHash(key)
	if wrongType {
		w.err(errWrongType)
		return
	}
	now := getUnixMs()
	field := string(args[2])
	cur := int64(0)
	chargeMembers(1) // read, then written
	if ent != nil {
		if v, found := ent.obj.hash.Get(now, field); found {
			if cur, ok = respInt([]byte(v)); !ok {
				hashDone(ent, now)
				w.err("ERR hash value is not an integer")
				return
			}
		}
	}
	if by < 0 && cur < 0 && by < math.MinInt64-cur || by > 0 && cur > 0 && by > math.MaxInt64-cur {
		if ent != nil {
			hashDone(ent, now)
		}
		w.err("ERR increment or decrement would overflow")
		return
	}
	ent, _ = hashForWrite(key)
	ent.obj.hash.SetKeepTTL(now, field, strconv.FormatInt(cur+by, 10))
	touchKey(args[1]) // as Redis, even when adding 0
	hashDone(ent, now)
	w.outInt(cur + by)
}

// respHKeysVals: HKEYS key and HVALS key. Like HGETALL's, a reply that
// cannot fit in what the budget has left is refused before the walk: each
// field takes at least 6 bytes ("$0\r\n\r\n").
func respHKeysVals(keys bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { respHKeysOrVals(w, args, keys) }
}

func respHKeysOrVals(w *respWriter, args [][]byte, keys bool) {
	ent, ok := respHashRead(w, args[1])
	if !ok {
		return
	}
	if ent == nil {
		w.outArr(0)
		return
	}
	now := getUnixMs()
	if 6*ent.obj.hash.Len(now) > w.left() {
		w.err(errReplyMemory)
		return
	}
	workDone += ent.obj.hash.StoredLen() * kVisitWork // the fields GetAll walks, expired ones too
	pairs := ent.obj.hash.GetAll(now)
	hashDone(ent, now)
	w.outArr(len(pairs))
	for _, p := range pairs {
		if keys {
			w.outStr(p.Name)
		} else {
			w.outStr(p.Value)
		}
		if w.over {
			return
		}
	}
}
