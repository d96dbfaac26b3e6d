package server

import "example.com/byor/ch38_blocking/keytable"

// Watching keys, for WATCH and EXEC: optimistic locking. EXEC fails (a
// null array) if a watched key was modified since WATCH, by anyone,
// through either protocol, or by its expiry. As in Redis, each watched key
// maps to the connections watching it (watchers), and every change of a
// key in the key space calls touchKey, which marks those connections
// dirty. touchKey is called from the key space's few mutation points
// (insertEntry, entryDel, entry.setVal, entrySetTTL in db.go), which
// every command of both protocols and the expiry timers go through, plus
// the commands that change a sorted set's or a hash's contents in place;
// a FLUSHALL marks the watchers of every key it drops (touchFlushed). A
// write that changes nothing (DEL of a missing key, SET NX of an existing
// one) touches nothing. A connection marked dirty stops watching the key
// written at once, so a key watched by many connections costs each of
// them once, however often it is written; its other keys it stops
// watching at its own EXEC, DISCARD or UNWATCH, counted in its own work,
// or once it has closed, a bounded number per loop iteration (see
// unwatchClosed below): a write costs what the written key's watchers
// cost, not every key they watch, and a close costs the loop a bounded
// share. With no watcher at all, touchKey is one length check: the
// book's hot path pays nothing.
//
// The key space's code calls touchKey on both listeners, and the timers
// too: it lives here, beside what it touches, not with the RESP commands
// that set watches up (respWatch, in cmd_multi.go).

// watchers maps each watched key to the connections watching it.
var watchers = map[string]map[*respState]struct{}{}

// watchersPeak is the most keys watchers has held since it was made.
var watchersPeak int

// touchKey notes that key was modified: each connection watching it will
// fail its EXEC. Called where the key space changes, whichever protocol
// or timer changes it (see the comment at the top of this file).
func touchKey[S ~string | ~[]byte](key S) {
	aofDirty++ // the command that runs is logged (aof.go)
	if len(watchers) == 0 {
		return // no transaction watches anything: the usual case
	}
	if set := watchers[string(key)]; len(set) > 0 {
		touchWatchers(string(key), set, lookupEntry(key) == nil)
	}
}

// touchWatchers marks the connections in set, which watch key, dirty,
// and takes them out of set: their EXEC will fail whatever else is
// touched, so a hot key watched by many costs each of them once. Their
// other watched keys stay in watchers until unwatchAll, which each of
// them runs, and pays for, when its transaction ends (or unwatchClosed,
// once it has closed): unwatching them all here made one write cost every key of every watcher (some 10^5 map
// operations for a key many clients watch with many others). A key gone
// now that was already due when watched has not changed (Redis 7.0);
// writing it again will be a change.
func touchWatchers(key string, set map[*respState]struct{}, gone bool) {
	// exercise: ch26-watch-exec
	for st := range set {
		if gone && st.tx.watched[key] {
			continue
		}
		st.tx.dirty = true
		delete(set, st) // its entry in st.tx.watched stays, and what it holds
	}
	if len(set) == 0 {
		delete(watchers, key)
	}
	// end exercise: ch26-watch-exec
}

// touchFlushed marks the connections watching keys that FLUSHALL drops
// with old. As in Redis, a watched key that did not exist is not touched.
// It walks the smaller of the two, the keys dropped or the keys watched,
// so that FLUSHALL costs no more than one walk of either, and a FLUSHALL
// of an empty key space (say, the second in one transaction) nothing.
func touchFlushed(old *keytable.Table[entry]) {
	switch {
	case len(watchers) == 0 || old.Len() == 0:
	case old.Len() < len(watchers):
		workDone += old.Len()
		old.All(func(ent *entry) {
			if set := watchers[ent.key()]; len(set) > 0 {
				touchWatchers(ent.key(), set, true)
			}
		})
	default:
		workDone += len(watchers)
		for key, set := range watchers {
			if old.Lookup(keytable.Hash(key), func(e *entry) bool { return e.key() == key }) != nil {
				touchWatchers(key, set, true)
			}
		}
	}
}

// entryDue reports whether the key's TTL is due though its timer has not
// yet reclaimed it (processTimers reclaims a bounded number per turn).
func entryDue(ent *entry) bool {
	return ent.heapIdx != -1 && gData.heap[ent.heapIdx].Val <= getMonotonicUsec()
}

// unwatchAll forgets the keys the connection watches, and gives back what
// they held.
func (st *respState) unwatchAll() {
	workDone += len(st.tx.watched)
	for key := range st.tx.watched {
		st.unwatchKey(key)
	}
	st.tx.watched = nil
	watchersShrink()
}

// unwatchKey takes the connection out of key's watchers, and gives back
// what the watch held; the caller forgets key in st.tx.watched. A key
// whose write made the connection dirty has already dropped it from its
// watchers (touchWatchers): deleting it again finds nothing, and a set
// another connection has made since for that key does not hold it either.
func (st *respState) unwatchKey(key string) {
	set := watchers[key]
	delete(set, st)
	if len(set) == 0 {
		delete(watchers, key)
	}
	size := len(key) + kWatchOverhead
	st.tx.held -= size
	st.tx.watchHeld -= size
	inputHeld -= size
}

// watchersShrink starts watchers afresh once it is empty after a peak: a
// Go map keeps its buckets when its entries are deleted, and a peak of
// watched keys would otherwise be held for good.
func watchersShrink() {
	if len(watchers) == 0 && watchersPeak > 1024 {
		watchers, watchersPeak = map[string]map[*respState]struct{}{}, 0
	}
}

// Closing a connection that watches keys. Each of its watched keys must
// leave watchers, one map operation each: up to kMaxWatched per
// connection, and the one budget admits about five million watched keys
// in all. Done at once, the connections one epoll_wait reports hung up
// would all be unwatched in that one loop iteration: 200 clients watching
// 10,000 keys each, closed together, held every other client for more
// than a second. So a connection that ends by itself (connHungUp: it hung
// up, broke the protocol or stayed idle too long) hands its watched keys
// to unwatchQueue, and each loop iteration unwatches at most kMaxUnwatch
// of them (unwatchClosed), as expiry reclaims at most kMaxWorks keys. The
// loop does not sleep while any wait (nextTimerMs).
//
// Until then the keys still count in the budget (inputHeld), and the
// closed connection still sits in their watchers. That is harmless: a
// write of such a key, or a FLUSHALL, marks it dirty and drops it from
// the key's watchers (touchWatchers), as it does a live watcher, and
// nothing reads that mark again; what touchWatchers reads and writes, the
// connection's txState, is still there, its respState held by the queue.
// When unwatchClosed reaches such a key, it finds nothing to delete in
// its watchers (unwatchKey). budgetMake, which closes the connection
// holding the most to make room, goes through connDone, which unwatches
// at once: the room is needed now, and that costs at most one
// connection's kMaxWatched keys.

// kMaxUnwatch bounds how many watched keys of closed connections one
// loop iteration unwatches: as many as expiry may reclaim (kMaxWorks).
const kMaxUnwatch = kMaxWorks

// unwatchQueue holds the closed connections whose watched keys are still
// to be unwatched, in the order they closed.
var unwatchQueue []*respState

// releaseLater is release for a connection that ended by itself: it gives
// back at once what the connection held but its watched keys, which it
// hands to unwatchQueue with what they hold.
func (st *respState) releaseLater() {
	watched, held := st.tx.watched, st.tx.watchHeld
	st.tx.watched, st.tx.watchHeld, st.tx.held = nil, 0, st.tx.held-held
	st.release() // its buffer, its name and its queue; no key to unwatch
	if len(watched) > 0 {
		st.tx.watched, st.tx.watchHeld, st.tx.held = watched, held, held
		unwatchQueue = append(unwatchQueue, st)
	}
}

// unwatchClosed unwatches at most limit watched keys of the connections in
// unwatchQueue, the first closed first, gives back what they held, and
// returns how many it unwatched. Each key is deleted from the closed
// connection's own map as it goes, so the next call starts with those
// left (a map's iteration may begin anywhere).
func unwatchClosed(limit int) int {
	n := 0
	for n < limit && len(unwatchQueue) > 0 {
		st := unwatchQueue[0]
		for key := range st.tx.watched {
			if n == limit {
				break
			}
			st.unwatchKey(key)
			delete(st.tx.watched, key)
			n++
		}
		if len(st.tx.watched) == 0 {
			st.tx = txState{}
			unwatchQueue[0] = nil
			unwatchQueue = unwatchQueue[1:]
		}
	}
	if len(unwatchQueue) == 0 {
		unwatchQueue = nil // the array a burst of closes grew
	}
	workDone += n
	watchersShrink()
	return n
}
