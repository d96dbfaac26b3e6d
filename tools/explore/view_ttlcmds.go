package main

import "strconv"

// What the views with chapter 13's timers (the heap's and the key space's)
// share: pexpire and pttl, over their own kinds of entry.

// timedEnt is an entry of a key space with timers: timer returns its key
// and the index of its timer in the heap, -1 for none.
type timedEnt interface {
	comparable
	timer() (key string, heapIdx int)
}

func (e *heapEnt) timer() (string, int) { return e.key, e.heapIdx }
func (e *ksEnt) timer() (string, int)   { return e.key, e.heapIdx }

// pexpireCmd runs pexpire (args) on a key space whose lookup finds a key's
// entry (nil for none) and whose setTTL sets it, saying how; it notes the
// key it touched in touched.
func pexpireCmd[E timedEnt](args []string, lookup func(string) E, setTTL func(E, int64) string, touched *string) (string, []string) {
	ttl, err := strconv.ParseInt(args[2], 10, 64)
	if err != nil || ttl > 1<<40 {
		return replyErr("expect int64"), []string{"server.doExpire: str2int refuses it (the explorer caps it at 2^40)"}
	}
	var none E
	e := lookup(args[1])
	if e == none {
		return replyInt(0), []string{"server.doExpire", "hashtable.(*HMap).Lookup: absent"}
	}
	*touched, _ = e.timer()
	return replyInt(1), []string{"server.doExpire", "server.entrySetTTL", setTTL(e, ttl)}
}

// pttlCmd runs pttl (args) on a key space like pexpireCmd's: left returns
// the milliseconds left to the heap's timer i, and found the trace of a
// pttl that finds it.
func pttlCmd[E timedEnt](args []string, lookup func(string) E, left func(i int) int64, found func(i int) string, touched *string) (string, []string) {
	var none E
	e := lookup(args[1])
	if e == none {
		return replyInt(-2), []string{"server.doTTL: no such key"}
	}
	key, idx := e.timer()
	if idx == -1 {
		return replyInt(-1), []string{"server.doTTL: no timer"}
	}
	*touched = key
	return replyInt(left(idx)), []string{found(idx)}
}
