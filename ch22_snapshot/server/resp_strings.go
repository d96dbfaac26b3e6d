package server

import (
	"math"
	"strconv"

	"example.com/byor/ch22_snapshot/resp"
)

// The string commands: GET, and SET with Redis's options; INCR and its
// kin, MGET, MSET, STRLEN and APPEND.

// respGet: GET key is the book's get, answered in RESP.
func respGet(st *respState, w *respWriter, args [][]byte) { doGet(args, w) }

// respSet: SET key value [NX|XX] [GET] [EX s|PX ms|KEEPTTL]. Unlike the
// book's set it replaces a value of any type, and drops the key's TTL
// unless told to keep it. It replies OK; or null when NX or XX stopped
// it; or, with GET, the value the key had. As in Redis, an EX or PX given
// again replaces the one before.
func respSet(st *respState, w *respWriter, args [][]byte) {
	var nx, xx, get, keepTTL, seconds bool
	var expire []byte
	for i := 3; i < len(args); i++ {
		opt, more := args[i], i+1 < len(args)
		switch {
		case cmdIs(opt, "nx") && !xx:
			nx = true
		case cmdIs(opt, "xx") && !nx:
			xx = true
		case cmdIs(opt, "get"):
			get = true
		case cmdIs(opt, "keepttl") && expire == nil:
			keepTTL = true
		case cmdIs(opt, "ex") && !keepTTL && (expire == nil || seconds) && more,
			cmdIs(opt, "px") && !keepTTL && (expire == nil || !seconds) && more:
			seconds = cmdIs(opt, "ex")
			expire = args[i+1]
			i++
		default:
			w.err(errSyntax)
			return
		}
	}
	ttlMs := int64(-1)
	if expire != nil {
		n, ok := respInt(expire)
		if !ok {
			w.err(errNotInt)
			return
		}
		if n <= 0 || seconds && n > math.MaxInt64/1000 {
			w.err(errExpireTime("set"))
			return
		}
		if seconds {
			n *= 1000
		}
		if n > math.MaxInt64-int64(getUnixMs()) {
			w.err(errExpireTime("set"))
			return
		}
		ttlMs = n
	}

	ent := lookupEntry(args[1])
	if get {
		switch {
		case ent == nil:
			w.outNil()
		case ent.typ() != tStr:
			w.err(errWrongType)
			return
		default:
			w.outStr(ent.val())
		}
		if w.over {
			// The old value's reply did not fit in the budget: the
			// caller answers an error, so nothing may change.
			return
		}
	}
	if nx && ent != nil || xx && ent == nil {
		if !get {
			w.outNil()
		}
		return
	}
	switch {
	case ent != nil && ent.typ() == tStr:
		ent.setVal(args[2])
	case ent != nil:
		// Another type: the value goes, its TTL stays only with KEEPTTL.
		nowMs := int64(getUnixMs())
		at := entryExpireMs(ent, nowMs)
		removeEntry(ent)
		entryDel(ent)
		ent = newEntry(args[1], args[2])
		insertEntry(ent)
		if keepTTL && at != -1 {
			entrySetTTL(ent, at-nowMs)
		}
	default:
		ent = newEntry(args[1], args[2])
		insertEntry(ent)
	}
	switch {
	case ttlMs >= 0:
		entrySetTTL(ent, ttlMs)
	case !keepTTL:
		entrySetTTL(ent, -1)
	}
	if !get {
		w.simple("OK")
	}
}

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
	ent, ok := respString(w, args[1])
	switch {
	case !ok:
	case ent == nil:
		w.outInt(0)
	default:
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
