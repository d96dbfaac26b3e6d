// The key space: the table of keys, the entries it holds and their values,
// and the functions through which every command finds, adds and removes a
// key.

package server

import (
	"math"
	"strings"
	"unsafe"

	"example.com/byor/ch38_blocking/dlist"
	"example.com/byor/ch38_blocking/hashes"
	"example.com/byor/ch38_blocking/heap"
	"example.com/byor/ch38_blocking/keytable"
	"example.com/byor/ch38_blocking/quicklist"
	"example.com/byor/ch38_blocking/sock"
	"example.com/byor/ch38_blocking/threadpool"
	"example.com/byor/ch38_blocking/zset"
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
	tList = 3 // a list, in list
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
	// The length of the key: kv[:klen] is the key, kv[klen:] the value;
	// but its top bit, which says which snapshot has the entry (see
	// snapMark in snapshot.go), and is masked off by keyLen.
	klen uint32
	// The position of the key's TTL timer in gData.heap, or -1 for none.
	heapIdx int32
}

// object is a value kept apart from the key: exactly one field is set.
type object struct {
	zset *zset.ZSet
	hash *hashValue
	list *quicklist.List
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
func (ent *entry) key() string { return ent.kv[:ent.keyLen()] }

// val returns the value of a string entry. The string of one grown by
// APPEND shares the builder's bytes: appends write past them, and a
// growth copies them to a new buffer; only SETRANGE and SETBIT write
// over them (writeAt), so the string lasts no longer than the command.
func (ent *entry) val() string {
	if ent.obj != nil && ent.obj.str != nil {
		return ent.obj.str.String()
	}
	return ent.kv[ent.keyLen():]
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
	case ent.obj.list != nil:
		return tList
	}
	return tHash
}

// newEntry returns a new entry for key holding the string val (nil for an
// entry about to get a sorted set or a hash), not yet in the key space. The
// key and the value are copied into one new string: one allocation; a
// large bulk string of the request is kept as it arrived (adoptArg).
func newEntry[S ~string | ~[]byte](key S, val []byte) *entry {
	if s := adoptArg(val); s != nil {
		return &entry{kv: strings.Clone(string(key)), obj: &object{str: s}, klen: uint32(len(key)) | snapMark, heapIdx: -1}
	}
	return &entry{kv: joinKV(key, val), klen: uint32(len(key)) | snapMark, heapIdx: -1}
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
	blockSignal(ent.key()) // a client may wait for it (blocking.go)
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
	snapshotKeep(ent)   // before it goes, into the snapshot running (snapshot.go)
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
