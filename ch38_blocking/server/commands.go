package server

import (
	"math"

	"example.com/byor/ch38_blocking/cnum"
	"example.com/byor/ch38_blocking/keytable"
	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/zset"
)

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
	case ent.typ() == tList:
		return "list"
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
