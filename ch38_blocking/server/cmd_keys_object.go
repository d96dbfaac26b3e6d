package server

import "math"

// OBJECT and MEMORY USAGE: what tools ask about one key's value.

// The names OBJECT ENCODING gives the server's structures. They are this
// server's own, not Redis's, except where the structure is the same:
//
//   - embstr: a string stored in one allocation with its key (entry.kv),
//     as Redis's embstr shares one with the object's header;
//   - raw: a string APPEND has grown, in a buffer of its own with room to
//     grow, as Redis's raw strings are;
//   - avltree: a sorted set, an AVL tree in (score, name) order and a hash
//     table by name (package zset), where Redis has a skiplist or a
//     listpack;
//   - hashtable: a hash, a chaining hash table (package hashes), as
//     Redis's large hashes are;
//   - quicklist: a list, nodes of listpacks linked both ways (package
//     quicklist), as Redis 7.0's lists are.
//
// There is no "int" (numbers are stored as the strings they were given)
// and no compact listpack for small values.
func encodingName(ent *entry) string {
	switch ent.typ() {
	case tZSet:
		return "avltree"
	case tHash:
		return "hashtable"
	case tList:
		return "quicklist"
	}
	if ent.obj != nil {
		return "raw"
	}
	return "embstr"
}

// respObjectLookup finds the key of an OBJECT subcommand, answering null
// for a missing one, as Redis does for each of them.
func respObjectLookup(w *respWriter, key []byte) *entry {
	ent := lookupEntry(key)
	if ent == nil {
		w.outNil()
	}
	return ent
}

// respObjectEncoding: OBJECT ENCODING key.
func respObjectEncoding(st *respState, w *respWriter, args [][]byte) {
	if ent := respObjectLookup(w, args[2]); ent != nil {
		w.outStr(encodingName(ent))
	}
}

// respObjectFreq: OBJECT FREQ key. Access frequencies are kept only under
// an LFU eviction policy; this server evicts nothing (its policy is
// noeviction), so it answers Redis's error for that case.
func respObjectFreq(st *respState, w *respWriter, args [][]byte) {
	if respObjectLookup(w, args[2]) != nil {
		w.err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. " +
			"Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	}
}

// respObjectIdleTime: OBJECT IDLETIME key. Redis keeps the time of each
// key's last access for its LRU eviction; this server evicts nothing and
// keeps no such time (an entry is 32 bytes, every one of them used), so
// every key answers 0 seconds.
func respObjectIdleTime(st *respState, w *respWriter, args [][]byte) {
	if respObjectLookup(w, args[2]) != nil {
		w.outInt(0)
	}
}

// respObjectRefCount: OBJECT REFCOUNT key. No value is shared between
// keys here, so each has one reference.
func respObjectRefCount(st *respState, w *respWriter, args [][]byte) {
	if respObjectLookup(w, args[2]) != nil {
		w.outInt(1)
	}
}

// objectHelp is OBJECT HELP's text.
var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    The structure that holds the value of <key>: embstr or raw for a string,",
	"    avltree for a sorted set, hashtable for a hash.",
	"FREQ <key>",
	"    The access frequency of <key>, kept only under an LFU eviction policy",
	"    (this server has none: an error).",
	"IDLETIME <key>",
	"    Seconds since <key> was last used; this server keeps no such time: 0.",
	"REFCOUNT <key>",
	"    The references to the value of <key>: always 1 here.",
	"HELP",
	"    Print this help.",
}

// respObjectHelp: OBJECT HELP.
func respObjectHelp(st *respState, w *respWriter, args [][]byte) {
	w.outArr(len(objectHelp))
	for _, line := range objectHelp {
		w.simple(line)
	}
}

// The sizes MEMORY USAGE adds up: what Go's allocator hands out for each
// structure (its size class), and a slot of the key table.
const (
	kEntryBytes    = 32                    // entry
	kKeySlotBytes  = 9                     // a key table slot: a pointer and a tag
	kObjectBytes   = 32                    // object, rounded to its size class
	kZNodeBytes    = 96                    // zset.ZNode
	kHashFieldSize = 64                    // hashes' field
	kBucketBytes   = 8                     // a chain's head in a hash table
	kHashSetBytes  = 48 + kObjectBytes + 8 // zset.ZSet or hashValue, and the object
	kStrBufBytes   = 24                    // strBuf
	kListBytes     = 48                    // quicklist.List
	kListNodeBytes = 48                    // a quicklist node, its listpack apart
	kDefaultSample = 5                     // as Redis's MEMORY USAGE
)

// allocSize rounds n up as the allocator does, near enough: to 8 bytes
// under 128, to 16 under 1 KiB, to 128 above.
func allocSize(n int) int {
	switch {
	case n == 0:
		return 0
	case n < 128:
		return (n + 7) &^ 7
	case n < 1024:
		return (n + 15) &^ 15
	}
	return (n + 127) &^ 127
}

// respMemoryUsage: MEMORY USAGE key [SAMPLES count] estimates the bytes
// the key and its value take: the entry, the key table's slot, and the
// value's structures at their allocation sizes. A sorted set's members
// are sampled, count of them (5 by default, all for 0), and their names'
// average length stands for all. A hash's fields are not reachable one
// by one without a walk, so each counts its structure and 16 bytes of
// name and value: an estimate, as Redis's own is.
func respMemoryUsage(st *respState, w *respWriter, args [][]byte) {
	samples := int64(kDefaultSample)
	for i := 3; i < len(args); i++ {
		if !cmdIs(args[i], "samples") || i+1 >= len(args) {
			w.err(errSyntax)
			return
		}
		n, ok := respInt(args[i+1])
		switch {
		case !ok:
			w.err(errNotInt)
			return
		case n < 0:
			w.err(errSyntax)
			return
		case n == 0:
			n = math.MaxInt64
		}
		samples = n
		i++
	}
	ent := lookupEntry(args[2])
	if ent == nil {
		w.outNil()
		return
	}
	w.outInt(int64(memoryUsage(ent, samples)))
}

// memoryUsage estimates the bytes of ent, sampling up to samples members
// of a sorted set.
func memoryUsage(ent *entry, samples int64) int {
	n := kEntryBytes + kKeySlotBytes + allocSize(len(ent.kv))
	switch ent.typ() {
	case tZSet:
		z := ent.obj.zset
		names, seen := 0, 0
		for node := z.SeekGE(math.Inf(-1), ""); node != nil && int64(seen) < samples; node = z.Offset(node, 1) {
			names += len(node.Name())
			seen++
		}
		workDone += seen * kVisitWork
		if seen > 0 {
			n += z.Len() * (kZNodeBytes + kBucketBytes + allocSize(names/seen))
		}
		n += kHashSetBytes
	case tHash:
		n += kHashSetBytes + ent.obj.hash.StoredLen()*(kHashFieldSize+kBucketBytes+16)
	case tList:
		l := ent.obj.list
		n += kObjectBytes + kListBytes + l.Nodes()*kListNodeBytes + l.Bytes()
	default:
		if ent.obj != nil {
			n += kObjectBytes + kStrBufBytes + allocSize(ent.obj.str.Cap())
		}
	}
	return n
}

// costMemoryUsage: MEMORY USAGE samples a sorted set's members.
func costMemoryUsage(p *execPlan, args [][]byte) int {
	return p.itemLen(args[2]) * kVisitWork
}
