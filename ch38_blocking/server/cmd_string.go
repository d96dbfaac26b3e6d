package server

import (
	"math"
	"strconv"

	"example.com/byor/ch38_blocking/resp"
)

// The string commands: GET; INCR and its kin, MGET, MSET, MSETNX,
// STRLEN, APPEND, GETRANGE and SETRANGE. SET and the commands that share
// its options are in cmd_string_set.go, INCRBYFLOAT in cmd_string_incrfloat.go, the bit
// commands in cmd_bitmap.go, LCS in cmd_string_lcs.go.

// respGet: GET key is the book's get, answered in RESP.
func respGet(st *respState, w *respWriter, args [][]byte) { doGet(args, w) }

// respString finds the string at key: nil if there is none. If the key
// holds another type it answers WRONGTYPE and reports false.
func respString(w *respWriter, key []byte) (*entry, bool) {
	ent := lookupEntry(key)
	if ent != nil && ent.typ() != tStr {
		w.err(errWrongType)
		return nil, false
	}
	return ent, true
}

// stringFor is respString for a command with nothing to do without a
// string: a missing key is answered too, with none's reply. A nil entry
// then always means that the reply is written.
func stringFor(w *respWriter, key []byte, none func(replyWriter)) *entry {
	ent, ok := respString(w, key)
	if ok && ent == nil {
		none(w)
	}
	return ent
}

// respStringVal is respString and the string's value ("" for none).
func respStringVal(w *respWriter, key []byte) (*entry, string, bool) {
	ent, ok := respString(w, key)
	if ent == nil {
		return nil, "", ok
	}
	return ent, ent.val(), true
}

// respIncrBy returns INCR and DECR key (sign +1 or -1), or with byArg
// INCRBY and DECRBY key by. The value must be an integer as Redis reads
// one (respInt: no spaces, no leading zeros), a missing key counts as 0,
// and the key keeps its TTL. A result past the int64 range is refused,
// and nothing changes.
func respIncrBy(sign int64, byArg bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { respIncr(w, args, sign, byArg) }
}

func respIncr(w *respWriter, args [][]byte, sign int64, byArg bool) {
	by := int64(1)
	if byArg {
		var ok bool
		if by, ok = respInt(args[2]); !ok {
			w.err(errNotInt)
			return
		}
	}
	if sign < 0 {
		if by == math.MinInt64 {
			w.err("ERR decrement would overflow") // -by does not exist
			return
		}
		by = -by
	}
	ent, ok := respString(w, args[1])
	if !ok {
		return
	}
	cur := int64(0)
	if ent != nil {
		if cur, ok = respInt([]byte(ent.val())); !ok {
			w.err(errNotInt)
			return
		}
	}
	if by < 0 && cur < 0 && by < math.MinInt64-cur || by > 0 && cur > 0 && by > math.MaxInt64-cur {
		w.err("ERR increment or decrement would overflow")
		return
	}
	var num [20]byte
	val := strconv.AppendInt(num[:0], cur+by, 10)
	if ent == nil {
		insertEntry(newEntry(args[1], val))
	} else {
		ent.setVal(val) // the TTL timer is the entry's: it stays
	}
	w.outInt(cur + by)
}

// respMGet: MGET key... replies each key's value, null for a missing key
// or one that holds another type.
func respMGet(st *respState, w *respWriter, args [][]byte) {
	w.outArr(len(args) - 1)
	for _, k := range args[1:] {
		if ent := lookupEntry(k); ent != nil && ent.typ() == tStr {
			w.outStr(ent.val())
		} else {
			w.outNil()
		}
	}
}

// respMSet: MSET key value [key value ...] sets each key as a plain SET
// does: any old value, of any type, and its TTL go.
func respMSet(st *respState, w *respWriter, args [][]byte) {
	if len(args)%2 != 1 {
		w.err(errArity("mset"))
		return
	}
	for i := 1; i < len(args); i += 2 {
		ent := lookupEntry(args[i])
		switch {
		case ent != nil && ent.typ() == tStr:
			ent.setVal(args[i+1])
			entrySetTTL(ent, -1)
		case ent != nil:
			removeEntry(ent)
			entryDel(ent)
			fallthrough
		default:
			insertEntry(newEntry(args[i], args[i+1]))
		}
	}
	w.simple("OK")
}

// respStrlen: STRLEN key, 0 for a missing key.
func respStrlen(st *respState, w *respWriter, args [][]byte) {
	if ent := stringFor(w, args[1], replyZero); ent != nil {
		w.outInt(int64(len(ent.val())))
	}
}

// maxAppend bounds the string APPEND may make: the largest value one SET
// can store (resp.MaxBulkLen, Redis's proto-max-bulk-len, 512 MB). A
// string APPEND grows keeps room for more (entry.appendVal), never past
// this bound. (A variable, so that tests can reach it.)
var maxAppend = resp.MaxBulkLen

// respAppend: APPEND key value, replying the new length.
func respAppend(st *respState, w *respWriter, args [][]byte) {
	ent, ok := respString(w, args[1])
	switch {
	case !ok:
	case ent == nil:
		insertEntry(newEntry(args[1], args[2]))
		w.outInt(int64(len(args[2])))
	case len(ent.val())+len(args[2]) > maxAppend:
		w.err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	default:
		// The argument's bytes are counted with the request's; a growth
		// copies the value too.
		chargeBytes(ent.appendVal(args[2], maxAppend))
		w.outInt(int64(len(ent.val())))
	}
}

// respMSetNX: MSETNX key value [key value ...] sets every pair, as MSET
// does, if none of the keys exists, and answers 1; else it sets none and
// answers 0.
func respMSetNX(st *respState, w *respWriter, args [][]byte) {
	if len(args)%2 != 1 {
		w.err(errArity("msetnx"))
		return
	}
	for i := 1; i < len(args); i += 2 {
		if lookupEntry(args[i]) != nil {
			w.outInt(0)
			return
		}
	}
	for i := 1; i < len(args); i += 2 {
		storeString(args[i], args[i+1], false)
	}
	w.outInt(1)
}

// respGetRange: GETRANGE key start end (and SUBSTR, its old name) answers
// the bytes from start to end, both included, counted as ranges are
// (strRange); an empty string for a missing key or an empty range.
func respGetRange(st *respState, w *respWriter, args [][]byte) {
	r, ok := parseRange(w, args[2], args[3])
	if !ok {
		return
	}
	_, val, ok := respStringVal(w, args[1])
	if !ok {
		return
	}
	start, end, empty := r.within(int64(len(val)))
	if empty {
		w.outStr("")
		return
	}
	w.outStr(val[start : end+1])
}

// errTooLong is Redis's error for a string that would pass the longest a
// value may be (maxAppend, proto-max-bulk-len).
const errTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"

// respSetRange: SETRANGE key offset value writes value over the string at
// key from offset on, padding with zero bytes a string shorter than the
// offset, and answers the new length. Writing nothing changes nothing
// (and creates no key); a string that would pass maxAppend is refused.
func respSetRange(st *respState, w *respWriter, args [][]byte) {
	off, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	if off < 0 {
		w.err("ERR offset is out of range")
		return
	}
	ent, old, ok := respStringVal(w, args[1])
	if !ok {
		return
	}
	v := args[3]
	switch {
	case len(v) == 0:
		w.outInt(int64(len(old)))
		return
	case off > int64(maxAppend-len(v)):
		w.err(errTooLong)
		return
	}
	if ent == nil {
		ent = newEntry(args[1], nil)
		insertEntry(ent)
	}
	writeAt(ent, int(off), v)
	w.outInt(int64(len(ent.val())))
}

// writeAt writes v over the string value of ent from off on, zero bytes
// filling any gap past its end, in place: SETRANGE and SETBIT cost what
// they write, not the value's length, as in Redis. The value moves into a
// buffer with room to grow first (entry.growVal, as APPEND's does), and
// is written there: the one place a string value changes after it is
// written, which is safe because no string taken from a value (ent.val)
// outlives the command that took it. The gap is the buffer's room, zeros
// already (strBuf): nothing writes it, but its bytes are charged as the
// value's new length, so that a request making a long value from a few
// bytes ends its connection's turn as one that sent them would.
func writeAt(ent *entry, off int, v []byte) {
	end := off + len(v)
	if ent.obj == nil || ent.obj.str.Cap() < end {
		chargeBytes(ent.growVal(max(end, len(ent.val())), maxAppend))
	}
	s := ent.obj.str
	if gap := end - len(s.b); gap > 0 {
		chargeBytes(gap)
		s.b = s.b[:end]
	}
	copy(s.b[off:], v)
	touchKey(ent.key())
}
