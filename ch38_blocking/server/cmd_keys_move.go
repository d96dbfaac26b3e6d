package server

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"example.com/byor/ch38_blocking/quicklist"
	"example.com/byor/ch38_blocking/zset"
)

// The commands that move, copy or pick keys (RENAME, RENAMENX, COPY,
// RANDOMKEY), those of databases (SWAPDB, MOVE; SELECT is with the
// connection's), and TIME.

// Redis's errors for a missing source key, for a source that is its own
// destination, and for a database other than 0.
const (
	errNoSuchKey  = "ERR no such key"
	errSameObject = "ERR source and destination objects are the same"
	errDBIndex    = "ERR DB index is out of range"
	// errIntRange is Redis's error for an integer argument past C's int.
	errIntRange = "ERR value is out of range, value must between -2147483648 and 2147483647"
)

// errCopyTooBig refuses a COPY of a value larger than kCopyMaxItems or
// kCopyMaxBytes.
var errCopyTooBig = "ERR COPY is refused for a value of more than " + strconv.Itoa(kCopyMaxItems) +
	" members or fields, or " + strconv.Itoa(kCopyMaxBytes) + " bytes: the copy would stall the server"

// respRename: RENAME key newkey moves the value, its TTL with it, and
// deletes what newkey held. RENAMENX (nx) moves it only if newkey does
// not exist, and answers 1 or 0.
//
// The entry itself moves: it leaves the key table under its old key and
// comes back under the new one, so its TTL timer and a hash's field timer,
// which point at the entry, go with it. A string's value shares one
// string with its key, so renaming a string copies it (charged by the
// byte); a sorted set or a hash is not copied. The value newkey held is
// torn down as DEL would: a large one on the thread pool.
func respRename(nx bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		ent := lookupEntry(args[1])
		if ent == nil {
			w.err(errNoSuchKey)
			return
		}
		if string(args[1]) == string(args[2]) {
			if nx {
				w.outInt(0)
			} else {
				w.simple("OK")
			}
			return
		}
		if old := lookupEntry(args[2]); old != nil {
			if nx {
				w.outInt(0)
				return
			}
			removeEntry(old)
			entryDel(old)
		}
		removeEntry(ent)
		touchKey(args[1])
		if ent.obj == nil { // the value follows the key in kv
			val := ent.val()
			ent.kv = string(args[2]) + val
			chargeBytes(len(val))
		} else {
			ent.kv = string(args[2])
		}
		// The snapshot's mark stays: snapshotBeforeWrite has written the
		// key under its old name if the running snapshot had not yet.
		ent.klen = uint32(len(args[2])) | ent.klen&kSnapMark
		insertEntry(ent)
		if nx {
			w.outInt(1)
		} else {
			w.simple("OK")
		}
	}
}

// The largest value COPY copies. Copying is O(n) work that the request's
// few bytes do not pay for, done in one go on the event loop; past these
// bounds it would hold the loop longer than the longest transaction may
// (kMaxExecWork), so it is refused instead, as KEYS over too many keys is.
// Redis copies any size.
const (
	kCopyMaxItems = 30000
	kCopyMaxBytes = 128 << 20
	// kCopyItemWork is what copying one member or field costs: it is
	// visited in order and inserted in the copy, found by name.
	kCopyItemWork = kVisitWork + kMemberWork
)

// respCopy: COPY source destination [DB 0] [REPLACE] copies the value and
// its TTL, and answers 1, or 0 if destination exists and REPLACE is not
// given (or source does not exist). There is one database: DB 0 is this
// one, any other index is out of range, as in a Redis with "databases 1".
func respCopy(st *respState, w *respWriter, args [][]byte) {
	replace := false
	for i := 3; i < len(args); i++ {
		switch {
		case cmdIs(args[i], "replace"):
			replace = true
		case cmdIs(args[i], "db") && i+1 < len(args):
			db, ok := respInt(args[i+1])
			if !ok {
				w.err(errNotInt)
				return
			}
			if db < math.MinInt32 || db > math.MaxInt32 {
				w.err(errIntRange)
				return
			}
			if db != 0 {
				w.err(errDBIndex)
				return
			}
			i++
		default:
			w.err(errSyntax)
			return
		}
	}
	if string(args[1]) == string(args[2]) {
		w.err(errSameObject)
		return
	}
	src := lookupEntry(args[1])
	if src == nil {
		w.outInt(0)
		return
	}
	dst := lookupEntry(args[2])
	if dst != nil && !replace {
		w.outInt(0)
		return
	}
	// exercise: ch29-rename-copy
	if copyTooBig(src) {
		w.err(errCopyTooBig)
		return
	}
	if dst != nil {
		removeEntry(dst)
		entryDel(dst)
	}
	cp := copyEntry(src, args[2])
	insertEntry(cp)
	if at := entryExpireMs(src, 0); at != -1 {
		entrySetExpireAt(cp, at)
	}
	if cp.typ() == tHash {
		hashTimerUpdate(cp)
	}
	w.outInt(1)
	// end exercise: ch29-rename-copy
}

// copyTooBig reports whether src is past COPY's bounds. A list counts by
// its nodes and bytes (listCopyWork): it is copied a node, not an
// element, at a time.
func copyTooBig(src *entry) bool {
	switch src.typ() {
	case tStr:
		return len(src.val()) > kCopyMaxBytes
	case tList:
		return listCopyWork(src.obj.list) > kMaxExecWork
	}
	return containerLen(src) > kCopyMaxItems
}

// listCopyWork is what copying the list l costs: some 200 ns a node
// (measured: 4M nodes of one element in 740 ms), and its bytes.
func listCopyWork(l *quicklist.List) int { return 4*l.Nodes() + l.Bytes()/kWorkBytes }

// copyEntry returns a new entry for key holding a copy of src's value, not
// yet in the key space, and charges the copying.
func copyEntry(src *entry, key []byte) *entry {
	switch src.typ() {
	case tZSet:
		cp := newEntry(key, nil)
		z := &zset.ZSet{}
		for node := src.obj.zset.SeekGE(math.Inf(-1), ""); node != nil; node = src.obj.zset.Offset(node, 1) {
			z.Add(node.Name(), node.Score())
		}
		workDone += z.Len() * kCopyItemWork
		cp.obj = &object{zset: z}
		return cp
	case tHash:
		cp := newEntry(key, nil)
		h := &hashValue{timerIdx: -1}
		now := getUnixMs()
		pairs := src.obj.hash.GetAll(now)
		for _, p := range pairs {
			if at := src.obj.hash.ExpireTime(now, p.Name); at >= 0 {
				h.SetExpireAt(now, p.Name, p.Value, uint64(at))
			} else {
				h.Set(now, p.Name, p.Value)
			}
		}
		// Walked once, each field looked up once more for its expiry.
		workDone += src.obj.hash.StoredLen()*kVisitWork + len(pairs)*(kCopyItemWork+kMemberWork)
		cp.obj = &object{hash: h}
		return cp
	case tList:
		cp := newEntry(key, nil)
		workDone += listCopyWork(src.obj.list)
		cp.obj = &object{list: src.obj.list.Clone()}
		return cp
	}
	val := src.val()
	chargeBytes(len(key) + len(val))
	return &entry{kv: string(key) + val, klen: uint32(len(key)) | snapMark, heapIdx: -1} // a new key, as newEntry's
}

// respRandomKey: RANDOMKEY answers a key picked at random, or null if
// there is none. Redis picks a random bucket until one holds a key;
// here a random place in the key table's order is tried, and the keys of
// the few slots from there (keytable.Scan; past the end of the order, on
// from its start) are picked from, a bounded probe each time
// (kRandomWork). Slots that hold no key, or a table changing its salt
// (when Scan walks nothing), take another try, up to
// kRandomTries: only a table in the middle of a change of salt (which a
// hostile client's keys can cause) may run out of them, and then the
// first key from place 0 on is answered.
func respRandomKey(st *respState, w *respWriter, args [][]byte) {
	if ent := randomEntry(); ent != nil {
		w.outStr(ent.key())
		return
	}
	w.outNil()
}

// The bounds of RANDOMKEY's probing: the tries, the slots one try walks,
// and its work.
const (
	kRandomTries = 16
	kRandomSlots = 4
	kRandomWork  = 256
)

// randomEpoch holds the epoch of the key table's order (the top 32 bits
// of a SCAN cursor), learnt from the cursors Scan answers: a cursor of
// another epoch starts at place 0.
var randomEpoch uint64

// randomEntry returns a key picked at random, or nil if there is none.
func randomEntry() *entry {
	if gData.db.Len() == 0 {
		return nil
	}
	// A table that deletes left sparse (a million keys made, all but a
	// few deleted) would make every try miss and the walk below cross
	// all its empty slots, each time: shrink it once instead.
	workDone += gData.db.Compact()
	var picked []*entry
	take := func(group []*entry) bool {
		picked = append(picked, group...)
		return true
	}
	for range kRandomTries {
		picked = picked[:0]
		cursor := randomEpoch<<32 | uint64(rand.Uint32())
		next, work := gData.db.Scan(cursor, kRandomSlots, kRandomWork, take)
		workDone += work
		if next != 0 && next>>32 != randomEpoch {
			// The order changed since the last pick: Scan started at
			// place 0, not at the place drawn. Try again in the new one.
			randomEpoch = next >> 32
			continue
		}
		if next == 0 && work < kRandomWork {
			// The stretch ran into the end of the range: it goes on from
			// place 0, as if the range were a ring. Without that, a key
			// placed just after 0 would be in almost no stretch, and
			// almost never answered. (Its first slots are now in a few
			// more stretches than the rest: at most twice as many.)
			_, w := gData.db.Scan(randomEpoch<<32, kRandomSlots, kRandomWork-work, take)
			workDone += w
		}
		if len(picked) > 0 {
			return picked[rand.IntN(len(picked))]
		}
	}
	// Out of tries: the first keys from place 0 on, however far.
	for cursor := uint64(0); ; {
		picked = picked[:0]
		next, work := gData.db.Scan(cursor, kRandomSlots, kRandomWork, take)
		workDone += work
		if len(picked) > 0 {
			return picked[0]
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// respTime: TIME answers the unix time, in seconds and microseconds, as
// two strings.
func respTime(st *respState, w *respWriter, args [][]byte) {
	us := time.Now().UnixMicro()
	w.outArr(2)
	w.outStr(strconv.FormatInt(us/1e6, 10))
	w.outStr(strconv.FormatInt(us%1e6, 10))
}

// respSwapDB: SWAPDB index1 index2, as a server of one database answers
// it: 0 with 0 is no change, any other index is out of range.
func respSwapDB(st *respState, w *respWriter, args [][]byte) {
	a, ok := respInt(args[1])
	if !ok || a < math.MinInt32 || a > math.MaxInt32 {
		w.err("ERR invalid first DB index")
		return
	}
	b, ok := respInt(args[2])
	if !ok || b < math.MinInt32 || b > math.MaxInt32 {
		w.err("ERR invalid second DB index")
		return
	}
	if a != 0 || b != 0 {
		w.err(errDBIndex)
		return
	}
	w.simple("OK")
}

// respMove: MOVE key db, as a server of one database answers it: db 0 is
// the key's own database, any other is out of range.
func respMove(st *respState, w *respWriter, args [][]byte) {
	db, ok := respInt(args[2])
	switch {
	case !ok:
		w.err(errNotInt)
	case db < math.MinInt32 || db > math.MaxInt32:
		w.err(errIntRange)
	case db != 0:
		w.err(errDBIndex)
	default:
		w.err(errSameObject)
	}
}

// costRename: RENAME tears down what newkey held, and copies a string's
// value with its new key (respRename).
func costRename(p *execPlan, args [][]byte) int {
	n := p.dropBound(args[2]) + p.strLen(args[1])/kWorkBytes
	p.addBytes(args[2], p.strLen(args[1]))
	p.addItems(args[2], p.itemLen(args[1]))
	return n
}

// costCopy: COPY copies the value, each member or field at kCopyItemWork
// (and a hash's looked up again for its expiry), a string by the byte, up
// to the bounds past which it refuses; and tears down what REPLACE drops.
func costCopy(p *execPlan, args [][]byte) int {
	items := min(p.itemLen(args[1]), kCopyMaxItems)
	bytes := min(p.strLen(args[1]), kCopyMaxBytes)
	p.addBytes(args[2], bytes)
	p.addItems(args[2], items)
	return items*(kCopyItemWork+kMemberWork) + (len(args[2])+bytes)/kWorkBytes + p.dropBound(args[2])
}

// costRandomKey: RANDOMKEY's shrink of a sparse key table (the first
// RANDOMKEY's, which leaves it not sparse), its tries, each a bounded
// probe, and past them the walk to the first key (which only a table
// changing its salt needs), bounded by the key table's slots.
func costRandomKey(p *execPlan, args [][]byte) int {
	n := kRandomTries*kRandomWork + 4*p.keys() + 16
	if !p.compacted {
		n += gData.db.CompactWork()
		p.compacted = true
	}
	return n
}

// errNoMulti is Redis's error for a command not allowed inside MULTI.
const errNoMulti = "ERR Command not allowed inside a transaction"
