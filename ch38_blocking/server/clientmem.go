package server

import (
	"os"

	"example.com/byor/ch38_blocking/dlist"
	"example.com/byor/ch38_blocking/proto"
)

// What the connections hold, and the one bound on it.
//
// A connection holds buffers only while it uses them: its read buffer from
// its first read, its write buffer from its first reply. One that has been
// idle for kBufIdleMs gives back those that are empty, so a thousand
// clients that connect and wait cost their connections' state alone, while
// a busy one keeps its buffers and its requests allocate nothing.
//
// Everything the clients make the server hold counts in one budget,
// maxOutputTotal (the -max-output-mb flag): buffers, replies waiting for a
// slow reader, requests still arriving. When a connection needs more than
// the budget has left, the empty buffers of other connections are taken
// back first; then the connection holding the most is closed, as Redis's
// maxmemory-clients does, so that one client cannot take the budget and
// keep it while every other is refused. If the one holding the most is the
// one asking, it is the one refused.

// maxOutputTotal is the budget. 1 GiB: Redis lets one client's request
// grow to 1 GB (client-query-buffer-limit), and a 100 MB value, read and
// then sent back, passes through the budget twice; the budget covers every
// client together, so a server with it in full use holds this much more
// than its data.
var maxOutputTotal = 1 << 30

// outputHeld is what the connections' write buffers hold in all, and
// inputHeld what they hold besides (their read buffers, and on the RESP
// listener client names, queued transactions and watched keys): together
// they stay within maxOutputTotal.
var (
	outputHeld int
	inputHeld  int
)

// budgetLeft is how much more the connections may hold in all.
func budgetLeft() int {
	return maxOutputTotal - outputHeld - inputHeld
}

// kRBufSize is the size of a connection's read buffer: one whole message
// of the book's protocol and its length.
const kRBufSize = 4 + proto.KMaxMsg

// kBufIdleMs is how long a connection must have been idle before its
// empty buffers are given back (Redis frees an idle client's query buffer
// after 2 s too).
const kBufIdleMs = 2000

// bufList holds the connections that hold buffers, least recently active
// first (see bufActive); its zero value is set up on first use.
var bufList dlist.DList[conn]

// bufActive notes that conn, which may hold buffers, was just active: it
// moves to the back of bufList.
func bufActive(conn *conn) {
	if bufList.Next() == nil {
		bufList.Init()
	}
	if conn.inBufList {
		conn.bufList.Detach()
	}
	conn.inBufList = conn.memory() > 0
	if conn.inBufList {
		bufList.InsertBefore(&conn.bufList)
	}
}

// bufForget takes conn out of bufList.
func bufForget(conn *conn) {
	if conn.inBufList {
		conn.bufList.Detach()
		conn.inBufList = false
	}
}

// memory is what conn holds, counted in the budget.
func (conn *conn) memory() int {
	return cap(conn.rbuf) + cap(conn.wbuf) + conn.framing.held()
}

// giveBack frees conn's buffers that hold nothing.
func (conn *conn) giveBack() {
	if conn.rbuf != nil && conn.rbufStart == conn.rbufEnd {
		inputHeld -= cap(conn.rbuf)
		conn.rbuf, conn.rbufStart, conn.rbufEnd = nil, 0, 0
	}
	if conn.wbuf != nil && conn.pending() == 0 {
		outputHeld -= cap(conn.wbuf)
		conn.wbuf, conn.wbufSent = nil, 0
	}
	conn.framing.giveBack()
}

// nextBufTimerUs is when the least recently active connection's buffers
// are due to be given back, or 0 if none are held.
func nextBufTimerUs() uint64 {
	if bufList.Next() == nil || bufList.Empty() {
		return 0
	}
	return bufList.Next().Owner.idleStart + kBufIdleMs*1000
}

// giveBackIdle gives back the empty buffers of the connections idle for
// kBufIdleMs by nowUs. Each leaves bufList; activity puts it back.
func giveBackIdle(nowUs uint64) {
	for due := nextBufTimerUs(); due != 0 && due < nowUs; due = nextBufTimerUs() {
		conn := bufList.Next().Owner
		conn.giveBack()
		bufForget(conn)
	}
}

// budgetRunning, while a reply goes to a parked client outside its own
// turn (blocking.go), is the connection whose request runs or has just
// run: budgetMake neither closes it nor takes its buffers, which it may be
// using.
var budgetRunning *conn

// budgetMake makes room in the budget for n more bytes that self asks
// for, and reports whether there is. Past what the budget has left, the
// empty buffers of the other connections are given back, least recently
// active first; then the connection holding the most is closed, until
// the n bytes fit; unless that connection is self, whose n bytes are then
// refused (it holds the most, counting them). self may be nil (a request
// run without a connection, in tests).
func budgetMake(self *conn, n int) bool {
	if n <= budgetLeft() {
		return true
	}
	if bufList.Next() != nil {
		for node := bufList.Next(); node != &bufList && n > budgetLeft(); {
			other := node.Owner
			node = node.Next()
			if other != self && other != budgetRunning {
				other.giveBack()
			}
		}
	}
	for n > budgetLeft() {
		most := 0
		if self != nil {
			most = self.memory() + n
		}
		var victim *conn
		for _, c := range gData.fd2conn {
			if c != nil && c != self && c != budgetRunning && c.memory() > most {
				victim, most = c, c.memory()
			}
		}
		if victim == nil {
			return false
		}
		connMsg(os.Stderr, "closing connection %d: it holds %d bytes, the most, and the memory for clients is full", victim.fd, most)
		connDone(victim)
	}
	return n <= budgetLeft()
}
