package server

import (
	"math"
	"strings"
	"unsafe"

	"example.com/byor/ch34_rdb/cnum"
	"example.com/byor/ch34_rdb/dlist"
	"example.com/byor/ch34_rdb/hashes"
	"example.com/byor/ch34_rdb/heap"
	"example.com/byor/ch34_rdb/keytable"
	"example.com/byor/ch34_rdb/proto"
	"example.com/byor/ch34_rdb/sock"
	"example.com/byor/ch34_rdb/threadpool"
	"example.com/byor/ch34_rdb/zset"
)

// gData is the server's global state: the key space and the connections.
var gData struct {
	// The key space: an open-addressing table (package keytable) where
	// chapters 08 to 16 use the book's chaining hashtable.
	db *keytable.Table[entry]
	// All connections, indexed by fd (the kernel hands out small fds).
	fd2conn []*conn
	// The poller (epoll, kqueue) that watches the listening socket and
	// every connection.
	poller sock.Poller
	// The arguments of the request being handled, as slices of its
	// connection's read buffer. The array is reused from one request to
	// the next.
	args [][]byte
	// The writer of the book's replies, reused from one request to the next.
	bin binWriter
	// Every connection's idle timer, the least recently active first.
	idleList dlist.DList[conn]
	// The TTL timers of keys, soonest first.
	heap []heap.HeapItem[entry]
	// Workers that tear down large values off the event loop.
	tp *threadpool.ThreadPool
	// One timer per hash that has fields with an expiry, at the earliest
	// of them, in unix milliseconds (the times clients give are dates).
	fieldHeap []heap.HeapItem[entry]
}

// The types of value a key can hold.
const (
	tStr  = 0 // a string, in val
	tZSet = 1 // a sorted set, in zset
	tHash = 2 // a hash, in hash
)

func init() { gData.db = newKeySpace() }

// newKeySpace returns an empty key space.
func newKeySpace() *keytable.Table[entry] {
	return keytable.New(func(ent *entry) uint64 { return keytable.Hash(ent.key()) }, keyWeight)
}

// kKeyBytesPerItem is how many bytes of a key count as one item of work
// when the key table hashes the key again (a resize moves it; SCAN finds
// its place): a long key costs its bytes, not one slot.
const kKeyBytesPerItem = 256

// keyWeight is the key table's weight of an entry (see keytable.New).
func keyWeight(ent *entry) int { return len(ent.key()) / kKeyBytesPerItem }

// stepKeySpace moves a resize of the key space along once per request,
// by keytable.StepWork's worth, so that a resize ends even when no
// request inserts; lookups move nothing, and inserts a few slots each. It
// returns the work the resizes did since the last call (keytable's Step),
// which the request's turn counts in workDone.
func stepKeySpace() int { return gData.db.Step(keytable.StepWork) }

// entry is one key and its value. The key space holds pointers to entries
// and nothing else: no link, no cached hash code.
//
// Every key costs an entry, so it is kept to 32 bytes, the size class of
// Go's allocator it fills: the key and a string's value share one string,
// so one allocation holds both, and what only sorted sets, hashes and
// strings grown by APPEND need is behind one pointer.
type entry struct {
	// The key, followed by the value if the entry holds a string that is
	// not in obj.
	kv string
	// A sorted set, a hash, or a string grown by APPEND or set from a
	// large bulk string; nil for a string set whole.
	obj *object
	// The length of the key: kv[:klen] is the key, kv[klen:] the value.
	klen uint32
	// The position of the key's TTL timer in gData.heap, or -1 for none.
	heapIdx int32
}

// object is a value kept apart from the key: exactly one field is set.
type object struct {
	zset *zset.ZSet
	hash *hashValue
	// A string APPEND, SETRANGE or SETBIT has changed, with room to grow
	// (see appendVal, growVal), or one kept as a request's large bulk
	// string arrived (adoptArg).
	str *strBuf
}

// strBuf is a string value with room to grow: the value is b, and
// b[len(b):cap(b)] is its room, which always holds zeros. Only growVal
// makes a buffer with room, and it comes from make, zeroed (adoptArg's
// has none); the value only grows into the room after that (appendVal,
// writeAt), never shrinks. So a
// write past the value's end finds the gap before it zero already, and
// pads nothing: for a buffer fresh from the system those zeros are pages
// not yet touched, which cost no time and no resident memory until they
// are written or read.
type strBuf struct{ b []byte }

// String returns the value as a string sharing the buffer's bytes (see
// entry.val for why that is safe).
func (s *strBuf) String() string { return unsafe.String(unsafe.SliceData(s.b), len(s.b)) }

// Len and Cap are the value's length and the buffer's.
func (s *strBuf) Len() int { return len(s.b) }
func (s *strBuf) Cap() int { return cap(s.b) }

// key returns the entry's key.
func (ent *entry) key() string { return ent.kv[:ent.klen] }

// val returns the value of a string entry. The string of one grown by
// APPEND shares the builder's bytes: appends write past them, and a
// growth copies them to a new buffer; only SETRANGE and SETBIT write
// over them (writeAt), so the string lasts no longer than the command.
func (ent *entry) val() string {
	if ent.obj != nil && ent.obj.str != nil {
		return ent.obj.str.String()
	}
	return ent.kv[ent.klen:]
}

// setVal replaces the value of a string entry. The key is copied along with
// the value, into a new string that holds both; a value grown by APPEND,
// and its room, go. A large bulk string of the request is kept as it
// arrived instead, in a buffer of its own (adoptArg).
func (ent *entry) setVal(v []byte) {
	if s := adoptArg(v); s != nil {
		ent.kv, ent.obj = strings.Clone(ent.key()), &object{str: s}
	} else {
		ent.kv, ent.obj = joinKV(ent.key(), v), nil
	}
	touchKey(ent.key())
}

// appendVal appends v to the value of a string entry, and returns the bytes
// it copied besides v's. Copying the key and the value into a new string
// for each APPEND, as setVal does, would make n appends of one byte cost
// O(n^2) bytes copied; here they cost O(n), as Redis's strings, which
// keep room to grow, do. limit is the longest value APPEND makes.
func (ent *entry) appendVal(v []byte, limit int) (copied int) {
	if len(v) > 0 {
		val := ent.val()
		if ent.obj == nil || ent.obj.str.Cap()-len(val) < len(v) {
			copied = ent.growVal(len(val)+len(v), limit)
		}
		ent.obj.str.b = append(ent.obj.str.b, v...)
	}
	touchKey(ent.key())
	return copied
}

// growVal moves the value of a string entry into a new buffer with room
// for n bytes and as many again (but not past limit), and returns the
// bytes it copied. The buffer is made zeroed (strBuf), not grown by
// appending: Go zeroes a large one only if its memory was used before,
// in chunks, at memclr's speed, and the system's fresh pages are zero
// until touched. The first time, the value leaves kv, and the key is
// copied into a string of its own: a slice of kv would keep the old value
// alive. A value that grows one growVal to the next has doubled in
// between, so each of its bytes is copied O(1) times, amortized; and the
// room it holds is never more than the value itself.
func (ent *entry) growVal(n, limit int) (copied int) {
	val := ent.val()
	b := &strBuf{b: make([]byte, len(val), max(n, min(2*n, limit)))}
	copy(b.b, val)
	copied = len(val)
	if ent.obj == nil {
		ent.kv = strings.Clone(ent.key())
		ent.obj = &object{}
		copied += len(ent.kv)
	}
	ent.obj.str = b
	return copied
}

// hashValue is a hash as the key space holds it: its fields, and the
// position of its field-expiry timer in gData.fieldHeap, or -1 when none
// of its fields has an expiry.
type hashValue struct {
	hashes.Hash
	timerIdx int32
}

// The heaps are told where an entry keeps the position of its timer.
func ttlIdx(ent *entry) *int32   { return &ent.heapIdx }
func fieldIdx(ent *entry) *int32 { return &ent.obj.hash.timerIdx }

// typ returns the type of value the entry holds.
func (ent *entry) typ() int {
	switch {
	case ent.obj == nil || ent.obj.str != nil:
		return tStr
	case ent.obj.zset != nil:
		return tZSet
	}
	return tHash
}

// newEntry returns a new entry for key holding the string val (nil for an
// entry about to get a sorted set or a hash), not yet in the key space. The
// key and the value are copied into one new string: one allocation; a
// large bulk string of the request is kept as it arrived (adoptArg).
func newEntry[S ~string | ~[]byte](key S, val []byte) *entry {
	if s := adoptArg(val); s != nil {
		return &entry{kv: strings.Clone(string(key)), obj: &object{str: s}, klen: uint32(len(key)), heapIdx: -1}
	}
	return &entry{kv: joinKV(key, val), klen: uint32(len(key)), heapIdx: -1}
}

// joinKV returns key and val as one new string, each copied once: key +
// string(val) copies val into a string of its own first (a SET of a
// 200 MiB value copied 400 MiB), and a concatenation with one side empty
// returns the other side itself, which for val would be the request's
// own bytes, and for a key cut from an old kv, the old value kept alive.
func joinKV[S ~string | ~[]byte](key S, val []byte) string {
	switch {
	case len(val) == 0:
		return strings.Clone(string(key))
	case len(key) == 0:
		return string(val)
	}
	return string(key) + unsafe.String(unsafe.SliceData(val), len(val))
}

// insertEntry adds a new entry, whose key is not in the key space yet.
func insertEntry(ent *entry) {
	gData.db.Insert(keytable.Hash(ent.key()), ent)
	workDone += gData.db.Step(0) // the slots of a resize it moved
	touchKey(ent.key())
}

// removeEntry takes ent out of the key space. The entry is already in
// hand, so the table is searched for that very entry, not for its key.
func removeEntry(ent *entry) {
	gData.db.Delete(keytable.Hash(ent.key()), func(e *entry) bool { return e == ent })
}

// lookupEntry finds key, given as bytes in the read buffer or as a string,
// or returns nil. It allocates nothing: the comparison string(key) == ...
// does not copy.
func lookupEntry[S ~string | ~[]byte](key S) *entry {
	return gData.db.Lookup(keytable.Hash(key), func(e *entry) bool {
		return e.key() == string(key)
	})
}

// doRequest runs one command and appends its serialized reply to out. The
// arguments are slices of the read buffer: a command that keeps one copies
// it into a string.
func doRequest(cmd [][]byte, out []byte) []byte {
	w := &gData.bin // one writer for all: no allocation per request
	w.buf = out
	bookRequest(cmd, w)
	out, w.buf = w.buf, nil
	return out
}

// doType: type key. Beyond the book: what a key holds, as Redis's TYPE
// says it.
func doType(cmd [][]byte, w replyWriter) {
	w.outStr(typeName(lookupEntry(cmd[1])))
}

// typeName is TYPE's answer for ent, which may be nil.
func typeName(ent *entry) string {
	switch {
	case ent == nil:
		return "none"
	case ent.typ() == tZSet:
		return "zset"
	case ent.typ() == tHash:
		return "hash"
	}
	return "string"
}

// bookHash runs a hash command (chapter 16) on the book's listener. The
// hash commands work on strings, so their arguments are copied once here:
// they are not on the hot path this chapter measures, and package hashes
// is left as it is.
func bookHash(fn func(cmd []string, w replyWriter)) bookHandler {
	return func(cmd [][]byte, w replyWriter) { fn(hashArgs(cmd), w) }
}

// bookHSet is the book's hset, which takes pairs of field and value: an
// odd count of arguments is not a command it knows.
func bookHSet(cmd [][]byte, w replyWriter) {
	if len(cmd)%2 != 0 {
		w.outErr(proto.CodeUnknown, "Unknown cmd")
		return
	}
	bookHash(doHSet)(cmd, w)
}

// cmdIs compares words (a command's options) as the book's strcasecmp
// compares command names, and as lookupCommand finds a command: the ASCII
// letters A-Z match a-z, and every other byte matches only itself.
// strings.EqualFold would also fold Unicode, and take "\u017fx" (a long s)
// for "sx" or "\u212ax" (the Kelvin sign) for "kx". Unlike strcasecmp,
// which stops at a NUL, the whole word counts: "nx\x00" is not nx. The
// word may be bytes in the read buffer, compared where they are.
func cmdIs[S ~string | ~[]byte](word S, cmd string) bool {
	if len(word) != len(cmd) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if asciiLower(word[i]) != asciiLower(cmd[i]) {
			return false
		}
	}
	return true
}

// asciiLower lowers an ASCII capital letter and returns any other byte as
// it is.
func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func doGet(cmd [][]byte, w replyWriter) {
	ent := lookupEntry(cmd[1])
	if ent == nil {
		w.outNil()
		return
	}
	if ent.typ() != tStr {
		w.outErr(proto.CodeType, "expect string type")
		return
	}
	w.outStr(ent.val())
}

func doSet(cmd [][]byte, w replyWriter) {
	if ent := lookupEntry(cmd[1]); ent != nil {
		if ent.typ() != tStr {
			w.outErr(proto.CodeType, "expect string type")
			return
		}
		ent.setVal(cmd[2])
	} else {
		insertEntry(newEntry(cmd[1], cmd[2]))
	}
	w.outNil()
}

// doDel replies 1 if the key existed, else 0.
func doDel(cmd [][]byte, w replyWriter) {
	key := cmd[1]
	ent := gData.db.Delete(keytable.Hash(key), func(e *entry) bool {
		return e.key() == string(key)
	})
	if ent == nil {
		w.outInt(0)
		return
	}
	entryDel(ent)
	w.outInt(1)
}

// kLargeContainerSize is the size above which a sorted set is torn down on
// the thread pool rather than by the event loop.
const kLargeContainerSize = 10000

// entryDestroy tears down an entry's value.
func entryDestroy(ent *entry) {
	switch ent.typ() {
	case tZSet:
		ent.obj.zset.Clear()
	case tHash:
		ent.obj.hash.Hash = hashes.Hash{}
	}
}

// entryDel disposes of an entry removed from the key space, TTL timer
// included. A large value is handed to the thread pool: the entry is no
// longer reachable from the key space, so the worker has it to itself.
func entryDel(ent *entry) {
	touchKey(ent.key()) // every deletion comes here: for WATCH
	entrySetTTL(ent, -1)
	if ent.typ() == tHash && ent.obj.hash.timerIdx != -1 {
		heap.Delete(&gData.fieldHeap, int(ent.obj.hash.timerIdx), fieldIdx)
	}
	if n := containerLen(ent); n > kLargeContainerSize {
		gData.tp.Queue(func() { entryDestroy(ent) })
	} else {
		workDone += n // torn down here: one item each
		entryDestroy(ent)
	}
}

// kMaxReply is the largest reply that fits in one message: the 4-byte
// length header counts against proto.KMaxMsg.
const kMaxReply = proto.KMaxMsg - 4

// outTooBig appends the error that replaces a reply too big for one
// message. Commands that can tell in advance answer it before doing the
// work: one that changes data must not change it and then fail, and one
// that lists a large collection must not build a reply only to drop it.
func outTooBig(w replyWriter) {
	w.outErr(proto.Code2Big, "response is too big")
}

// doKeys replies with every key, as an array of strings.
func doKeys(cmd [][]byte, w replyWriter) {
	// Every key takes at least 5 bytes of the reply (a tag and a length),
	// so past kMaxReply/5 keys the reply cannot fit: refuse it before
	// walking the key space.
	if 5+5*gData.db.Len() > kMaxReply {
		outTooBig(w)
		return
	}
	w.outArr(gData.db.Len())
	gData.db.All(func(ent *entry) {
		w.outStr(ent.key())
	})
}

// str2dbl parses a score as the book's does: C's strtod must use the
// whole string, and NaN is refused because it cannot be ordered. So, as in
// the book, " 1", "0x10" (16), "1e400" (+inf) and even "" (0) are scores;
// package cnum has strtod's rules.
func str2dbl(s string) (float64, bool) {
	f, n := cnum.Strtod(s)
	return f, n == len(s) && !math.IsNaN(f)
}

// str2int parses an int64 as the book's does: C's strtoll in base 10 must
// use the whole string. So leading white space, a + sign and "" (0) are
// accepted, and a value out of range is clamped to the int64 limits, as
// strtoll does (the book does not look at errno).
func str2int(s string) (int64, bool) {
	v, n := cnum.Strtoll(s)
	return v, n == len(s)
}

// doZAdd: zadd key score name. Creates the sorted set if the key is new;
// replies 1 if name was added, 0 if its score was updated.
func doZAdd(cmd [][]byte, w replyWriter) {
	score, ok := str2dbl(string(cmd[2]))
	if !ok {
		w.outErr(proto.CodeArg, "expect fp number")
		return
	}
	ent, ok := zsetOf(w, cmd[1])
	if !ok {
		return
	}
	if ent == nil {
		ent = newEntry(cmd[1], nil)
		ent.obj = &object{zset: &zset.ZSet{}}
		insertEntry(ent)
	}
	chargeMembers(1)
	// A new member or a new score is a change, for WATCH and for the log,
	// whether or not the key is watched.
	if node := ent.obj.zset.LookupBytes(cmd[3]); node == nil || node.Score() != score {
		touchKey(cmd[1])
	}
	added := ent.obj.zset.AddBytes(cmd[3], score)
	if added {
		w.outInt(1)
		return
	}
	w.outInt(0)
}

// zsetOf finds the sorted set at key for a command of either protocol:
// nil if there is no such key. A key of another type is answered here,
// with the type error (WRONGTYPE over RESP), and reported false: the
// command has nothing more to say.
func zsetOf(w replyWriter, key []byte) (*entry, bool) {
	ent := lookupEntry(key)
	if ent != nil && ent.typ() != tZSet {
		w.outErr(proto.CodeType, "expect zset")
		return nil, false
	}
	return ent, true
}

// zsetFor is zsetOf for a command with nothing to do without a sorted
// set: a missing key is answered too, with none's reply. A nil entry then
// always means that the reply is written.
func zsetFor(w replyWriter, key []byte, none func(replyWriter)) *entry {
	ent, ok := zsetOf(w, key)
	if ok && ent == nil {
		none(w)
	}
	return ent
}

// doZRem: zrem key name. Replies 1 if name was removed, 0 if absent.
func doZRem(cmd [][]byte, w replyWriter) {
	ent := zsetFor(w, cmd[1], replyWriter.outNil)
	if ent == nil {
		return
	}
	chargeMembers(1)
	if ent.obj.zset.Pop(string(cmd[2])) == nil {
		w.outInt(0)
		return
	}
	touchKey(cmd[1])
	w.outInt(1)
}

// doZScore: zscore key name. Replies the score, or nil.
func doZScore(cmd [][]byte, w replyWriter) {
	ent := zsetFor(w, cmd[1], replyWriter.outNil)
	if ent == nil {
		return
	}
	chargeMembers(1)
	znode := ent.obj.zset.LookupBytes(cmd[2])
	if znode == nil {
		w.outNil()
		return
	}
	w.outDbl(znode.Score())
}

// doZQuery: zquery key score name offset limit. Finds the first member at
// or after (score, name), moves offset places by rank, and replies a flat
// array of name, score, name, score, ... holding at most limit elements.
func doZQuery(cmd [][]byte, w replyWriter) {
	score, ok := str2dbl(string(cmd[2]))
	if !ok {
		w.outErr(proto.CodeArg, "expect fp number")
		return
	}
	name := string(cmd[3])
	offset, ok1 := str2int(string(cmd[4]))
	limit, ok2 := str2int(string(cmd[5]))
	if !ok1 || !ok2 {
		w.outErr(proto.CodeArg, "expect int")
		return
	}

	ent, ok := zsetOf(w, cmd[1])
	if !ok {
		return
	}
	if ent == nil || limit <= 0 {
		w.outArr(0) // a missing key is an empty set
		return
	}
	znode := ent.obj.zset.SeekGE(score, name)
	if znode != nil {
		znode = ent.obj.zset.Offset(znode, offset)
	}

	arr := w.beginArr() // the count is filled in at the end
	n := 0
	for znode != nil && int64(n) < limit {
		if w.size()-arr > kMaxReply {
			w.truncate(arr)
			outTooBig(w) // stop as soon as it cannot fit
			return
		}
		w.outStr(znode.Name())
		w.outDbl(znode.Score())
		workDone += kVisitWork
		znode = ent.obj.zset.Offset(znode, +1)
		n += 2
	}
	w.endArr(arr, n)
}

// entrySetTTL gives a key a TTL of ttlMs milliseconds from now, or with a
// negative ttlMs takes its TTL away.
func entrySetTTL(ent *entry, ttlMs int64) {
	if ttlMs < 0 {
		if ent.heapIdx != -1 {
			heap.Delete(&gData.heap, int(ent.heapIdx), ttlIdx)
			touchKey(ent.key())
		}
		return
	}
	touchKey(ent.key())
	nowUs := getMonotonicUsec()
	var expireAt uint64
	if uint64(ttlMs) < (kFarTimer-nowUs)/1000 {
		expireAt = nowUs + uint64(ttlMs)*1000
	} else {
		// Past the monotonic timers' reach: the unix time itself, as far
		// as an int64 of milliseconds goes (see kFarTimer).
		nowMs := keyNowMs()
		expireAt = unixMsTimer(nowMs + min(ttlMs, math.MaxInt64-nowMs))
	}
	heap.Upsert(&gData.heap, int(ent.heapIdx), heap.HeapItem[entry]{Val: expireAt, Owner: ent}, ttlIdx)
}

// doExpire: pexpire key ms. Sets the key's TTL (a negative ms removes it);
// replies 1 if the key exists, else 0.
func doExpire(cmd [][]byte, w replyWriter) {
	ttlMs, ok := str2int(string(cmd[2]))
	if !ok {
		w.outErr(proto.CodeArg, "expect int64")
		return
	}
	ent := lookupEntry(cmd[1])
	if ent == nil {
		w.outInt(0)
		return
	}
	entrySetTTL(ent, ttlMs)
	w.outInt(1)
}

// doTTL: pttl key. Replies the milliseconds left, -1 if the key has no TTL,
// or -2 if there is no such key.
func doTTL(cmd [][]byte, w replyWriter) {
	ent := lookupEntry(cmd[1])
	if ent == nil {
		w.outInt(-2)
		return
	}
	if ent.heapIdx == -1 {
		w.outInt(-1)
		return
	}
	expireAt := gData.heap[ent.heapIdx].Val
	if expireAt >= kFarTimer {
		w.outInt(timerUnixMs(expireAt) - keyNowMs())
		return
	}
	nowUs := getMonotonicUsec()
	if expireAt <= nowUs {
		w.outInt(0) // due, but not yet removed
		return
	}
	w.outInt(int64((expireAt - nowUs) / 1000))
}
