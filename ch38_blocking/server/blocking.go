package server

import (
	"math"
	"math/big"

	"example.com/byor/ch38_blocking/heap"
	"example.com/byor/ch38_blocking/waitq"
)

// Blocking: a client that waits for a key. A blocking pop (BLPOP, BRPOP,
// BLMOVE, BRPOPLPUSH, BLMPOP; BZPOPMIN, BZPOPMAX, BZMPOP) whose keys are
// all empty does not answer: its client is parked on each of its keys,
// in a queue per key, first parked first served, and the loop goes on
// serving everyone else. Nothing looks at the parked clients while
// nothing happens to their keys:
//
//   - a write that creates one of those keys (a list or a sorted set is
//     never empty, so "becomes non-empty" is "is created": insertEntry)
//     marks the key ready (blockSignal);
//   - after that write's command (after EXEC for a transaction), before
//     the next command runs, each ready key serves the clients at the
//     head of its queue, one at a time, while it holds something
//     (blockServeReady); a client served leaves every queue it is in,
//     one that finds the key emptied by those before it stays parked;
//   - a client's timeout is a timer in a heap of its own, which the loop
//     sleeps until, as it sleeps until a key's TTL (blockTimeouts);
//   - a client that hangs up, or CLIENT UNBLOCK, takes it out too.
//
// Serving a client runs its command again on the one ready key, through
// call like any command: the snapshot, the log and WATCH see it as the
// pop it is, and the log records that pop (LPOP, LMOVE, ZPOPMIN...), not
// the blocking command, as Redis does (blockLogged).

// waiter is a parked client: its connection, its command and what it
// waits on.
type waiter struct {
	st   *respState
	cmd  *command
	args [][]byte // the command's arguments, copied: the request's are reused
	zset bool     // it pops sorted sets; else lists
	// q is its place in the queue of each key it waits on.
	q   waitq.Waiter[waiter]
	pop blockPop
	// dueUs is when it times out, on the monotonic clock (0: never), and
	// timerIdx its place in blockTimers (-1: none).
	dueUs    uint64
	timerIdx int32
	held     int // what it holds, in the budget (inputHeld)
	// gone says its client hung up: it is left in some queues, to be
	// taken out of them over the loop's turns (blockGone).
	gone bool
}

// blockPop pops for a waiter whose arguments are args from key, which
// holds a value of the waiter's type, and writes its reply.
type blockPop func(w *respWriter, args [][]byte, key []byte)

var (
	// blockQueues holds, for each key some client waits on, the queue of
	// its waiters, first parked first: [0] for lists, [1] sorted sets.
	blockQueues [2]waitq.Queues[waiter]
	// blockReady holds the keys created since the last command while
	// some client waited on them, in that order, each once.
	blockReady waitq.Ready
	// blockTimers holds the waiters that have a timeout, earliest due
	// first.
	blockTimers []heap.HeapItem[waiter]
	// blockedClients counts the parked clients (INFO's blocked_clients).
	blockedClients int
	// blockServing is set while blockServeReady runs: what a served pop
	// creates (BLMOVE's destination) joins blockReady, served in turn.
	blockServing bool
	// blockLogged is the pop a blocking command did, for the log
	// (logBlockPop).
	blockLogged [][]byte
	// blockGone holds the waiters whose clients hung up while parked on
	// many keys, still in some of their queues: each loop turn takes them
	// out of a bounded number (blockUnparkGone), as many hang-ups at once
	// would otherwise unpark millions of keys in one turn.
	blockGone []*waiter
	// blockVisits counts the waiters looked at to serve them or time them
	// out (for the tests: a loop turn in which no waited-on key is
	// created and no timeout is due looks at none).
	blockVisits int
)

// Per waiter: the struct and its slices; per key: a node in its queue,
// and a queue of its own if it is the key's first waiter.
const (
	kWaiterBytes   = 160
	kWaitNodeBytes = 24 + 16
	kWaitKeyBytes  = 96
)

// kServeWork is what serving a waiter costs in units of work besides its
// pop and its keys: a call, a reply of its own, an epoll_ctl. Measured,
// some 17 us: a chain of 9,000 BLMOVEs served in one turn held the loop
// 188 ms; charged this, a turn serves a few hundred.
const kServeWork = 256

func timerIdxOf(wt *waiter) *int32 { return &wt.timerIdx }

// blockTimeout reads a blocking command's timeout, in seconds, with
// Redis 7.0's errors, and returns it in milliseconds (0: forever). Redis
// turns the seconds into milliseconds as a long double, rounded up (so
// 0.0001 waits 1 ms), then into a long long the C way: a value past its
// range (1e30, inf) becomes its most negative one, "negative" too.
func blockTimeout(w *respWriter, arg []byte) (int64, bool) {
	secs, ok := parseLongDouble(string(arg))
	if !ok {
		w.err("ERR timeout is not a float or out of range")
		return 0, false
	}
	ms, _ := new(big.Float).SetPrec(kLongDoublePrec).Mul(secs, big.NewFloat(1000)).Float64()
	if ms = math.Ceil(ms); ms < 0 || ms >= math.MaxInt64 {
		w.err("ERR timeout is negative")
		return 0, false
	}
	return int64(ms), true
}

// blockOn is a blocking pop: the first of keys that holds a value pops
// (pop), a value of another type is WRONGTYPE; if none holds one, the
// client is parked for timeoutMs, or answered none at once: inside a
// transaction, where nothing waits, and for LMPOP and ZMPOP, which never
// wait (a negative timeoutMs).
func blockOn(st *respState, w *respWriter, args, keys [][]byte, timeoutMs int64, zset bool, pop blockPop, none func()) {
	for _, key := range keys {
		workDone++ // each key looked up, up to the first that has a value
		ent := lookupEntry(key)
		switch {
		case ent == nil:
			continue
		case (ent.typ() == tZSet) != zset || !zset && ent.typ() != tList:
			w.err(errWrongType)
			return
		}
		pop(w, args, key)
		return
	}
	if st.inMulti || timeoutMs < 0 {
		none()
		return
	}
	blockPark(st, w, args, keys, timeoutMs, zset, pop)
}

// blockPark parks st on keys, within the budget.
func blockPark(st *respState, w *respWriter, args, keys [][]byte, timeoutMs int64, zset bool, pop blockPop) {
	// The arguments are copied, and the keys once more by the queues.
	held := kWaiterBytes + argBytes(args) + argBytes(keys) + len(args)*kArgSlot + len(keys)*(kWaitNodeBytes+kWaitKeyBytes)
	if !budgetMake(st.conn, held) {
		w.err(errBlockMemory)
		return
	}
	inputHeld += held
	wt := &waiter{st: st, cmd: w.cmd, zset: zset, pop: pop, timerIdx: -1, held: held}
	wt.args = make([][]byte, len(args))
	buf := make([]byte, 0, argBytes(args))
	for i, a := range args {
		buf = append(buf, a...)
		wt.args[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	wt.q.Owner = wt
	workDone += blockQueues[b2i(zset)].Park(&wt.q, keys) * kVisitWork
	if timeoutMs > 0 {
		// Past some 35 years, a timer as good as never (no overflow).
		wt.dueUs = getMonotonicUsec() + uint64(min(timeoutMs, 1<<40))*1000
		heap.Upsert(&blockTimers, -1, heap.HeapItem[waiter]{Val: wt.dueUs, Owner: wt}, timerIdxOf)
	}
	st.block = wt
	st.conn.blocked = true
	blockedClients++
	// A parked client is not idle: Redis's timeout spares it.
	st.conn.idleList.Detach()
	st.conn.idleList.Init()
}

// parkedRoom reports whether conn is parked and may read more: only into
// the room its buffer has, never growing it (its requests wait until it
// is answered), so that a parked client that sends on holds no more. One
// whose buffer is full is not read: what it sends waits in the kernel,
// and its hang-up is seen once it is answered.
func parkedRoom(conn *conn) bool {
	st, ok := conn.respState()
	return ok && conn.blocked && conn.state == stateReq && st.big.buf == nil &&
		(st.buf == nil || len(st.buf)-st.start < cap(st.buf) && st.need <= cap(st.buf))
}

// errBlockMemory refuses to park a client the budget has no room for.
const errBlockMemory = "ERR the server's memory for clients is full (-max-output-mb): no room to wait; try again later"

// blockUnpark takes wt out of every queue and its timer, and gives its
// connection back its requests.
func blockUnpark(wt *waiter) {
	workDone += blockQueues[b2i(wt.zset)].Unpark(&wt.q)
	blockLeave(wt)
	inputHeld -= wt.held
}

// blockLeave unparks wt's connection: its timer goes, and it answers
// requests again.
func blockLeave(wt *waiter) {
	if wt.timerIdx >= 0 {
		heap.Delete(&blockTimers, int(wt.timerIdx), timerIdxOf)
	}
	wt.st.block = nil
	wt.st.conn.blocked = false
	blockedClients--
}

// kUnparkStep is how many keys of the waiters whose clients hung up a
// loop turn takes them out of (blockGone); a waiter on fewer is taken out
// of them all at once.
const kUnparkStep = 1 << 14

// blockHungUp unparks the waiter of a connection that closed: at once
// if it waits on few keys, else over the loop's next turns.
func blockHungUp(wt *waiter) {
	if len(wt.q.Keys()) <= kUnparkStep/16 {
		blockUnpark(wt)
		return
	}
	blockLeave(wt)
	wt.gone = true
	blockGone = append(blockGone, wt)
}

// blockUnparkGone takes the waiters of blockGone out of up to limit of
// their queues in all, and gives back what those out of every queue held.
func blockUnparkGone(limit int) {
	for limit > 0 && len(blockGone) > 0 {
		wt := blockGone[0]
		n, out := blockQueues[b2i(wt.zset)].UnparkSome(&wt.q, limit)
		workDone += n
		limit -= n
		if !out {
			return
		}
		inputHeld -= wt.held
		blockGone[0] = nil
		blockGone = blockGone[1:]
	}
}

// blockSignal marks key ready if a client waits on it; insertEntry calls
// it for every key created.
func blockSignal(key string) {
	if blockedClients > 0 && (blockQueues[0].Waited(key) || blockQueues[1].Waited(key)) {
		blockReady.Add(key)
	}
}

// blockServeReady serves the waiters of the keys made ready, as long as
// each key holds a value of their type, after the command of running, or
// from the loop (nil). Every round serves (and unparks) the head of a
// queue, so it ends; it does at most a turn's work (kMaxTurnWork), and
// what is left stays ready, for the loop to serve before it sleeps.
func blockServeReady(running *conn) {
	if blockServing {
		return
	}
	blockServing, budgetRunning = true, running
	start := workDone
	for key, ok := blockReady.Take(); ok; key, ok = blockReady.Take() {
		for kind, typ := range [2]int{tList, tZSet} {
			for {
				wt := blockQueues[kind].Head(key)
				ent := lookupEntry(key)
				if wt == nil || ent == nil || ent.typ() != typ {
					break
				}
				if wt.gone { // its client hung up: out of every queue now
					n, _ := blockQueues[kind].UnparkSome(&wt.q, math.MaxInt)
					workDone += n
					continue
				}
				if workDone-start >= kMaxTurnWork {
					blockReady.Add(key) // the rest, on the loop's next turn
					blockServing, budgetRunning = false, nil
					return
				}
				blockVisits++
				blockServe(wt, key)
			}
		}
	}
	blockServing, budgetRunning = false, nil
}

// blockServe serves wt from key: its command pops there, through call
// (the log, the snapshot), and its reply waits, if it wrote, for the log
// to be on disk as any write's does (aof.go).
func blockServe(wt *waiter, key string) {
	st := wt.st
	workDone += kServeWork
	blockUnpark(wt)
	mark := aofCmds
	blockReply(st, func(w *respWriter) {
		w.cmd = wt.cmd
		if refusal := call(wt.cmd, st.conn, wt.args, false, func() { wt.pop(w, wt.args, []byte(key)) }); refusal != "" {
			w.err(refusal)
		}
	})
	if gData.fd2conn[st.conn.fd] != st.conn {
		return // closed: no room for its reply
	}
	if aofFd >= 0 && aofCmds != mark {
		aofHeld[st.conn] = aofWritten + int64(len(aofBuf))
	}
	connWatch(st.conn)
}

// blockReply writes a reply to a parked client now unparked, outside its
// own turn; its caller then watches it for what it waits for next (its
// reply to send, its next requests). Another client's request may be
// running, or have just run (budgetRunning): making room may close the
// connection holding the most, but not that one. A client whose reply
// still has no room is closed itself.
func blockReply(st *respState, write func(w *respWriter)) {
	conn := st.conn
	if !wbufReserve(conn) {
		connDone(conn)
		return
	}
	before := conn.wbuf
	st.w.begin(conn.wbuf)
	write(&st.w)
	if st.w.over {
		outputHeld -= cap(st.w.buf) - cap(before)
		st.w.begin(before)
		st.w.err(errReplyMemory)
	}
	conn.wbuf, st.w.buf = st.w.buf, nil
	conn.idleStart = getMonotonicUsec()
	idleListOf(conn).InsertBefore(&conn.idleList)
}

// blockNextUs is when the earliest timeout is due, math.MaxUint64 if none.
func blockNextUs() uint64 {
	if len(blockTimers) == 0 {
		return math.MaxUint64
	}
	return blockTimers[0].Val
}

// blockTimeouts answers the waiters whose timeout is due by nowUs, at most
// kMaxWorks of them, and a turn's work: a null array, as Redis answers
// every blocking pop.
func blockTimeouts(nowUs uint64) {
	start := workDone
	for n := 0; n < kMaxWorks && workDone-start < kMaxTurnWork && len(blockTimers) > 0 && blockTimers[0].Val < nowUs; n++ {
		blockVisits++
		blockEnd(blockTimers[0].Owner, "")
	}
}

// blockEnd unparks wt with a null array, or the error text if not "".
func blockEnd(wt *waiter, text string) {
	blockUnpark(wt)
	blockReply(wt.st, func(w *respWriter) {
		if text != "" {
			w.err(text)
		} else {
			w.outNilArray()
		}
	})
	if conn := wt.st.conn; gData.fd2conn[conn.fd] == conn {
		connWatch(conn)
	}
}

// respClientUnblock: CLIENT UNBLOCK id [TIMEOUT|ERROR] answers a parked
// client as its timeout would, or with an error; 1 if there was one.
func respClientUnblock(st *respState, w *respWriter, args [][]byte) {
	if len(args) > 4 {
		w.err("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.")
		return
	}
	id, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	text := ""
	if len(args) == 4 {
		switch {
		case cmdIs(args[3], "error"):
			text = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
		case !cmdIs(args[3], "timeout"):
			w.err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	other := respClientByID(id)
	if other == nil || other.block == nil {
		w.outInt(0)
		return
	}
	budgetRunning = st.conn // its request runs
	blockEnd(other.block, text)
	budgetRunning = nil
	w.outInt(1)
}

// respClientByID finds the RESP connection of CLIENT ID id, nil if none,
// looking at every connection (charged).
func respClientByID(id int64) *respState {
	for _, c := range gData.fd2conn {
		workDone++
		if st, ok := c.respState(); ok && st.id == id {
			return st
		}
	}
	return nil
}

// respState returns the connection's RESP state, if it is a RESP one.
func (conn *conn) respState() (*respState, bool) {
	if conn == nil {
		return nil, false
	}
	st, ok := conn.framing.(*respState)
	return st, ok
}

// ruleBlockPop logs what a blocking pop did (blockLogged), not the
// command as given: replayed, a BLPOP would wait.
var ruleBlockPop = &aofRule{resp: logBlockPop}

func logBlockPop(args [][]byte) {
	if blockLogged != nil {
		aofAppend(blockLogged...)
		blockLogged = nil
	}
}

// blockLog notes the pop a blocking command did, for ruleBlockPop.
func blockLog(args ...[]byte) { blockLogged = args }
