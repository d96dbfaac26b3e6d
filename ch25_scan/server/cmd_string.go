package server

import "math"

// The string commands: GET, and SET with Redis's options.

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
