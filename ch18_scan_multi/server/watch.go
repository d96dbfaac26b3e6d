package server

import "example.com/byor/ch18_scan_multi/keytable"

// Watching keys, for WATCH and EXEC: optimistic locking. EXEC fails (a
// null array) if a watched key was modified since WATCH, by anyone,
// through either protocol, or by its expiry. As in Redis, each watched key
// maps to the connections watching it (watchers), and every change of a
// key in the key space calls touchKey, which marks those connections
// dirty. touchKey is called from the key space's few mutation points
// (insertEntry, entryDel, entry.setVal, entrySetTTL in commands.go), which
// every command of both protocols and the expiry timers go through, plus
// the commands that change a sorted set's or a hash's contents in place;
// a FLUSHALL marks the watchers of every key it drops (touchFlushed). A
// write that changes nothing (DEL of a missing key, SET NX of an existing
// one) touches nothing. A connection marked dirty stops watching the key
// written at once, so a key watched by many connections costs each of
// them once, however often it is written; its other keys it stops
// watching at its own EXEC, DISCARD, UNWATCH or close, counted in its own
// work: a write costs what the written key's watchers cost, not every key
// they watch. With no watcher at all, touchKey is one length check: the
// book's hot path pays nothing.
//
// The key space's code calls touchKey on both listeners, and the timers
// too: it lives here, beside what it touches, not with the RESP commands
// that set watches up (respWatch, in resp_multi.go).

// watchers maps each watched key to the connections watching it.
var watchers = map[string]map[*respState]struct{}{}

// watchersPeak is the most keys watchers has held since it was made.
var watchersPeak int

// keyWatched reports whether some connection watches key: callers that
// must do work to tell whether they change a key ask it first.
func keyWatched[S ~string | ~[]byte](key S) bool {
	if len(watchers) == 0 {
		return false
	}
	_, ok := watchers[string(key)]
	return ok
}

// touchKey notes that key was modified: each connection watching it will
// fail its EXEC. Called where the key space changes, whichever protocol
// or timer changes it (see the comment at the top of this file).
func touchKey[S ~string | ~[]byte](key S) {
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
// them runs, and pays for, when its transaction ends: unwatching them all
// here made one write cost every key of every watcher (some 10^5 map
// operations for a key many clients watch with many others). A key gone
// now that was already due when watched has not changed (Redis 7.0);
// writing it again will be a change.
func touchWatchers(key string, set map[*respState]struct{}, gone bool) {
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
// they held. A key whose write made the connection dirty has already
// dropped it from its watchers (touchWatchers): deleting it again finds
// nothing, and a set another connection has made since for that key does
// not hold it either.
func (st *respState) unwatchAll() {
	workDone += len(st.tx.watched)
	for key := range st.tx.watched {
		set := watchers[key]
		delete(set, st)
		if len(set) == 0 {
			delete(watchers, key)
		}
		st.tx.held -= len(key) + kWatchOverhead
		inputHeld -= len(key) + kWatchOverhead
	}
	st.tx.watched = nil
	if len(watchers) == 0 && watchersPeak > 1024 {
		// A Go map keeps its buckets when its entries are deleted: start
		// afresh, so that a peak of watched keys is not held for good.
		watchers, watchersPeak = map[string]map[*respState]struct{}{}, 0
	}
}
