package server

import (
	"math"
	"math/big"
	"strconv"
)

// The hash commands (chapter 16's, which already have Redis's semantics
// and names): the book's functions, answered in RESP. HGETALL has its own,
// for RESP3's map and a reply larger than the book's 4 KiB, and so have
// HMGET, HINCRBY, HKEYS and HVALS, which the book's protocol lacks.

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
// keeps its TTL (chapter 16).
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
// cannot fit in what the budget has left is refused before the walk (each
// field takes at least 6 bytes, "$0\r\n\r\n"), and one that outgrows it
// stops the walk.
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
	h := ent.obj.hash
	n := h.Len(now)
	if 6*n > w.left() {
		w.err(errReplyMemory)
		return
	}
	// Written as the walk goes, as HGETALL's are.
	w.outArr(n)
	workDone += h.Each(now, func(name, value string) bool {
		if keys {
			w.outStr(name)
		} else {
			w.outStr(value)
		}
		return !w.over
	}) * kVisitWork
	hashDone(ent, now)
}

// respHMSet: HMSET key field value [field value ...], HSET under its old
// name, which answers OK.
func respHMSet(st *respState, w *respWriter, args [][]byte) {
	if len(args)%2 != 0 {
		w.err(errArity("hmset"))
		return
	}
	ent, wrongType := hashForWrite(string(args[1]))
	if wrongType {
		w.err(errWrongType)
		return
	}
	now := getUnixMs()
	for i := 2; i < len(args); i += 2 {
		chargeMembers(1)
		ent.obj.hash.Set(now, string(args[i]), string(args[i+1]))
	}
	touchKey(args[1])
	hashDone(ent, now)
	w.simple("OK")
}

// respHSetNX: HSETNX key field value sets the field only if the hash has
// no such live field: 1 if it did, 0 if not.
func respHSetNX(st *respState, w *respWriter, args [][]byte) {
	ent, wrongType := hashForWrite(string(args[1]))
	if wrongType {
		w.err(errWrongType)
		return
	}
	now := getUnixMs()
	field := string(args[2])
	chargeMembers(1)
	if ent.obj.hash.Exists(now, field) {
		hashDone(ent, now)
		w.outInt(0)
		return
	}
	ent.obj.hash.Set(now, field, string(args[3]))
	touchKey(args[1])
	hashDone(ent, now)
	w.outInt(1)
}

// respHStrLen: HSTRLEN key field, the length of the field's value, 0 for a
// missing field or key.
func respHStrLen(st *respState, w *respWriter, args [][]byte) {
	ent, ok := respHashRead(w, args[1])
	if !ok {
		return
	}
	if ent == nil {
		w.outInt(0)
		return
	}
	now := getUnixMs()
	chargeMembers(1)
	v, _ := ent.obj.hash.Get(now, string(args[2]))
	hashDone(ent, now)
	w.outInt(int64(len(v)))
}

// respHIncrByFloat: HINCRBYFLOAT key field increment, summed in a long
// double and written as Redis writes one (floatfmt.go). Redis's order of
// checks: the increment, then the key's type, then the field's value,
// then the sum. The field keeps its TTL, as with HINCRBY. Reading and
// writing the numbers is charged by their length (longDoubleWork): a
// number of thousands of digits costs far more than its bytes.
func respHIncrByFloat(st *respState, w *respWriter, args [][]byte) {
	workDone += longDoubleWork(len(args[3]))
	by, ok := parseLongDouble(string(args[3]))
	if !ok {
		w.err(errNotFloat)
		return
	}
	if by.IsInf() {
		w.err("ERR value is NaN or Infinity")
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
	cur := longDouble(new(big.Float))
	chargeMembers(1) // read, then written
	if ent != nil {
		if v, found := ent.obj.hash.Get(now, field); found {
			workDone += longDoubleWork(min(len(v), kLongDoubleMaxChars))
			if cur, ok = parseLongDouble(v); !ok {
				hashDone(ent, now)
				w.err("ERR hash value is not a float")
				return
			}
		}
	}
	sum, ok := addLongDouble(cur, by)
	if !ok {
		if ent != nil {
			hashDone(ent, now)
		}
		w.err("ERR increment would produce NaN or Infinity")
		return
	}
	text := formatLongDouble(sum)
	workDone += longDoubleWork(len(text))
	ent, _ = hashForWrite(key)
	ent.obj.hash.SetKeepTTL(now, field, text)
	touchKey(args[1])
	hashDone(ent, now)
	w.outStr(text)
}
