package server

import (
	"strconv"
	"strings"

	"example.com/byor/ch38_blocking/hashes"
	"example.com/byor/ch38_blocking/heap"
	"example.com/byor/ch38_blocking/proto"
)

// maxExpireMs is the latest expiry time accepted, as in Redis: 2^48-1
// milliseconds after the epoch, some 8,900 years from now.
const maxExpireMs = 1<<48 - 1

// lookupHash finds key. It returns nil if there is no such key, and
// wrongType if the key holds something other than a hash. A read may
// reclaim the hash's expired fields, which moves others in its order: a
// snapshot writing that hash in parts finishes it first (snapshot.go).
func lookupHash(key string) (ent *entry, wrongType bool) {
	ent = lookupEntry(key)
	if ent == nil {
		return nil, false
	}
	if ent.typ() == tHash {
		snapshotKeepPart(ent)
	}
	return ent, ent.typ() != tHash
}

// hashOf finds the hash at key for a command that reads it: nil if there
// is none. A key of another type is answered here, with the type error
// (WRONGTYPE over RESP), and reported false, as zsetOf does.
func hashOf[S ~string | ~[]byte](w replyWriter, key S) (*entry, bool) {
	ent, wrongType := lookupHash(string(key))
	if wrongType {
		w.outErr(proto.CodeType, "expect hash")
		return nil, false
	}
	return ent, true
}

// hashFor is hashOf for a command with nothing to do without a hash: a
// missing key is answered too, with missing's reply. A nil entry then
// always means that the reply is written.
func hashFor(w replyWriter, key string, missing func(w replyWriter)) *entry {
	ent, ok := hashOf(w, key)
	if ok && ent == nil {
		missing(w)
	}
	return ent
}

// replyZero and replyEmpty are the replies for a missing key of the
// commands that count (0) or list (an empty array).
func replyZero(w replyWriter)  { w.outInt(0) }
func replyEmpty(w replyWriter) { w.outArr(0) }

// hashForWrite finds the hash at key, creating an empty one if the key is
// new. hashDone removes it again if the command leaves it empty.
func hashForWrite(key string) (ent *entry, wrongType bool) {
	if ent = lookupEntry(key); ent != nil {
		return ent, ent.typ() != tHash
	}
	ent = newEntry(key, nil)
	ent.obj = &object{hash: &hashValue{timerIdx: -1}}
	insertEntry(ent)
	return ent, false
}

// hashDone runs after every command that touched a hash: a hash with no
// live field left is deleted, like a key whose last member goes, and the
// hash's timer is moved to its earliest field expiry (any command may have
// changed it, if only by reclaiming an expired field).
func hashDone(ent *entry, now uint64) {
	if ent.obj.hash.Len(now) == 0 {
		removeEntry(ent)
		entryDel(ent)
		return
	}
	hashTimerUpdate(ent)
}

// hashTimerUpdate keeps the hash's single item in gData.fieldHeap at the
// hash's earliest field expiry, or removes it when no field has one, so
// active expiry never visits a hash without volatile fields.
func hashTimerUpdate(ent *entry) {
	at, ok := ent.obj.hash.NextExpiry()
	switch {
	case ok:
		heap.Upsert(&gData.fieldHeap, int(ent.obj.hash.timerIdx), heap.HeapItem[entry]{Val: at, Owner: ent}, fieldIdx)
	case ent.obj.hash.timerIdx != -1:
		heap.Delete(&gData.fieldHeap, int(ent.obj.hash.timerIdx), fieldIdx)
	}
}

// hashOpts is what the options before FIELDS of one command said.
type hashOpts struct {
	cond             hashes.Cond // HEXPIRE family: NX, XX, GT or LT
	xxLT             bool        // HEXPIRE family: XX and LT together (LT alone sets a field without a TTL)
	fnx, fxx         bool        // HSETEX: set only if no field exists, or every field does
	timeOpt          string      // EX, PX, EXAT or PXAT, "" if none
	timeArg          string      // its argument, read by resolveTime
	at               uint64      // the time, as unix milliseconds, once resolved
	keepTTL, persist bool        // HSETEX KEEPTTL, HGETEX PERSIST
	fields           []string
}

// The error texts are Valkey 9.0's, as its tests check them.
const (
	errHashNumFields = "numfields should be greater than 0 and match the provided number of fields"
	errHashSyntax    = "syntax error"
	errHashNotInt    = "value is not an integer or out of range"
)

const condOptions = "NX XX GT LT" // the options of the HEXPIRE family

// parseHashArgs reads "[options] FIELDS numfields field ..." from args,
// taking the options named in allowed (upper case), each field followed by
// its value with pairs. It returns the options or an error for the client.
// A time's argument is only kept: resolveTime reads it after the other
// checks, in the order Valkey checks them.
func parseHashArgs(args []string, allowed string, pairs bool) (hashOpts, string) {
	var o hashOpts
	// The options end at the first FIELDS that has a word after it; a
	// command without one has no count, whatever else it holds.
	at := 0
	for at+1 < len(args) && !cmdIs(args[at], "FIELDS") {
		at++
	}
	if at+1 >= len(args) {
		return o, errHashNumFields
	}
	if msg := o.parseOptions(args[:at], allowed); msg != "" {
		return o, msg
	}
	n, ok := hashInt(args[at+1])
	if !ok {
		return o, errHashNotInt
	}
	per, given := int64(1), int64(len(args)-at-2)
	if pairs {
		per = 2
	}
	if n <= 0 || n > given || n*per != given {
		return o, errHashNumFields
	}
	o.fields = args[at+2:]
	return o, ""
}

// parseOptions reads the options before FIELDS. As SET takes NX NX, an
// option without an argument may be repeated; two of an exclusive group
// may not, nor may a time be given twice.
func (o *hashOpts) parseOptions(args []string, allowed string) string {
	seen := map[string]bool{} // NX, XX, GT and LT
	for i := 0; i < len(args); i++ {
		opt := ""
		for _, name := range hashOptions {
			if cmdIs(args[i], name) {
				opt = name
			}
		}
		if opt == "" || !strings.Contains(" "+allowed+" ", " "+opt+" ") {
			if allowed == condOptions {
				return "Unsupported option " + args[i]
			}
			return errHashSyntax
		}
		switch opt {
		case "NX", "XX", "GT", "LT":
			seen[opt] = true
		case "FNX", "FXX":
			if o.fnx && opt == "FXX" || o.fxx && opt == "FNX" {
				return errHashSyntax
			}
			o.fnx, o.fxx = o.fnx || opt == "FNX", o.fxx || opt == "FXX"
		case "KEEPTTL", "PERSIST":
			if o.timeOpt != "" {
				return errHashSyntax
			}
			o.keepTTL, o.persist = o.keepTTL || opt == "KEEPTTL", o.persist || opt == "PERSIST"
		case "EX", "PX", "EXAT", "PXAT":
			if o.timeOpt != "" || o.keepTTL || o.persist || i+1 == len(args) {
				return errHashSyntax
			}
			o.timeOpt, o.timeArg = opt, args[i+1]
			i++
		}
	}
	switch nx, xx, gt, lt := seen["NX"], seen["XX"], seen["GT"], seen["LT"]; {
	case nx && (xx || gt || lt):
		return "NX and XX, GT or LT options at the same time are not compatible"
	case gt && lt:
		return "GT and LT options at the same time are not compatible"
	case nx:
		o.cond = hashes.NX
	case gt: // GT already wants a TTL, so XX adds nothing
		o.cond = hashes.GT
	case lt:
		o.cond, o.xxLT = hashes.LT, xx
	case xx:
		o.cond = hashes.XX
	}
	return ""
}

// resolveTime reads the argument of EX, PX, EXAT or PXAT, if one was
// given, into o.at. name is the command's, which the error names.
func (o *hashOpts) resolveTime(name string, now uint64) (msg string) {
	if o.timeOpt != "" {
		unit := uint64(1000) // EX, EXAT: seconds
		if o.timeOpt[0] == 'P' {
			unit = 1
		}
		o.at, msg = parseExpireTime(o.timeArg, unit, strings.HasSuffix(o.timeOpt, "AT"), now, name)
	}
	return msg
}

// hashInt parses numfields or a time. These commands are not the book's,
// so they do not take strtoll's leniencies (white space, "", clamping):
// like Redis they want a whole decimal int64 in range (Redis also refuses
// a + sign and leading zeros, which ParseInt allows).
func hashInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// hashOptions are the hash commands' options, in any case of their ASCII letters.
var hashOptions = []string{"NX", "XX", "GT", "LT", "FNX", "FXX", "KEEPTTL", "PERSIST", "EX", "PX", "EXAT", "PXAT"}

// parseExpireTime turns a time argument into unix milliseconds: an integer
// count of unit (1 for ms, 1000 for seconds), from now or, if absolute,
// from the epoch. Negative times and times past maxExpireMs are refused,
// in the words of the command name.
func parseExpireTime(s string, unit uint64, absolute bool, now uint64, name string) (uint64, string) {
	n, ok := hashInt(s)
	if !ok {
		return 0, errHashNotInt
	}
	at := uint64(n) * unit
	if !absolute {
		at += now
	}
	if n < 0 || uint64(n) > maxExpireMs/unit || at > maxExpireMs {
		return 0, "invalid expire time in '" + strings.ToLower(name) + "' command"
	}
	return at, ""
}

// doHSet: hset key field value [field value ...]. Replies the number of
// fields that were new. Setting a field clears its expiry.
func doHSet(cmd []string, w replyWriter) {
	ent, wrongType := hashForWrite(cmd[1])
	if wrongType {
		w.outErr(proto.CodeType, "expect hash")
		return
	}
	now := getUnixMs()
	added := int64(0)
	for i := 2; i < len(cmd); i += 2 {
		chargeMembers(1)
		if ent.obj.hash.Set(now, cmd[i], cmd[i+1]) {
			added++
		}
	}
	touchKey(cmd[1]) // as Redis, even when no value changed
	hashDone(ent, now)
	w.outInt(added)
}

// doHGet: hget key field. Replies the value, or nil.
func doHGet(cmd []string, w replyWriter) {
	ent := hashFor(w, cmd[1], replyWriter.outNil)
	if ent == nil {
		return
	}
	now := getUnixMs()
	chargeMembers(1)
	val, ok := ent.obj.hash.Get(now, cmd[2])
	hashDone(ent, now)
	if !ok {
		w.outNil()
		return
	}
	w.outStr(val)
}

// doHDel: hdel key field [field ...]. Replies how many fields it removed.
func doHDel(cmd []string, w replyWriter) {
	ent := hashFor(w, cmd[1], replyZero)
	if ent == nil {
		return
	}
	now := getUnixMs()
	removed := int64(0)
	for _, f := range cmd[2:] {
		chargeMembers(1)
		if ent.obj.hash.Delete(now, f) {
			removed++
		}
	}
	if removed > 0 {
		touchKey(cmd[1])
	}
	hashDone(ent, now)
	w.outInt(removed)
}

// doHLen: hlen key. Replies the number of live fields.
func doHLen(cmd []string, w replyWriter) {
	ent := hashFor(w, cmd[1], replyZero)
	if ent == nil {
		return
	}
	now := getUnixMs()
	n := ent.obj.hash.Len(now)
	hashDone(ent, now)
	w.outInt(int64(n))
}

// doHExists: hexists key field. Replies 1 or 0.
func doHExists(cmd []string, w replyWriter) {
	ent := hashFor(w, cmd[1], replyZero)
	if ent == nil {
		return
	}
	now := getUnixMs()
	chargeMembers(1)
	ok := ent.obj.hash.Exists(now, cmd[2])
	hashDone(ent, now)
	if !ok {
		w.outInt(0)
		return
	}
	w.outInt(1)
}

// doHGetAll: hgetall key. Replies field, value, field, value, ...
func doHGetAll(cmd []string, w replyWriter) {
	ent := hashFor(w, cmd[1], replyEmpty)
	if ent == nil {
		return
	}
	now := getUnixMs()
	// Each field takes at least 10 bytes of the reply (two tags and
	// lengths): refuse a reply that cannot fit before collecting it.
	if 5+10*ent.obj.hash.Len(now) > w.maxReply() {
		hashDone(ent, now)
		outTooBig(w)
		return
	}
	pairs := ent.obj.hash.GetAll(now)
	hashDone(ent, now)
	w.outArr(2 * len(pairs))
	for _, p := range pairs {
		w.outStr(p.Name)
		w.outStr(p.Value)
	}
}

// perField replies an array with one integer per field: what each says
// for it, or -2 (no such field) for every field of a missing key.
func perField(w replyWriter, key string, fields []string, now uint64, each func(h *hashes.Hash, field string) int64) {
	ent, wrongType := lookupHash(key)
	if wrongType {
		w.outErr(proto.CodeType, "expect hash")
		return
	}
	// The reply's size is known: refuse it before changing anything.
	if 5+9*len(fields) > w.maxReply() {
		outTooBig(w)
		return
	}
	w.outArr(len(fields))
	for _, f := range fields {
		chargeMembers(1)
		v := int64(hashes.NoField)
		if ent != nil {
			v = each(&ent.obj.hash.Hash, f)
		}
		w.outInt(v)
	}
	if ent != nil {
		hashDone(ent, now)
	}
}

// doHExpireIn returns hexpire / hpexpire / hexpireat / hpexpireat key time
// [NX|XX|GT|LT] FIELDS numfields field ..., for a time in units of unit
// milliseconds, from now or (absolute) since the epoch. Replies one code
// per field: -2 no such field, 0 condition not met, 1 set, 2 deleted (time
// not in the future).
func doHExpireIn(unit uint64, absolute bool) func(cmd []string, w replyWriter) {
	return func(cmd []string, w replyWriter) { doHExpire(cmd, w, unit, absolute) }
}

func doHExpire(cmd []string, w replyWriter, unit uint64, absolute bool) {
	now := getUnixMs()
	o, msg := parseHashArgs(cmd[3:], condOptions, false)
	if msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	at, msg := parseExpireTime(cmd[2], unit, absolute, now, expireName(unit, absolute))
	if msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	perField(w, cmd[1], o.fields, now, func(h *hashes.Hash, f string) int64 {
		r := expireField(h, now, f, at, o)
		if r == hashes.OK || r == hashes.Deleted {
			touchKey(cmd[1])
		}
		return int64(r)
	})
}

// expireName is the name of the HEXPIRE command of unit and absolute, for
// its errors: its row tells the variants apart, not the name sent.
func expireName(unit uint64, absolute bool) string {
	name := "hexpire"
	if unit == 1 {
		name = "hpexpire"
	}
	if absolute {
		name += "at"
	}
	return name
}

// expireField sets the expiry of one field for the HEXPIRE family. XX
// with LT also wants the field to have a TTL, which LT alone does not.
func expireField(h *hashes.Hash, now uint64, f string, at uint64, o hashOpts) int {
	if o.xxLT && h.TTL(now, f) == hashes.NoTTL {
		return hashes.NotMet
	}
	return h.Expire(now, f, at, o.cond)
}

// doHPersist: hpersist key FIELDS numfields field ... Replies one code per
// field: -2 no such field, -1 no expiry, 1 expiry removed.
func doHPersist(cmd []string, w replyWriter) {
	now := getUnixMs()
	o, msg := parseHashArgs(cmd[2:], "", false)
	if msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	perField(w, cmd[1], o.fields, now, func(h *hashes.Hash, f string) int64 {
		r := h.Persist(now, f)
		if r == hashes.OK {
			touchKey(cmd[1])
		}
		return int64(r)
	})
}

// doHTTLIn returns httl / hpttl / hexpiretime / hpexpiretime key FIELDS
// numfields field ... Replies one integer per field: -2 no such field, -1
// no expiry, else the time left (or, with expireTime, the expiry as a unix
// time) in units of unit milliseconds, seconds rounded up.
func doHTTLIn(unit int64, expireTime bool) func(cmd []string, w replyWriter) {
	return func(cmd []string, w replyWriter) { doHTTL(cmd, w, unit, expireTime) }
}

func doHTTL(cmd []string, w replyWriter, unit int64, expireTime bool) {
	now := getUnixMs()
	o, msg := parseHashArgs(cmd[2:], "", false)
	if msg == errHashNumFields {
		msg = errHashSyntax // Valkey's words for HTTL's count
	}
	if msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	perField(w, cmd[1], o.fields, now, func(h *hashes.Hash, f string) int64 {
		v := h.TTL(now, f)
		if expireTime {
			v = h.ExpireTime(now, f)
		}
		if v >= 0 {
			v = (v + unit - 1) / unit // seconds rounded up
		}
		return v
	})
}

// doHSetEx: hsetex key [FNX|FXX] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL] FIELDS
// numfields field value ... Replies 1 if every field was set, 0 if none
// was because FNX or FXX did not hold. Without KEEPTTL or a time, set
// fields lose any expiry, as with hset.
func doHSetEx(cmd []string, w replyWriter) {
	now := getUnixMs()
	o, msg := parseHashArgs(cmd[2:], "FNX FXX EX PX EXAT PXAT KEEPTTL", true)
	if msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	// The type first, then the time, as Valkey checks them: an
	// error leaves no new key behind.
	if _, wrongType := lookupHash(cmd[1]); wrongType {
		w.outErr(proto.CodeType, "expect hash")
		return
	}
	if msg := o.resolveTime("hsetex", now); msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	ent, _ := hashForWrite(cmd[1])
	for i := 0; i < len(o.fields) && (o.fnx || o.fxx); i += 2 {
		chargeMembers(1)
		if ent.obj.hash.Exists(now, o.fields[i]) != o.fxx {
			hashDone(ent, now)
			w.outInt(0)
			return
		}
	}
	for i := 0; i < len(o.fields); i += 2 {
		chargeMembers(1)
		f, v := o.fields[i], o.fields[i+1]
		switch {
		case o.keepTTL:
			ent.obj.hash.SetKeepTTL(now, f, v)
		case o.timeOpt != "":
			ent.obj.hash.SetExpireAt(now, f, v, o.at)
		default:
			ent.obj.hash.Set(now, f, v)
		}
	}
	touchKey(cmd[1])
	hashDone(ent, now)
	w.outInt(1)
}

// doHGetEx: hgetex key [EX s|PX ms|EXAT t|PXAT t|PERSIST] FIELDS numfields
// field ... Replies the values (nil for missing fields) as they were, then
// sets or removes the expiry of the fields that exist.
func doHGetEx(cmd []string, w replyWriter) {
	now := getUnixMs()
	o, msg := parseHashArgs(cmd[2:], "EX PX EXAT PXAT PERSIST", false)
	if msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	ent, wrongType := lookupHash(cmd[1])
	if wrongType {
		w.outErr(proto.CodeType, "expect hash")
		return
	}
	if msg := o.resolveTime("hgetex", now); msg != "" {
		w.outErr(proto.CodeArg, msg)
		return
	}
	if hgetexReplySize(ent, o, now) > w.maxReply() {
		if ent != nil {
			hashDone(ent, now) // reading may have reclaimed expired fields
		}
		outTooBig(w) // and no expiry was changed
		return
	}
	w.outArr(len(o.fields))
	for _, f := range o.fields {
		chargeMembers(1)
		val, ok := "", false
		if ent != nil {
			val, ok = ent.obj.hash.Get(now, f)
		}
		if !ok {
			w.outNil()
			continue
		}
		w.outStr(val)
		switch {
		case o.persist:
			if ent.obj.hash.Persist(now, f) == hashes.OK {
				touchKey(cmd[1])
			}
		case o.timeOpt != "":
			ent.obj.hash.Expire(now, f, o.at, hashes.Always)
			touchKey(cmd[1])
		}
	}
	if ent != nil {
		hashDone(ent, now)
	}
}

// hgetexReplySize returns the size of hgetex's reply without changing any
// expiry, so that a reply too big to send can be refused first. A field the
// command deletes (a time not in the future) reads as nil if named again.
func hgetexReplySize(ent *entry, o hashOpts, now uint64) int {
	size := 5
	var deleted map[string]bool
	for _, f := range o.fields {
		chargeMembers(1)
		size++
		if ent == nil || deleted[f] {
			continue
		}
		val, ok := ent.obj.hash.Get(now, f)
		if !ok {
			continue
		}
		size += 4 + len(val)
		if o.timeOpt != "" && o.at <= now {
			if deleted == nil {
				deleted = map[string]bool{}
			}
			deleted[f] = true
		}
	}
	return size
}

// hashArgs copies the arguments into strings, which package hashes takes.
func hashArgs(args [][]byte) []string {
	cmd := make([]string, len(args))
	for i, a := range args {
		cmd[i] = string(a)
	}
	return cmd
}
