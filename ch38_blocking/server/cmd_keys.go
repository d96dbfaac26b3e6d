package server

import (
	"math"
	"strconv"

	"example.com/byor/ch38_blocking/glob"
	"example.com/byor/ch38_blocking/heap"
	"example.com/byor/ch38_blocking/keytable"
)

// The key space's commands: DBSIZE, FLUSHALL/FLUSHDB, EXISTS, DEL/UNLINK,
// KEYS, the EXPIRE family, TTL/PTTL, EXPIRETIME/PEXPIRETIME and PERSIST,
// with Redis's semantics. RENAME, COPY, RANDOMKEY and the commands of
// databases are in cmd_keys_move.go, OBJECT and MEMORY in cmd_keys_object.go.

func respDBSize(st *respState, w *respWriter, args [][]byte) {
	w.outInt(int64(gData.db.Len()))
}

// deleteKey removes key and its value, if there is one, and reports
// whether there was.
func deleteKey[S ~string | ~[]byte](key S) bool {
	ent := gData.db.Delete(keytable.Hash(key), func(e *entry) bool {
		return e.key() == string(key)
	})
	if ent != nil {
		entryDel(ent)
	}
	return ent != nil
}

// respFlushAll: FLUSHALL [ASYNC|SYNC] deletes every key. Deleting them
// one by one would hold the event loop for as long as that takes (seconds
// for a few million keys), so the key space and the TTL timers are
// swapped for empty ones at once, and the old ones handed to the thread
// pool, which tears their values down (chapter 14's lesson; Redis's
// lazyfree does this for FLUSHALL ASYNC). Nothing on the loop can reach
// them any more, so the worker has them to itself. SYNC is no different:
// no client can tell when the memory is given back.
func respFlushAll(st *respState, w *respWriter, args [][]byte) {
	if len(args) > 2 || len(args) == 2 && !cmdIs(args[1], "async") && !cmdIs(args[1], "sync") {
		w.err(errSyntax)
		return
	}
	old := gData.db
	touchFlushed(old)
	adopted := snapshotAdopt(old) // a snapshot still reads it, and its TTLs (snapshot.go)
	gData.db = newKeySpace()
	gData.heap = nil
	gData.fieldHeap = nil
	if old.Len() > 0 && !adopted {
		gData.tp.Queue(func() { old.All(entryDestroy) })
	}
	w.simple("OK")
}

// respExists: EXISTS key... counts the keys that exist, each time it is
// named.
func respExists(st *respState, w *respWriter, args [][]byte) {
	n := int64(0)
	for _, k := range args[1:] {
		if lookupEntry(k) != nil {
			n++
		}
	}
	w.outInt(n)
}

// respDel: DEL key... deletes each key, and counts those that existed.
func respDel(st *respState, w *respWriter, args [][]byte) {
	n := int64(0)
	for _, k := range args[1:] {
		if deleteKey(k) {
			n++
		}
	}
	w.outInt(n)
}

// kKeysMaxScan bounds the keys one KEYS may walk. KEYS looks at every key
// whatever its pattern, so over a large key space one request would hold
// the event loop for as long as the walk takes (tens of milliseconds per
// hundred thousand keys), and a pipeline of them for seconds. Past it,
// KEYS is refused, as a reply too big is; Redis has no such limit.
const kKeysMaxScan = 1 << 18

// Matching a key against a pattern takes up to the pattern's length times
// the key's in steps (package glob), and both can be long: a pattern of
// 8 KiB against a key of 16 KiB is some 10^8 steps. So the steps of one
// request's matches are bounded too, by kMatchMaxSteps (tens of
// milliseconds), past which the request is refused, and counted in the
// turn's work, kMatchStepsPerItem steps to an item.
const (
	kMatchMaxSteps     = 1 << 22
	kMatchStepsPerItem = 32
)

// errMatchTooCostly refuses a KEYS or SCAN whose matches would take more
// than kMatchMaxSteps.
var errMatchTooCostly = "ERR the pattern would take more than " + strconv.Itoa(kMatchMaxSteps) + " steps to match against these keys: use a shorter pattern"

// respKeys: KEYS pattern. The matches go into the reply as the walk finds
// them, with no list of them first (which the budget would not see), and
// the array's header is put before them at the end (endArr). A reply that
// the budget of all connections' memory cannot hold stops the walk as it
// outgrows it and is refused (respWriter.over); so is a walk over more
// than kKeysMaxScan keys, before it starts.
func respKeys(st *respState, w *respWriter, args [][]byte) {
	if gData.db.Len() > kKeysMaxScan {
		w.err(errKeysTooMany)
		return
	}
	workDone += gData.db.Len()
	pattern := string(args[1])
	at, n, steps := w.beginArr(), 0, 0
	gData.db.All(func(ent *entry) {
		if w.over || steps > kMatchMaxSteps {
			return
		}
		k := ent.key()
		ok, s, _ := glob.MatchLimit(pattern, k, kMatchMaxSteps-steps)
		steps += s
		if ok {
			w.outStr(k)
			n++
		}
	})
	workDone += steps / kMatchStepsPerItem
	switch {
	case w.over:
	case steps > kMatchMaxSteps:
		w.truncate(at)
		w.err(errMatchTooCostly)
	default:
		w.endArr(at, n)
	}
}

// errKeysTooMany refuses a KEYS over more than kKeysMaxScan keys.
var errKeysTooMany = "ERR KEYS is refused over more than " + strconv.Itoa(kKeysMaxScan) + " keys: the walk would stall the server"

// Key TTLs are timers on the monotonic clock (gData.heap, in microseconds
// since the server started), while clients give and read them as unix
// times (EXPIREAT, EXPIRETIME, SET ... PXAT). The two are tied once, at
// start: a timer at monotonic t is the unix time keyClockOriginUs + t. So
// a time set with PEXPIREAT reads back from PEXPIRETIME to the
// millisecond, and every TTL command of one key agrees with the others,
// whatever the wall clock does later (Redis follows the wall clock: a
// clock set back a minute makes its keys live a minute longer; here they
// do not).
var keyClockOriginUs = clockStart.UnixMicro()

// keyNowMs is the time now, in unix milliseconds, on the clock of the key
// TTLs.
func keyNowMs() int64 {
	return (keyClockOriginUs + int64(getMonotonicUsec())) / 1000
}

// entryExpireMs returns when a key expires, in unix milliseconds on the
// clock of the key TTLs (keyNowMs), or -1 if it has no TTL. nowMs is not
// needed any more; it stays for the callers that pass it.
func entryExpireMs(ent *entry, nowMs int64) int64 {
	if ent.heapIdx == -1 {
		return -1
	}
	return timerUnixMs(gData.heap[ent.heapIdx].Val)
}

// kFarTimer splits the values of a key's timer in two. Below it, a timer
// is on the monotonic clock, in microseconds since the start: 2^63 of
// them is some 292,000 years. From it up, the timer holds the unix time
// in milliseconds itself, kFarTimer+ms, since Redis keeps any expiry that
// fits in an int64 of milliseconds, and 2^63 milliseconds do not fit in
// microseconds. Such a timer is above every monotonic one, so the heap
// still orders them, and it never falls due.
const kFarTimer = 1 << 63

// timerUnixMs returns the unix time in milliseconds a key's timer at stands
// for: entrySetExpireAt's inverse.
func timerUnixMs(at uint64) int64 {
	if at >= kFarTimer {
		return int64(at - kFarTimer)
	}
	return int64((at + uint64(keyClockOriginUs)) / 1000)
}

// unixMsTimer returns the timer for the unix time atMs (milliseconds, not
// negative): the microsecond that stands for atMs exactly, so that
// timerUnixMs gives atMs back, or the far form of atMs past kFarTimer. A
// time before the server started is due at once.
func unixMsTimer(atMs int64) uint64 {
	ms, origin := uint64(max(atMs, 0)), uint64(keyClockOriginUs)
	switch {
	case ms >= (kFarTimer+origin)/1000:
		return kFarTimer + ms
	case ms*1000 < origin:
		return 0
	}
	return ms*1000 - origin
}

// entrySetExpireAt gives a key a TTL that ends at the unix time atMs
// (milliseconds), which must be later than keyNowMs.
func entrySetExpireAt(ent *entry, atMs int64) {
	touchKey(ent.key())
	heap.Upsert(&gData.heap, int(ent.heapIdx), heap.HeapItem[entry]{Val: unixMsTimer(atMs), Owner: ent}, ttlIdx)
}

// errExpireTime is Redis's error for an expire time that cannot be
// represented.
func errExpireTime(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}

// condFlag reads opt if it is one of the conditions that EXPIRE and
// ZADD share, NX, XX, GT or LT, setting its flag; it reports false for any
// other word, which each command answers in its own way.
func condFlag(opt []byte, nx, xx, gt, lt *bool) bool {
	switch {
	case cmdIs(opt, "nx"):
		*nx = true
	case cmdIs(opt, "xx"):
		*xx = true
	case cmdIs(opt, "gt"):
		*gt = true
	case cmdIs(opt, "lt"):
		*lt = true
	default:
		return false
	}
	return true
}

// respExpireIn returns EXPIRE key seconds [NX|XX|GT|LT] (unitMs 1000) or
// PEXPIRE key ms [...] (unitMs 1). As in Redis, a time not in the future
// deletes the key, and the options compare with the key's current expiry
// (none counts as infinite).
func respExpireIn(unitMs int64) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { respExpire(w, args, unitMs, false) }
}

// respExpireAtIn returns EXPIREAT key unix-seconds [NX|XX|GT|LT] (unitMs
// 1000) or PEXPIREAT key unix-ms [...] (unitMs 1): EXPIRE's grammar, with
// a date for the time.
func respExpireAtIn(unitMs int64) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { respExpire(w, args, unitMs, true) }
}

// respExpire runs the EXPIRE family: the options, then the time, in
// Redis's order of checks (so EXPIRE k x NX XX answers the options'
// error, not the time's).
func respExpire(w *respWriter, args [][]byte, unitMs int64, absolute bool) {
	name := w.cmd.name
	var nx, xx, gt, lt bool
	for _, opt := range args[3:] {
		if !condFlag(opt, &nx, &xx, &gt, &lt) {
			w.err("ERR Unsupported option " + string(opt))
			return
		}
	}
	if nx && (xx || gt || lt) {
		w.err("ERR NX and XX, GT or LT options at the same time are not compatible")
		return
	}
	if gt && lt {
		w.err("ERR GT and LT options at the same time are not compatible")
		return
	}
	when, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	if when > math.MaxInt64/unitMs || when < math.MinInt64/unitMs {
		w.err(errExpireTime(name))
		return
	}
	when *= unitMs
	nowMs := keyNowMs()
	if !absolute {
		if when > math.MaxInt64-nowMs {
			w.err(errExpireTime(name))
			return
		}
		when += nowMs
	}
	ent := lookupEntry(args[1])
	if ent == nil {
		w.outInt(0)
		return
	}
	cur := entryExpireMs(ent, nowMs)
	if nx && cur != -1 || xx && cur == -1 || gt && (cur == -1 || when <= cur) || lt && cur != -1 && when >= cur {
		w.outInt(0)
		return
	}
	if when <= nowMs && !aofLoading { // while the log is replayed, the timers delete it (aof.go)
		removeEntry(ent)
		entryDel(ent)
	} else {
		entrySetExpireAt(ent, max(when, nowMs)) // a time past: due now
	}
	w.outInt(1)
}

// respTTLIn returns TTL key (unitMs 1000) or PTTL key (1): the time left,
// -1 if the key has no TTL, -2 if there is no such key; TTL rounds to
// seconds as Redis does.
func respTTLIn(unitMs int64) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { respTTL(w, args, unitMs) }
}

func respTTL(w *respWriter, args [][]byte, unitMs int64) {
	ent := lookupEntry(args[1])
	if ent == nil {
		w.outInt(-2)
		return
	}
	nowMs := keyNowMs()
	at := entryExpireMs(ent, nowMs)
	if at == -1 {
		w.outInt(-1)
		return
	}
	ms := max(0, at-nowMs) // due, but not yet removed: 0, as Redis
	w.outInt(roundMs(ms, unitMs))
}

// respExpireTimeIn returns EXPIRETIME key (unitMs 1000) or PEXPIRETIME key
// (1): the unix time at which the key expires, -1 if it has no TTL, -2 if
// there is no such key. Seconds are rounded to the nearest, as Redis's
// TTL's are.
func respExpireTimeIn(unitMs int64) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		ent := lookupEntry(args[1])
		if ent == nil {
			w.outInt(-2)
			return
		}
		at := entryExpireMs(ent, 0)
		if at == -1 {
			w.outInt(-1)
			return
		}
		w.outInt(roundMs(at, unitMs))
	}
}

// roundMs returns ms (not negative) in units of unitMs, to the nearest;
// adding half a unit first would overflow for a time near the int64 top,
// which Redis answers rounded all the same.
func roundMs(ms, unitMs int64) int64 {
	n := ms / unitMs
	if ms%unitMs >= (unitMs+1)/2 {
		n++
	}
	return n
}

// respPersist: PERSIST key drops the key's TTL; replies 1 if it had one.
func respPersist(st *respState, w *respWriter, args [][]byte) {
	ent := lookupEntry(args[1])
	if ent == nil || ent.heapIdx == -1 {
		w.outInt(0)
		return
	}
	entrySetTTL(ent, -1)
	w.outInt(1)
}
