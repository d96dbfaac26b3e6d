package server

import (
	"math"
	"strconv"

	"example.com/byor/ch38_blocking/hashes"
)

// How a write is logged. A row of the command table with flagWrite is
// logged as it was given, when it changed the key space, unless it has a
// rule here: a command whose effect depends on when it ran (a TTL
// relative to now, the value a float's formatting gives) is logged as its
// effect, read from the key space once it has run, in commands that
// replay the same anywhere: expiry as absolute unix times, a value as
// SET. A replay then gives the same data however late it happens, on this
// server or on Redis.

// aofRule is a row's way of being logged: resp and book (nil: as given)
// append what the command did, for each listener; always logs the
// command even when it changed nothing (FLUSHALL on an empty key space,
// as Redis does).
type aofRule struct {
	resp, book func(args [][]byte)
	always     bool
	// before, if set, runs before the command and notes what resp and
	// book compare with, in aofNoted, to log only what the command
	// changed.
	before func(args [][]byte) []int64
}

// aofNoted is, while a rule runs, what its before noted.
var aofNoted []int64

// The rules, each named by its rows (cmdtable.go's aof field).
var (
	// Expiry: the key's TTL as it now is, absolute (GETEX's value did
	// not change). A ...RESP rule's row is the RESP listener's only.
	ruleKeyTTL     = &aofRule{resp: logKeyTTL, book: logKeyTTL}
	ruleKeyTTLRESP = &aofRule{resp: logKeyTTL}
	// A string's value and TTL as they now are. The book's set keeps a
	// key's TTL where Redis's drops it, so it is logged as its effect too.
	ruleString     = &aofRule{resp: logString, book: logString}
	ruleStringRESP = &aofRule{resp: logString}
	// The book's zadd and zrem read a score as the book does; the
	// members' scores are logged as Redis reads them.
	ruleMembers = &aofRule{book: logMembers}
	// Hash fields given a TTL relative to now: their TTLs as they now
	// are, not their values, which did not change (a request of a few
	// bytes a field must not log a value of megabytes), and only those
	// whose TTL changed: one left with a TTL of its own (NX, GT, LT)
	// would cost a record with the key for each time.
	ruleFieldTTLs = &aofRule{resp: logFieldTTLs, book: logFieldTTLs, before: fieldTTLsBefore}
	// Fields given values and TTLs, or a float: values and TTLs.
	ruleFieldPairs = &aofRule{resp: logFieldPairs, book: logFieldPairs}
	ruleField      = &aofRule{resp: logField}
	// The whole key space, even an empty one.
	ruleWhole = &aofRule{always: true}
	noRule    = &aofRule{} // for a row that names none: logged as given
)

// logged sets the row's rule.
func (c *command) logged(r *aofRule) *command {
	c.aof = r
	return c
}

// rule is the row c's rule, noRule if it has none.
func (c *command) rule() *aofRule {
	if c.aof == nil {
		return noRule
	}
	return c.aof
}

// logKeyTTL logs a key's expiry: PEXPIREAT at its absolute time, PERSIST
// if it has none, DEL if the command deleted it.
func logKeyTTL(args [][]byte) {
	key := args[1]
	ent := lookupEntry(key)
	switch {
	case ent == nil:
		aofAppend([]byte("DEL"), key) // an expiry in the past deleted it
	case ent.heapIdx == -1:
		aofAppend([]byte("PERSIST"), key)
	default:
		at := entryExpireMs(ent, int64(getUnixMs()))
		aofAppend([]byte("PEXPIREAT"), key, strconv.AppendInt(nil, at, 10))
	}
}

// logString logs a string key as it now is: SET, then PEXPIREAT if it has
// a TTL; or DEL if it is gone.
func logString(args [][]byte) {
	key := args[1]
	ent := lookupEntry(key)
	if ent == nil || ent.typ() != tStr {
		aofAppend([]byte("DEL"), key)
		return
	}
	aofAppend([]byte("SET"), key, aofView(ent.val()))
	if ent.heapIdx != -1 {
		logKeyTTL(args)
	}
}

// logMembers logs the members the book's zadd or zrem names (the last
// argument) as they now are: ZADD with the score, or ZREM.
func logMembers(args [][]byte) {
	key, member := args[1], args[len(args)-1]
	ent := lookupEntry(key)
	if ent != nil && ent.typ() == tZSet {
		if node := ent.obj.zset.Lookup(string(member)); node != nil {
			aofAppend([]byte("ZADD"), key, []byte(formatScore(node.Score())), member)
			return
		}
	}
	aofAppend([]byte("ZREM"), key, member)
}

// formatScore writes a score so that Redis and this server read back the
// same float: 17 significant digits, and infinities as Redis writes them.
func formatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// logField logs the one field HINCRBYFLOAT names as it now is: HSET and,
// if it has a TTL, HPEXPIREAT at its absolute time. The field is taken
// where it stands, not looked for after FIELDS: a field may be named
// "fields".
func logField(args [][]byte) { logFieldsNamed(args[1], args[2:3], false) }

// logFieldPairs logs the fields HSETEX sets, whose names come with values.
func logFieldPairs(args [][]byte) {
	keep := false
	for _, a := range args[2:] {
		if cmdIs(a, "fields") {
			break
		}
		keep = keep || cmdIs(a, "keepttl")
	}
	logFieldsNamed(args[1], fieldNames(args, 2), keep)
}

// logFieldsNamed logs the fields names of the hash key as they now are:
// one HSET of those there, their TTLs (logFieldTimes), one HDEL of those
// gone; DEL if the hash is. The key is written once a record, not once a
// field: a request naming many fields under a long key logs about its own
// size. HSETEX KEEPTTL's fields (keep) are logged as HSETEX KEEPTTL, then
// HPEXPIREAT 1 NX of those with a TTL, whatever their times: logged as
// HSET and a record for each time, fields whose TTLs are a millisecond
// apart would log the key once a field. On replay a field whose TTL is
// still to come keeps it, and NX leaves it alone; one whose TTL has
// passed meanwhile is set anew without one, and NX deletes it.
func logFieldsNamed(key []byte, names [][]byte, keep bool) {
	h, now := logHashOf(key)
	if h == nil {
		return
	}
	var pairs, there, timed, gone [][]byte
	for _, name := range names {
		v, ok := h.Get(now, string(name))
		if !ok {
			gone = append(gone, name)
			continue
		}
		pairs, there = append(pairs, name, aofView(v)), append(there, name)
		if at := h.ExpireTime(now, string(name)); at != hashes.NoTTL && at != hashes.NoField {
			timed = append(timed, name)
		}
	}
	switch {
	case len(there) > 0 && keep:
		aofAppend(append([][]byte{[]byte("HSETEX"), key, []byte("KEEPTTL"), []byte("FIELDS"), strconv.AppendInt(nil, int64(len(there)), 10)}, pairs...)...)
		if len(timed) > 0 {
			aofAppend(append([][]byte{[]byte("HPEXPIREAT"), key, []byte("1"), []byte("NX"), []byte("FIELDS"), strconv.AppendInt(nil, int64(len(timed)), 10)}, timed...)...)
		}
	case len(there) > 0:
		aofAppend(append([][]byte{[]byte("HSET"), key}, pairs...)...)
		logFieldTimes(key, h, now, there, false) // HSET left them without a TTL
	}
	if len(gone) > 0 {
		aofAppend(append([][]byte{[]byte("HDEL"), key}, gone...)...)
	}
}

// logHashOf returns the hash key holds for a rule to log its fields, and
// the time; if there is none, it logs DEL and returns nil.
func logHashOf(key []byte) (*hashValue, uint64) {
	ent := lookupEntry(key)
	if ent == nil || ent.typ() != tHash {
		aofAppend([]byte("DEL"), key)
		return nil, 0
	}
	return ent.obj.hash, getUnixMs()
}

// fieldTTLsBefore notes the expiry times of the hash fields a command
// names (hashes.NoField for one not there), before it runs.
func fieldTTLsBefore(args [][]byte) []int64 {
	names := fieldNames(args, 1)
	times := make([]int64, len(names))
	ent := lookupEntry(args[1])
	now := getUnixMs()
	for i, name := range names {
		times[i] = hashes.NoField
		if ent != nil && ent.typ() == tHash {
			times[i] = ent.obj.hash.ExpireTime(now, string(name))
		}
	}
	return times
}

// logFieldTTLs logs the TTLs of the hash fields a command names as they
// now are (logFieldTimes), HDEL for those gone; DEL if the hash is. A
// field whose time is the one fieldTTLsBefore noted is left out: the log
// has it already.
func logFieldTTLs(args [][]byte) {
	key := args[1]
	h, now := logHashOf(key)
	if h == nil {
		return
	}
	var there, gone [][]byte
	for i, name := range fieldNames(args, 1) {
		at := h.ExpireTime(now, string(name))
		if i < len(aofNoted) && aofNoted[i] == at {
			continue // unchanged
		}
		if at == hashes.NoField {
			gone = append(gone, name)
		} else {
			there = append(there, name)
		}
	}
	logFieldTimes(key, h, now, there, true)
	if len(gone) > 0 {
		aofAppend(append([][]byte{[]byte("HDEL"), key}, gone...)...)
	}
}

// logFieldTimes logs the TTLs of the fields names of the hash h, which
// are there: one HPEXPIREAT for each expiry time, and, if persist, one
// HPERSIST for those with none.
func logFieldTimes(key []byte, h *hashValue, now uint64, names [][]byte, persist bool) {
	var times []int64
	byTime := map[int64][][]byte{}
	for _, name := range names {
		at := h.ExpireTime(now, string(name))
		if at == hashes.NoField || (at == hashes.NoTTL && !persist) {
			continue
		}
		if _, ok := byTime[at]; !ok {
			times = append(times, at)
		}
		byTime[at] = append(byTime[at], name)
	}
	for _, at := range times {
		names := byTime[at]
		head := [][]byte{[]byte("HPEXPIREAT"), key, strconv.AppendInt(nil, at, 10)}
		if at == hashes.NoTTL {
			head = [][]byte{[]byte("HPERSIST"), key}
		}
		head = append(head, []byte("FIELDS"), strconv.AppendInt(nil, int64(len(names)), 10))
		aofAppend(append(head, names...)...)
	}
}

// fieldNames returns the fields a hash command names: those after
// FIELDS n, every step-th (2 where values follow the names).
func fieldNames(args [][]byte, step int) [][]byte {
	for i := 2; i+1 < len(args); i++ {
		if !cmdIs(args[i], "fields") {
			continue
		}
		var names [][]byte
		for j := i + 2; j < len(args); j += step {
			names = append(names, args[j])
		}
		return names
	}
	return nil
}
