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

// What respHashList writes of each field: its name, its value, or both.
const (
	hashNames = 1 << iota
	hashValues
)

// respHashList returns HGETALL (what is hashNames|hashValues: a map in
// RESP3), HKEYS (hashNames) and HVALS (hashValues).
func respHashList(what int) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { hashList(w, args[1], what) }
}

// hashList writes the hash's fields as the walk finds them, with no list
// of them first (which the budget would not see). A reply that cannot fit
// in what the budget of all connections' memory has left is refused
// before the walk (each name or value takes at least 6 bytes, "$0\r\n\r\n");
// one that outgrows it stops the walk at once and is refused
// (respWriter.over). Only the fields walked are charged (expired ones too).
func hashList(w *respWriter, key []byte, what int) {
	head, per := w.outArr, 6
	if what == hashNames|hashValues {
		head, per = w.outMap, 12
	}
	ent, ok := hashOf(w, key)
	if !ok {
		return
	}
	if ent == nil {
		head(0)
		return
	}
	now := getUnixMs()
	h := ent.obj.hash
	n := h.Len(now)
	if per*n > w.left() {
		w.err(errReplyMemory)
		return
	}
	head(n)
	workDone += h.Each(now, func(name, value string) bool {
		if what&hashNames != 0 {
			w.outStr(name)
		}
		if what&hashValues != 0 {
			w.outStr(value)
		}
		return !w.over
	}) * kVisitWork
	hashDone(ent, now)
}

// respHMGet: HMGET key field... replies each field's value, null for a
// missing one (all of them, for a missing key).
func respHMGet(st *respState, w *respWriter, args [][]byte) {
	ent, ok := hashOf(w, args[1])
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
	var sum int64
	if hashIncr(w, args, func(v string, found bool) (string, string) {
		cur, ok := int64(0), true
		if found {
			if cur, ok = respInt([]byte(v)); !ok {
				return "", "ERR hash value is not an integer"
			}
		}
		if by < 0 && cur < 0 && by < math.MinInt64-cur || by > 0 && cur > 0 && by > math.MaxInt64-cur {
			return "", "ERR increment or decrement would overflow"
		}
		sum = cur + by
		return strconv.FormatInt(sum, 10), ""
	}) {
		w.outInt(sum)
	}
}

// hashIncr is HINCRBY and HINCRBYFLOAT once the increment is read: the
// key's type, then the field's value and the sum, both checked by add
// (given the value, or found false for a missing field, it returns the
// new value, or the error to answer), then the write, which keeps the
// field's TTL. It reports whether the field was written; if not, the
// reply is written.
func hashIncr(w *respWriter, args [][]byte, add func(v string, found bool) (text, fail string)) bool {
	ent, ok := hashOf(w, args[1])
	if !ok {
		return false
	}
	now := getUnixMs()
	field := string(args[2])
	v, found := "", false
	chargeMembers(1) // read, then written
	if ent != nil {
		v, found = ent.obj.hash.Get(now, field)
	}
	text, fail := add(v, found)
	if fail != "" {
		if ent != nil {
			hashDone(ent, now)
		}
		w.err(fail)
		return false
	}
	ent, _ = hashForWrite(string(args[1]))
	ent.obj.hash.SetKeepTTL(now, field, text)
	touchKey(args[1]) // as Redis, even when adding 0
	hashDone(ent, now)
	return true
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
	ent, ok := hashOf(w, args[1])
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
	var text string
	if hashIncr(w, args, func(v string, found bool) (string, string) {
		cur, ok := longDouble(new(big.Float)), true
		if found {
			workDone += longDoubleWork(min(len(v), kLongDoubleMaxChars))
			if cur, ok = parseLongDouble(v); !ok {
				return "", "ERR hash value is not a float"
			}
		}
		sum, ok := addLongDouble(cur, by)
		if !ok {
			return "", "ERR increment would produce NaN or Infinity"
		}
		text = formatLongDouble(sum)
		workDone += longDoubleWork(len(text))
		return text, ""
	}) {
		w.outStr(text)
	}
}
