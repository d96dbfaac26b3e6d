package server

import (
	"math"

	"example.com/byor/ch17_syscalls/cnum"
	"example.com/byor/ch17_syscalls/dlist"
	"example.com/byor/ch17_syscalls/hashes"
	"example.com/byor/ch17_syscalls/hashtable"
	"example.com/byor/ch17_syscalls/heap"
	"example.com/byor/ch17_syscalls/proto"
	"example.com/byor/ch17_syscalls/sock"
	"example.com/byor/ch17_syscalls/threadpool"
	"example.com/byor/ch17_syscalls/zset"
)

// gData is the server's global state: the key space, now the book's own
// hashtable instead of a Go map, and the connections.
var gData struct {
	db hashtable.HMap[entry]
	// All connections, indexed by fd (the kernel hands out small fds).
	fd2conn []*conn
	// The poller (epoll, kqueue) that watches the listening socket and
	// every connection.
	poller sock.Poller
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

// entry is one key and its value. The hashtable links entries through the
// embedded node; node.Owner points back here (see package hashtable).
type entry struct {
	node hashtable.HNode[entry]
	key  string
	typ  uint32
	val  string
	zset *zset.ZSet
	// The position of the key's TTL timer in gData.heap, or -1 for none.
	heapIdx int
	hash    *hashes.Hash
	// The position of a hash's field-expiry timer in gData.fieldHeap, or
	// -1 when none of its fields has an expiry.
	fieldTimerIdx int
}

// entryEq is the hashtable's equality callback. Comparing the cached
// hashes first skips most string comparisons.
func entryEq(lhs, rhs *hashtable.HNode[entry]) bool {
	return lhs.HCode == rhs.HCode && lhs.Owner.key == rhs.Owner.key
}

// lookupKey returns a new entry holding only a key and its hash: enough
// for the hashtable to find the real entry, and the start of a new one
// when the key is absent.
func lookupKey(key string) *entry {
	k := &entry{key: key, heapIdx: -1, fieldTimerIdx: -1}
	k.node.Owner = k
	k.node.HCode = hashtable.StrHash(key)
	return k
}

// doRequest runs one command and appends its serialized reply to out.
func doRequest(cmd []string, out []byte) []byte {
	switch {
	case len(cmd) == 1 && cmdIs(cmd[0], "keys"):
		return doKeys(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "get"):
		return doGet(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "set"):
		return doSet(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "del"):
		return doDel(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "pexpire"):
		return doExpire(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "pttl"):
		return doTTL(cmd, out)
	case len(cmd) == 4 && cmdIs(cmd[0], "zadd"):
		return doZAdd(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "zrem"):
		return doZRem(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "zscore"):
		return doZScore(cmd, out)
	case len(cmd) == 6 && cmdIs(cmd[0], "zquery"):
		return doZQuery(cmd, out)
	case len(cmd) >= 4 && len(cmd)%2 == 0 && cmdIs(cmd[0], "hset"):
		return doHSet(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "hget"):
		return doHGet(cmd, out)
	case len(cmd) >= 3 && cmdIs(cmd[0], "hdel"):
		return doHDel(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "hlen"):
		return doHLen(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "hexists"):
		return doHExists(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "hgetall"):
		return doHGetAll(cmd, out)
	case len(cmd) >= 3 && (cmdIs(cmd[0], "hexpire") || cmdIs(cmd[0], "hpexpire") ||
		cmdIs(cmd[0], "hexpireat") || cmdIs(cmd[0], "hpexpireat")):
		return doHExpire(cmd, out)
	case len(cmd) >= 3 && cmdIs(cmd[0], "hpersist"):
		return doHPersist(cmd, out)
	case len(cmd) >= 3 && (cmdIs(cmd[0], "httl") || cmdIs(cmd[0], "hpttl") ||
		cmdIs(cmd[0], "hexpiretime") || cmdIs(cmd[0], "hpexpiretime")):
		return doHTTL(cmd, out)
	case len(cmd) >= 3 && cmdIs(cmd[0], "hsetex"):
		return doHSetEx(cmd, out)
	case len(cmd) >= 3 && cmdIs(cmd[0], "hgetex"):
		return doHGetEx(cmd, out)
	default:
		// An unknown name, or a known one with the wrong number of arguments.
		return proto.OutErr(out, proto.CodeUnknown, "Unknown cmd")
	}
}

// cmdIs compares command names as the book's strcasecmp does: the ASCII
// letters A-Z match a-z, and every other byte matches only itself.
// strings.EqualFold would also fold Unicode, and run set for "\u017fet"
// (a long s) or keys for "\u212aeys" (the Kelvin sign). Unlike strcasecmp,
// which stops at a NUL, the whole name counts: "get\x00" is not get.
func cmdIs(word, cmd string) bool {
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

func doGet(cmd []string, out []byte) []byte {
	node := gData.db.Lookup(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.OutNil(out)
	}
	if node.Owner.typ != tStr {
		return proto.OutErr(out, proto.CodeType, "expect string type")
	}
	return proto.OutStr(out, node.Owner.val)
}

func doSet(cmd []string, out []byte) []byte {
	key := lookupKey(cmd[1])
	if node := gData.db.Lookup(&key.node, entryEq); node != nil {
		if node.Owner.typ != tStr {
			return proto.OutErr(out, proto.CodeType, "expect string type")
		}
		node.Owner.val = cmd[2]
	} else {
		key.val = cmd[2]
		gData.db.Insert(&key.node)
	}
	return proto.OutNil(out)
}

// doDel replies 1 if the key existed, else 0.
func doDel(cmd []string, out []byte) []byte {
	node := gData.db.Pop(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.OutInt(out, 0)
	}
	entryDel(node.Owner)
	return proto.OutInt(out, 1)
}

// kLargeContainerSize is the size above which a sorted set is torn down on
// the thread pool rather than by the event loop.
const kLargeContainerSize = 10000

// entryDestroy tears down an entry's value.
func entryDestroy(ent *entry) {
	switch ent.typ {
	case tZSet:
		ent.zset.Clear()
	case tHash:
		*ent.hash = hashes.Hash{}
	}
}

// entryDel disposes of an entry removed from the key space, TTL timer
// included. A large value is handed to the thread pool: the entry is no
// longer reachable from the key space, so the worker has it to itself.
func entryDel(ent *entry) {
	entrySetTTL(ent, -1)
	if ent.fieldTimerIdx != -1 {
		heap.Delete(&gData.fieldHeap, ent.fieldTimerIdx)
	}
	tooBig := ent.typ == tZSet && ent.zset.Len() > kLargeContainerSize ||
		ent.typ == tHash && ent.hash.StoredLen() > kLargeContainerSize
	if tooBig {
		gData.tp.Queue(func() { entryDestroy(ent) })
	} else {
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
func outTooBig(out []byte) []byte {
	return proto.OutErr(out, proto.Code2Big, "response is too big")
}

// doKeys replies with every key, as an array of strings.
func doKeys(cmd []string, out []byte) []byte {
	// Every key takes at least 5 bytes of the reply (a tag and a length),
	// so past kMaxReply/5 keys the reply cannot fit: refuse it before
	// walking the key space.
	if 5+5*gData.db.Size() > kMaxReply {
		return outTooBig(out)
	}
	out = proto.OutArr(out, uint32(gData.db.Size()))
	gData.db.Scan(func(node *hashtable.HNode[entry]) {
		out = proto.OutStr(out, node.Owner.key)
	})
	return out
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
func doZAdd(cmd []string, out []byte) []byte {
	score, ok := str2dbl(cmd[2])
	if !ok {
		return proto.OutErr(out, proto.CodeArg, "expect fp number")
	}
	key := lookupKey(cmd[1])
	var ent *entry
	if node := gData.db.Lookup(&key.node, entryEq); node != nil {
		ent = node.Owner
		if ent.typ != tZSet {
			return proto.OutErr(out, proto.CodeType, "expect zset")
		}
	} else {
		ent = key
		ent.typ = tZSet
		ent.zset = &zset.ZSet{}
		gData.db.Insert(&ent.node)
	}
	added := ent.zset.Add(cmd[3], score)
	if added {
		return proto.OutInt(out, 1)
	}
	return proto.OutInt(out, 0)
}

// lookupZSet finds key. It returns nil if there is no such key, and
// wrongType if the key holds something other than a sorted set.
func lookupZSet(key string) (ent *entry, wrongType bool) {
	node := gData.db.Lookup(&lookupKey(key).node, entryEq)
	if node == nil {
		return nil, false
	}
	return node.Owner, node.Owner.typ != tZSet
}

// doZRem: zrem key name. Replies 1 if name was removed, 0 if absent.
func doZRem(cmd []string, out []byte) []byte {
	ent, wrongType := lookupZSet(cmd[1])
	if wrongType {
		return proto.OutErr(out, proto.CodeType, "expect zset")
	}
	if ent == nil {
		return proto.OutNil(out)
	}
	if ent.zset.Pop(cmd[2]) == nil {
		return proto.OutInt(out, 0)
	}
	return proto.OutInt(out, 1)
}

// doZScore: zscore key name. Replies the score, or nil.
func doZScore(cmd []string, out []byte) []byte {
	ent, wrongType := lookupZSet(cmd[1])
	if wrongType {
		return proto.OutErr(out, proto.CodeType, "expect zset")
	}
	if ent == nil {
		return proto.OutNil(out)
	}
	znode := ent.zset.Lookup(cmd[2])
	if znode == nil {
		return proto.OutNil(out)
	}
	return proto.OutDbl(out, znode.Score())
}

// doZQuery: zquery key score name offset limit. Finds the first member at
// or after (score, name), moves offset places by rank, and replies a flat
// array of name, score, name, score, ... holding at most limit elements.
func doZQuery(cmd []string, out []byte) []byte {
	score, ok := str2dbl(cmd[2])
	if !ok {
		return proto.OutErr(out, proto.CodeArg, "expect fp number")
	}
	name := cmd[3]
	offset, ok1 := str2int(cmd[4])
	limit, ok2 := str2int(cmd[5])
	if !ok1 || !ok2 {
		return proto.OutErr(out, proto.CodeArg, "expect int")
	}

	ent, wrongType := lookupZSet(cmd[1])
	if wrongType {
		return proto.OutErr(out, proto.CodeType, "expect zset")
	}
	if ent == nil || limit <= 0 {
		return proto.OutArr(out, 0) // a missing key is an empty set
	}
	znode := ent.zset.SeekGE(score, name)
	if znode != nil {
		znode = ent.zset.Offset(znode, offset)
	}

	arr := len(out)
	out = proto.OutArr(out, 0) // the count is filled in at the end
	n := uint32(0)
	for znode != nil && int64(n) < limit {
		if len(out)-arr > kMaxReply {
			return outTooBig(out[:arr]) // stop as soon as it cannot fit
		}
		out = proto.OutStr(out, znode.Name())
		out = proto.OutDbl(out, znode.Score())
		znode = ent.zset.Offset(znode, +1)
		n += 2
	}
	proto.OutUpdateArr(out[arr:], n)
	return out
}

// entrySetTTL gives a key a TTL of ttlMs milliseconds from now, or with a
// negative ttlMs takes its TTL away.
func entrySetTTL(ent *entry, ttlMs int64) {
	if ttlMs < 0 {
		if ent.heapIdx != -1 {
			heap.Delete(&gData.heap, ent.heapIdx)
		}
		return
	}
	nowUs := getMonotonicUsec()
	expireAt := uint64(math.MaxUint64) // a TTL so long it cannot be reached
	if uint64(ttlMs) < (math.MaxUint64-nowUs)/1000 {
		expireAt = nowUs + uint64(ttlMs)*1000
	}
	heap.Upsert(&gData.heap, ent.heapIdx, heap.HeapItem[entry]{Val: expireAt, Ref: &ent.heapIdx, Owner: ent})
}

// doExpire: pexpire key ms. Sets the key's TTL (a negative ms removes it);
// replies 1 if the key exists, else 0.
func doExpire(cmd []string, out []byte) []byte {
	ttlMs, ok := str2int(cmd[2])
	if !ok {
		return proto.OutErr(out, proto.CodeArg, "expect int64")
	}
	node := gData.db.Lookup(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.OutInt(out, 0)
	}
	entrySetTTL(node.Owner, ttlMs)
	return proto.OutInt(out, 1)
}

// doTTL: pttl key. Replies the milliseconds left, -1 if the key has no TTL,
// or -2 if there is no such key.
func doTTL(cmd []string, out []byte) []byte {
	node := gData.db.Lookup(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.OutInt(out, -2)
	}
	ent := node.Owner
	if ent.heapIdx == -1 {
		return proto.OutInt(out, -1)
	}
	expireAt := gData.heap[ent.heapIdx].Val
	nowUs := getMonotonicUsec()
	if expireAt <= nowUs {
		return proto.OutInt(out, 0) // due, but not yet removed
	}
	return proto.OutInt(out, int64((expireAt-nowUs)/1000))
}
