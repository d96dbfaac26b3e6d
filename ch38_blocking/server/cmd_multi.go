package server

import (
	"strconv"
	"strings"

	"example.com/byor/ch38_blocking/resp"
)

// Transactions: MULTI, EXEC, DISCARD, WATCH and UNWATCH, with Redis 7.0's
// semantics.
//
// On one event loop, atomic comes for free: EXEC runs the queued commands
// one after another inside one request, and no other client's request can
// run in between. What needs care is everything around that:
//
//   - Queueing. Between MULTI and EXEC a command is checked (a known name,
//     the right number of arguments), copied out of the read buffer, and
//     answered QUEUED. A command that fails the check is answered its
//     error and dooms the transaction: EXEC answers EXECABORT and runs
//     nothing. A runtime error (WRONGTYPE) is only that command's element
//     of EXEC's reply; nothing is rolled back, as in Redis.
//
//   - WATCH. Optimistic locking: EXEC fails (a null array) if a watched key
//     was modified since WATCH, by anyone, through either protocol, or by
//     its expiry (see watch.go).
//
//   - Bounds against a client who has read this. The commands queued are
//     bytes the client makes the server hold, and so are its watched keys:
//     both count in the one bound over all connections' memory
//     (-max-output-mb, budgetLeft), are limited in number (kMaxQueued,
//     kMaxWatched), and are given back at EXEC, DISCARD, UNWATCH or when
//     the connection closes; past the budget, the connection holding the
//     most is closed, or this one's command refused if it is that one.
//     EXEC's reply, which can hold many commands' replies, grows as any
//     reply does (doubling, so it is built in time linear in its size),
//     within the budget; a command whose reply does not fit gets
//     errExecTooBig as its element. And since EXEC runs in
//     one turn whatever the turn's bounds (kMaxTurnWork, kMaxTurnRequests
//     count it as one request), its work is bounded as a whole
//     (kMaxExecWork): before anything runs, EXEC weighs a bound on each
//     command's work from the command table's row and the data as it is
//     (resp_cost.go), and refuses a transaction that could pass it, whole.
//     As it runs, the work is charged as any request's is.

const (
	// kMaxQueued bounds the commands one transaction may queue; Redis has
	// no such limit, and clients queue far fewer.
	kMaxQueued = 10000
	// kMaxWatched bounds the keys one connection may watch.
	kMaxWatched = 10000
	// kQueuedOverhead and kArgOverhead are what a queued command holds
	// besides its arguments' bytes, counted in the bound on memory: the
	// slice of its arguments and its place in the queue (which grows by
	// doubling), and each argument's slice header.
	kQueuedOverhead = 64
	kArgOverhead    = 24
	// kWatchOverhead is what a watched key holds besides its bytes, about
	// what Go's maps take for it: its entry in the connection's map, and
	// in watchers an entry and, for its first watcher, a map of its own.
	kWatchOverhead = 192
	// kMaxExecWork bounds the work one transaction may do, counted as
	// workDone counts it (see work.go). It is 32 turns' worth
	// (kMaxTurnWork): a transaction stalls the loop longer than a turn
	// may, but not without bound.
	kMaxExecWork = 32 * kMaxTurnWork
)

// The errors of the bounds, in Redis's style.
var (
	errTooManyQueued  = "ERR a transaction may queue at most " + strconv.Itoa(kMaxQueued) + " commands: this one was not queued, and EXEC will discard the transaction"
	errQueueMemory    = "ERR the server's memory for clients is full (-max-output-mb): command not queued, and EXEC will discard the transaction"
	errTooManyWatched = "ERR a connection may watch at most " + strconv.Itoa(kMaxWatched) + " keys: none of these was watched"
	errWatchMemory    = "ERR the server's memory for clients is full (-max-output-mb): keys not watched"
	errExecMemory     = "EXECABORT Transaction discarded because of: the server's memory for replies is full (-max-output-mb)"
)

// errExecTooBig replaces, in EXEC's reply, the reply of a command that
// did not fit in the budget.
const errExecTooBig = "ERR response is too big for the server's memory for replies now (-max-output-mb)"

// kExecElemMin is the room kept in EXEC's reply for each command's
// element: enough for errExecTooBig.
const kExecElemMin = respHeaderMax + len(errExecTooBig)

// txState is a RESP connection's transaction: the commands queued since
// MULTI, and the keys it watches.
type txState struct {
	// queue holds the commands queued, each argument copied out of the
	// read buffer.
	queue [][][]byte
	// watched maps each watched key to whether it had already expired
	// (its TTL due, the key not yet reclaimed) when WATCH ran: such a
	// key's reclaiming is not a change, as in Redis.
	watched map[string]bool
	// dirty says a watched key was touched: EXEC will fail.
	dirty bool
	// held is what the queue and the watched keys count in inputHeld,
	// and watchHeld the watched keys' part of it.
	held      int
	watchHeld int
}

// respWatch: WATCH key... Keys already watched stay as they are. A WATCH
// over the limits is refused whole.
func respWatch(st *respState, w *respWriter, args [][]byte) {
	if st.inMulti {
		w.err("ERR WATCH inside MULTI is not allowed")
		return
	}
	if st.tx.dirty {
		w.simple("OK") // EXEC fails anyway: nothing to hold (as Redis)
		return
	}
	// Count what the new keys would hold (a key named twice counts
	// twice: the bounds err on the safe side), before changing anything.
	n, size := 0, 0
	for _, k := range args[1:] {
		if _, ok := st.tx.watched[string(k)]; !ok {
			n++
			size += len(k) + kWatchOverhead
		}
	}
	switch {
	case len(st.tx.watched)+n > kMaxWatched:
		w.err(errTooManyWatched)
		return
	case !budgetMake(st.conn, size):
		w.err(errWatchMemory)
		return
	}
	if st.tx.watched == nil {
		st.tx.watched = map[string]bool{}
	}
	for _, k := range args[1:] {
		if _, ok := st.tx.watched[string(k)]; ok {
			continue
		}
		key := string(k)
		ent := lookupEntry(key)
		st.tx.watched[key] = ent != nil && entryDue(ent)
		set := watchers[key]
		if set == nil {
			set = map[*respState]struct{}{}
			watchers[key] = set
			watchersPeak = max(watchersPeak, len(watchers))
		}
		set[st] = struct{}{}
		st.tx.held += len(key) + kWatchOverhead
		st.tx.watchHeld += len(key) + kWatchOverhead
		inputHeld += len(key) + kWatchOverhead
	}
	w.simple("OK")
}

// respUnwatch: UNWATCH forgets the watched keys, and that one was touched.
func respUnwatch(st *respState, w *respWriter, args [][]byte) {
	st.unwatchAll()
	st.tx.dirty = false
	w.simple("OK")
}

// queueCommand queues a command of a transaction, checked already, and
// answers QUEUED; or answers why it cannot, which dooms the transaction.
func (st *respState) queueCommand(w *respWriter, c *command, args [][]byte) {
	if st.multiRefused {
		// EXEC will discard the transaction: keep nothing more for it.
		w.simple("QUEUED")
		return
	}
	size, bytes := kQueuedOverhead, 0
	for _, a := range args {
		size += len(a) + kArgOverhead
		bytes += len(a)
	}
	switch {
	case len(st.tx.queue) >= kMaxQueued:
		w.err(errTooManyQueued)
	case !budgetMake(st.conn, size):
		w.err(errQueueMemory)
	default:
		// One array for the arguments' bytes, one for their slices.
		buf := make([]byte, 0, bytes)
		cmd := make([][]byte, len(args))
		for i, a := range args {
			buf = append(buf, a...)
			cmd[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
		}
		st.tx.queue = append(st.tx.queue, cmd)
		st.tx.held += size
		inputHeld += size
		w.simple("QUEUED")
		return
	}
	st.multiFailed()
}

// endMulti ends a transaction, run or not: the queue is dropped, the
// keys unwatched, and what they held given back.
func (st *respState) endMulti() {
	st.unwatchAll()
	inputHeld -= st.tx.held
	st.tx = txState{}
	st.inMulti, st.multiRefused = false, false
}

// respMulti: MULTI starts a transaction.
func respMulti(st *respState, w *respWriter, args [][]byte) {
	if st.inMulti {
		w.err("ERR MULTI calls can not be nested") // and the transaction goes on
		return
	}
	st.inMulti, st.multiRefused = true, false
	w.simple("OK")
}

// multiFailed notes that a command inside MULTI was refused: EXEC will
// discard the transaction.
func (st *respState) multiFailed() {
	if st.inMulti {
		st.multiRefused = true
	}
}

// respDiscard: DISCARD ends a transaction without running it, and
// unwatches every key.
func respDiscard(st *respState, w *respWriter, args [][]byte) {
	if !st.inMulti {
		w.err("ERR DISCARD without MULTI")
		return
	}
	st.endMulti()
	w.simple("OK")
}

// respExecAbort answers an EXEC that is itself refused (its arguments are
// wrong: the error err), as Redis does: the transaction, if any, is
// discarded and every key unwatched.
func respExecAbort(st *respState, w *respWriter, err string) {
	st.endMulti()
	w.err("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(err, "ERR "))
}

// outNilArray writes the null array of a failed EXEC: "*-1" in RESP2,
// RESP3's one null.
func (w *respWriter) outNilArray() {
	if w.ver == resp.RESP3 {
		w.outNil()
	} else if w.room(respHeaderMax) {
		w.buf = append(w.buf, "*-1\r\n"...)
	}
}

// respExec: EXEC runs the queued commands, in this one request, and
// answers an array of their replies; or EXECABORT if one was refused when
// queued or a write among them would be refused now (the log cannot be
// written), or a null array if a watched key was touched (or its TTL came
// due since WATCH). Either way the transaction ends and every key is
// unwatched.
func respExec(st *respState, w *respWriter, args [][]byte) {
	if !st.inMulti {
		w.err("ERR EXEC without MULTI")
		return
	}
	// As Redis refuses an EXEC with writes while the log cannot be
	// written: the transaction runs whole or not at all.
	workDone += len(st.tx.queue)
	for _, cmd := range st.tx.queue {
		if c, _ := respResolve(cmd); c != nil {
			if refusal := aofRefusal(c); refusal != "" {
				respExecAbort(st, w, refusal)
				return
			}
		}
	}
	if st.multiRefused {
		st.endMulti()
		w.err("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	// A watched key whose TTL is due counts as touched even before the
	// timers reclaim it (unless it was due when watched already).
	if !st.tx.dirty {
		workDone += len(st.tx.watched)
		for key, expired := range st.tx.watched {
			if ent := lookupEntry(key); !expired && ent != nil && entryDue(ent) {
				st.tx.dirty = true
			}
		}
	}
	if st.tx.dirty {
		st.endMulti()
		w.outNilArray()
		return
	}
	queue := st.tx.queue
	st.unwatchAll() // it has passed: its own writes below cannot fail it

	// The transaction's work, bounded before anything runs: each
	// command's, weighed from its row and the data (resp_cost.go).
	var plan execPlan
	estimate := 0
	var weighed, did []int // for execDone
	for _, cmd := range queue {
		workDone += len(cmd)     // the weighing's lookups
		c, _ := respResolve(cmd) // found when queued
		e := plan.estimate(c, cmd)
		e += aofCost(c, cmd) // and its log's bytes (aof.go)
		estimate += e
		if execDone != nil {
			weighed = append(weighed, e)
		}
	}
	// The reply's bytes are work too (respDo charges them, kWorkBytes to
	// a unit): it may take what the bound leaves after the commands' work,
	// and at least the room of an error for every command.
	least := respHeaderMax + len(queue)*kExecElemMin
	if estimate+least/kWorkBytes > kMaxExecWork {
		st.endMulti()
		w.err(respExecRefusal(estimate + least/kWorkBytes))
		return
	}
	if refusal := aofRoom(st.conn, queue...); refusal != "" {
		respExecAbort(st, w, refusal) // no room for their records (aof.go)
		return
	}
	replyMax := (kMaxExecWork - estimate) * kWorkBytes

	// The reply grows as any reply does, within the budget and replyMax,
	// with room kept for every command's element: if that room is not
	// there, nothing runs. Each element is a reply of its own, and one
	// that does not fit, with the room of the elements after it kept
	// (w.reserve), is replaced by errExecTooBig in the room kept for it.
	outerStart := len(w.buf)
	if !w.room(least) {
		st.endMulti()
		w.truncate(len(w.buf))
		w.err(errExecMemory)
		return
	}
	w.limit = outerStart + replyMax
	w.outArr(len(queue))
	for i, cmd := range queue {
		start := len(w.buf)
		w.reserve = (len(queue) - 1 - i) * kExecElemMin
		before := workDone
		workDone += len(cmd)
		chargeBytes(argBytes(cmd))
		c, _ := respResolve(cmd)
		c.run(st, w, cmd)
		if w.over {
			w.truncate(start)
			w.err(errExecTooBig)
		}
		if execDone != nil {
			did = append(did, workDone-before)
		}
	}
	if execDone != nil {
		// And the reply's bytes, which respDo charges.
		execDone(append(weighed, replyMax/kWorkBytes), append(did, (len(w.buf)-outerStart)/kWorkBytes))
	}
	w.reserve, w.limit = 0, 0
	st.endMulti()
}

// execDone, if set (by tests), is told what each EXEC weighed and did:
// each command's work, then its reply's bytes.
var execDone func(weighed, did []int)
