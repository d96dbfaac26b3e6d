package server

import "math"

// The grammar the string commands share for a value's expiry: SET's
// options (NX, XX, GET and one expiry form), GETEX's (one expiry form or
// PERSIST), and the fixed forms of SETEX and PSETEX, which are SET with
// EX or PX. One parser, so that the commands agree on what they accept
// and on the errors they answer.

// expiryForm is how an expiry is written: relative (EX, PX) or absolute
// (EXAT, PXAT), in seconds or milliseconds; or KEEPTTL (SET) or PERSIST
// (GETEX), or none.
type expiryForm uint8

const (
	expNone expiryForm = iota
	expEX
	expPX
	expEXAT
	expPXAT
	expKeepTTL
	expPersist
)

// timed reports whether the form carries a time.
func (f expiryForm) timed() bool { return f >= expEX && f <= expPXAT }

// stringOpts are the options a SET or a GETEX was given.
type stringOpts struct {
	nx, xx, get bool
	form        expiryForm
	// when is the time argument of a timed form, as written.
	when []byte
}

// parseStringOpts reads the options in args (SET's after key and value,
// forSet; GETEX's after the key). As Redis does, an expiry form may be
// given again (a time: the last one counts), but not mixed with another; NX and
// XX exclude each other; an option that does not fit, or a timed form
// with no time after it, is a syntax error.
func parseStringOpts(args [][]byte, forSet bool) (o stringOpts, ok bool) {
	// exercise: ch27-set-options
	for i := 0; i < len(args); i++ {
		opt := args[i]
		form := expNone
		switch {
		case forSet && cmdIs(opt, "nx") && !o.xx:
			o.nx = true
			continue
		case forSet && cmdIs(opt, "xx") && !o.nx:
			o.xx = true
			continue
		case forSet && cmdIs(opt, "get"):
			o.get = true
			continue
		case forSet && cmdIs(opt, "keepttl"):
			form = expKeepTTL
		case !forSet && cmdIs(opt, "persist"):
			form = expPersist
		case cmdIs(opt, "ex"):
			form = expEX
		case cmdIs(opt, "px"):
			form = expPX
		case cmdIs(opt, "exat"):
			form = expEXAT
		case cmdIs(opt, "pxat"):
			form = expPXAT
		default:
			return o, false
		}
		// Forms exclude each other, but one may repeat itself.
		if o.form != expNone && o.form != form {
			return o, false
		}
		if form.timed() {
			if i+1 == len(args) {
				return o, false
			}
			i++
			o.when = args[i]
		}
		o.form = form
	}
	return o, true
	// end exercise: ch27-set-options
}

// expireAtMs returns, for a timed form, the unix time in milliseconds the
// value expires at, or the error to answer, which names the command
// name: the time must be an integer above zero, and the result must fit
// in an int64. An absolute time may be
// in the past: the value is then gone at once.
func (o *stringOpts) expireAtMs(nowMs int64, name string) (int64, string) {
	n, ok := respInt(o.when)
	if !ok {
		return 0, errNotInt
	}
	seconds := o.form == expEX || o.form == expEXAT
	if n <= 0 || seconds && n > math.MaxInt64/1000 {
		return 0, errExpireTime(name)
	}
	if seconds {
		n *= 1000
	}
	if o.form == expEX || o.form == expPX {
		if n > math.MaxInt64-nowMs {
			return 0, errExpireTime(name)
		}
		n += nowMs
	}
	return n, ""
}

// applyExpiry gives ent the expiry atMs (unix milliseconds), deleting it
// if that is not in the future. It reports whether ent stays.
func applyExpiry(ent *entry, atMs, nowMs int64) bool {
	if atMs <= nowMs {
		removeEntry(ent)
		entryDel(ent)
		return false
	}
	entrySetExpireAt(ent, atMs) // the very millisecond, as PEXPIRETIME reads it back
	return true
}

// storeString makes val the string at key, replacing a value of any type
// (a sorted set's or a hash's is torn down), and returns its entry. The
// key's TTL goes, unless keepTTL.
func storeString(key, val []byte, keepTTL bool) *entry {
	return replaceString(lookupEntry(key), key, val, keepTTL)
}

// replaceString is storeString for a caller that has already looked the
// key up: ent is what lookupEntry(key) returned, nil for a missing key.
// SET looks first for its options (NX, XX, GET), and a second lookup of
// the same key would cost another walk of the key table's cache misses.
func replaceString(ent *entry, key, val []byte, keepTTL bool) *entry {
	switch {
	case ent != nil && ent.typ() == tStr:
		ent.setVal(val)
		if !keepTTL {
			entrySetTTL(ent, -1)
		}
	case ent != nil:
		at := entryExpireMs(ent, 0)
		removeEntry(ent)
		entryDel(ent)
		ent = newEntry(key, val)
		insertEntry(ent)
		if keepTTL && at != -1 {
			entrySetExpireAt(ent, at)
		}
	default:
		ent = newEntry(key, val)
		insertEntry(ent)
	}
	return ent
}

// setReplies are what a command of SET's kind answers when it sets the
// value (ok) and when NX or XX stopped it (abort): SET's OK and null,
// SETNX's 1 and 0.
type setReplies struct{ ok, abort func(w *respWriter) }

var (
	setReply   = setReplies{func(w *respWriter) { w.simple("OK") }, func(w *respWriter) { w.outNil() }}
	setNXReply = setReplies{func(w *respWriter) { w.outInt(1) }, func(w *respWriter) { w.outInt(0) }}
)

// setString runs SET key val with the options o, answering with r. The
// time is checked first, then GET's old value (a key of another type is
// an error, and nothing changes), then NX and XX.
func setString(w *respWriter, key, val []byte, o *stringOpts, r setReplies) {
	// The clock is read only for an expiry: most SETs have none.
	nowMs, atMs := int64(0), int64(-1)
	if o.form.timed() {
		nowMs = keyNowMs()
		var msg string
		if atMs, msg = o.expireAtMs(nowMs, w.cmd.name); msg != "" {
			w.err(msg)
			return
		}
	}
	ent := lookupEntry(key)
	if o.get {
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
	if o.nx && ent != nil || o.xx && ent == nil {
		if !o.get {
			r.abort(w)
		}
		return
	}
	ent = replaceString(ent, key, val, o.form == expKeepTTL)
	if atMs != -1 {
		applyExpiry(ent, atMs, nowMs)
	}
	if !o.get {
		r.ok(w)
	}
}

// respSet: SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL].
// Unlike the book's set it replaces a value of any type, and drops the
// key's TTL unless told to keep it. It replies OK; or null when NX or XX
// stopped it; or, with GET, the value the key had.
func respSet(st *respState, w *respWriter, args [][]byte) {
	o, ok := parseStringOpts(args[3:], true)
	if !ok {
		w.err(errSyntax)
		return
	}
	setString(w, args[1], args[2], &o, setReply)
}

// respSetEx returns SETEX key seconds value (form expEX) or PSETEX key ms
// value (expPX): SET with that expiry.
func respSetEx(form expiryForm) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		o := stringOpts{form: form, when: args[2]}
		setString(w, args[1], args[3], &o, setReply)
	}
}

// respSetNX: SETNX key value is SET NX, answering 1 or 0.
func respSetNX(st *respState, w *respWriter, args [][]byte) {
	setString(w, args[1], args[2], &stringOpts{nx: true}, setNXReply)
}

// respGetSet: GETSET key value is SET key value GET.
func respGetSet(st *respState, w *respWriter, args [][]byte) {
	setString(w, args[1], args[2], &stringOpts{get: true}, setReply)
}

// respGetDel: GETDEL key answers the string at key and deletes it.
func respGetDel(st *respState, w *respWriter, args [][]byte) {
	if ent := stringFor(w, args[1], replyWriter.outNil); ent != nil {
		if w.outStr(ent.val()); !w.over {
			removeEntry(ent)
			entryDel(ent)
		}
	}
}

// respGetEx: GETEX key [EX s|PX ms|EXAT t|PXAT t|PERSIST] answers the
// string at key and sets or drops its expiry. As in Redis, a missing key
// answers null before the time is looked at; an absolute time in the past
// deletes the key once its value is answered.
func respGetEx(st *respState, w *respWriter, args [][]byte) {
	o, ok := parseStringOpts(args[2:], false)
	if !ok {
		w.err(errSyntax)
		return
	}
	ent := stringFor(w, args[1], replyWriter.outNil)
	if ent == nil {
		return
	}
	nowMs := keyNowMs()
	atMs := int64(-1)
	if o.form.timed() {
		var msg string
		if atMs, msg = o.expireAtMs(nowMs, w.cmd.name); msg != "" {
			w.err(msg)
			return
		}
	}
	if w.outStr(ent.val()); w.over {
		return
	}
	switch {
	case atMs != -1:
		applyExpiry(ent, atMs, nowMs)
	case o.form == expPersist:
		entrySetTTL(ent, -1)
	}
}
