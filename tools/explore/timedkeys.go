package main

import (
	"fmt"
	"strconv"

	"example.com/byor/ch13_heap_ttl/hashtable"
	"example.com/byor/ch13_heap_ttl/heap"
	"example.com/byor/ch14_threadpool/zset"
)

// The timed key space: what the heap view (chapter 13) and the keyspace
// view (chapter 14) both hold, a hashtable of entries and a heap of their
// TTL timers on a clock that moves only on "wait". Both use chapter 13's
// hashtable and heap; chapter 14's are the same files (see view_keyspace.go).

func init() {
	// Registered here, once, rather than by each view that uses it.
	rehashSetters = append(rehashSetters, hashtable.SetResizingWork)
}

// timedEnt is the chapters' entry: a key holding a string or a sorted set
// (only the keyspace view makes those), and the index of its timer.
type timedEnt struct {
	node    hashtable.HNode[timedEnt]
	key     string
	val     string
	zset    *zset.ZSet // nil for a string
	heapIdx int        // the position of the key's timer in the heap, or -1
}

func timedEq(a, b *hashtable.HNode[timedEnt]) bool {
	return a.HCode == b.HCode && a.Owner.key == b.Owner.key
}

// timedKey returns a detached entry for key, with no timer: a new key, or
// the probe that finds one.
func timedKey(key string) *timedEnt {
	e := &timedEnt{key: key, heapIdx: -1}
	e.node.Owner = e
	e.node.HCode = hashtable.StrHash(key)
	return e
}

// timedKeys is the key space with its timers, and what the last command did
// to it, for the drawing.
type timedKeys struct {
	db      hashtable.HMap[timedEnt]
	heap    []heap.HeapItem[timedEnt]
	nowMs   uint64
	touched string         // the key the last command used
	slots   map[string]int // each timed key's heap slot before the last command
	expired []string       // the keys the last command expired
}

// begin starts a command: it forgets what the last one touched and expired,
// and notes every timer's slot so that the drawing can show which moved.
func (k *timedKeys) begin() {
	k.touched, k.expired = "", nil
	k.slots = map[string]int{}
	for i, it := range k.heap {
		k.slots[it.Owner.key] = i
	}
}

// lookup returns key's entry, or nil.
func (k *timedKeys) lookup(key string) *timedEnt {
	if n := k.db.Lookup(&timedKey(key).node, timedEq); n != nil {
		return n.Owner
	}
	return nil
}

// insert adds key, which must be absent, and returns its entry.
func (k *timedKeys) insert(key string) *timedEnt {
	e := timedKey(key)
	k.db.Insert(&e.node)
	return e
}

// pop takes key's entry out of the hashtable and returns it, or nil; its
// timer is left for the caller's entryDel.
func (k *timedKeys) pop(key string) *timedEnt {
	if n := k.db.Pop(&timedKey(key).node, timedEq); n != nil {
		return n.Owner
	}
	return nil
}

// setTTL is the work of the chapters' entrySetTTL, on the view's clock: a
// negative ttlMs removes e's timer, any other sets it ttlMs from now, in a
// new leaf if e had none. It reports false if there was no timer to remove;
// each view says in its own words what happened.
func (k *timedKeys) setTTL(e *timedEnt, ttlMs int64) bool {
	if ttlMs < 0 {
		if e.heapIdx == -1 {
			return false
		}
		heap.Delete(&k.heap, e.heapIdx)
		return true
	}
	heap.Upsert(&k.heap, e.heapIdx, heap.HeapItem[timedEnt]{Val: k.nowMs + uint64(ttlMs), Ref: &e.heapIdx, Owner: e})
	return true
}

// noTimer is what entrySetTTL says when asked to remove a timer there is not.
const noTimer = "server.entrySetTTL: no timer to remove"

// expireDue is the chapters' processTimers: while the root's timer is due,
// its key leaves the hashtable, and del, the view's entryDel, does the rest
// of deleting it and returns the lines that say so. del must remove the
// timer (setTTL(e, -1)), or the loop would find it due again.
func (k *timedKeys) expireDue(del func(e *timedEnt) []string) []string {
	var ran []string
	for len(k.heap) > 0 && k.heap[0].Val <= k.nowMs {
		e := k.heap[0].Owner
		k.db.Pop(&e.node, func(a, b *hashtable.HNode[timedEnt]) bool { return a == b })
		ran = append(ran, del(e)...)
		k.expired = append(k.expired, e.key)
	}
	return ran
}

// wait runs wait (args): the clock moves on, and then the view's
// processTimers, named by the line it is given, expires what is due, with
// del as its entryDel.
func (k *timedKeys) wait(args []string, processTimers string, del func(e *timedEnt) []string) (string, []string) {
	if !advanceClock(&k.nowMs, args[1]) {
		return replyErr("expect milliseconds"), nil
	}
	ran := []string{fmt.Sprintf("poll() sleeps; the clock is now %d ms", k.nowMs), processTimers}
	return "ok", append(ran, k.expireDue(del)...)
}

// pexpire runs pexpire (args); entrySetTTL is the view's, which sets the
// timer and says how.
func (k *timedKeys) pexpire(args []string, entrySetTTL func(*timedEnt, int64) string) (string, []string) {
	ttl, err := strconv.ParseInt(args[2], 10, 64)
	if err != nil || ttl > 1<<40 {
		return replyErr("expect int64"), []string{"server.doExpire: str2int refuses it (the explorer caps it at 2^40)"}
	}
	e := k.lookup(args[1])
	if e == nil {
		return replyInt(0), []string{"server.doExpire", "hashtable.(*HMap).Lookup: absent"}
	}
	k.touched = e.key
	return replyInt(1), []string{"server.doExpire", "server.entrySetTTL", entrySetTTL(e, ttl)}
}

// pttl runs pttl (args); found is the trace of a pttl that finds the key's
// timer in heap slot i.
func (k *timedKeys) pttl(args []string, found func(i int) string) (string, []string) {
	e := k.lookup(args[1])
	if e == nil {
		return replyInt(-2), []string{"server.doTTL: no such key"}
	}
	if e.heapIdx == -1 {
		return replyInt(-1), []string{"server.doTTL: no timer"}
	}
	k.touched = e.key
	return replyInt(int64(k.heap[e.heapIdx].Val - k.nowMs)), []string{found(e.heapIdx)}
}
