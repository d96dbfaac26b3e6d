package main

import (
	"fmt"
	"strconv"

	"example.com/byor/ch12_timers/dlist"
)

// The timers view: chapter 12's idle list, a dlist.DList of connections
// kept in order of last activity, on a clock that only moves when told to.

func timersView() *view {
	return &view{
		name:    "timers",
		chapter: "ch12_timers",
		title:   "timers: the idle list of connections (chapter 12)",
		help:    "connect · request FD · wait MS · close FD (the idle timeout is the book's 5000 ms)",
		make: func() world {
			w := &timerWorld{nextFd: 4}
			w.idle.Init()
			return w
		},
		scenarios: []scenario{
			{"activity moves a connection to the back", []string{"connect", "wait 1000", "connect", "wait 1000", "connect", "request 4"}},
			{"the idle timeout closes the oldest", []string{"connect", "wait 2000", "connect", "wait 2000", "connect", "request 5", "wait 1500", "wait 2000"}},
		},
	}
}

// timerIdleMs is the book's k_idle_timeout_ms.
const timerIdleMs = 5000

// tconn is the part of chapter 12's conn the timers use.
type tconn struct {
	fd        int
	idleStart uint64 // ms on the view's clock
	idleList  dlist.DList[tconn]
}

type timerWorld struct {
	idle    dlist.DList[tconn] // the head: gData.idleList
	conns   map[int]*tconn
	nowMs   uint64
	nextFd  int
	touched int
	closed  []int
}

func (w *timerWorld) find(s string) *tconn {
	fd, err := strconv.Atoi(s)
	if err != nil || w.conns == nil {
		return nil
	}
	return w.conns[fd]
}

func (w *timerWorld) do(args []string) (string, []string) {
	w.touched, w.closed = 0, nil
	switch {
	case is(args, "connect", 1):
		if w.conns == nil {
			w.conns = map[int]*tconn{}
		}
		c := &tconn{fd: w.nextFd, idleStart: w.nowMs}
		w.nextFd++
		c.idleList.Owner = c
		w.idle.InsertBefore(&c.idleList)
		w.conns[c.fd] = c
		w.touched = c.fd
		return fmt.Sprintf("fd %d", c.fd), []string{"server.acceptNewConn", "dlist.(*DList).InsertBefore(head): appended at the back"}
	case is(args, "request", 2):
		c := w.find(args[1])
		if c == nil {
			return replyErr("no such connection"), nil
		}
		c.idleStart = w.nowMs
		c.idleList.Detach()
		w.idle.InsertBefore(&c.idleList)
		w.touched = c.fd
		return "ok", []string{"server.connectionIO: activity renews the timer", "dlist.(*DList).Detach", "dlist.(*DList).InsertBefore(head): moved to the back"}
	case is(args, "close", 2):
		c := w.find(args[1])
		if c == nil {
			return replyErr("no such connection"), nil
		}
		c.idleList.Detach()
		delete(w.conns, c.fd)
		return "closed", []string{"server.connDone", "dlist.(*DList).Detach"}
	case is(args, "wait", 2):
		if !advanceClock(&w.nowMs, args[1]) {
			return replyErr("expect milliseconds"), nil
		}
		ran := []string{fmt.Sprintf("poll() sleeps; the clock is now %d ms", w.nowMs), "server.processTimers: look at the front of the list"}
		// processTimers: the front of the list is the oldest activity.
		for !w.idle.Empty() {
			next := w.idle.Next().Owner
			if next.idleStart+timerIdleMs > w.nowMs {
				break
			}
			ran = append(ran, fmt.Sprintf("removing idle connection: %d (server.connDone, dlist.(*DList).Detach)", next.fd))
			next.idleList.Detach()
			delete(w.conns, next.fd)
			w.closed = append(w.closed, next.fd)
		}
		return "ok", ran
	default:
		return unknown()
	}
}

func (w *timerWorld) draw() string {
	var c canvas
	cells := []cell{{label: "head", sub: "sentinel"}}
	for d := w.idle.Next(); d != &w.idle; d = d.Next() {
		conn := d.Owner
		due := conn.idleStart + timerIdleMs
		cl := cell{label: fmt.Sprintf("fd %d", conn.fd), sub: fmt.Sprintf("due %d ms", due),
			attrs: fmt.Sprintf(` data-conn="%d"`, conn.fd)}
		if conn.fd == w.touched {
			cl.hl = hlHit
		}
		cells = append(cells, cl)
	}
	next := "no timer: poll() may sleep as long as it likes"
	if !w.idle.Empty() {
		due := w.idle.Next().Owner.idleStart + timerIdleMs
		next = fmt.Sprintf("nextTimerMs: %d ms until fd %d is due", due-w.nowMs, w.idle.Next().Owner.fd)
	}
	c.text(0, 12, "title", fmt.Sprintf("now %d ms; the idle list, least recently active first (a ring through the head)", w.nowMs))
	c.text(0, 28, "sub", next)
	rw := c.drawRow(0, 40, cells, true)
	// The ring closes: the last node links back to the head.
	c.b.WriteString(fmt.Sprintf(`<path d="M %d %d V %d H %d V %d"/>`, rw-gapX-cellW/2, 40+cellH, 40+cellH+14, cellW/2, 40+cellH))
	c.grow(rw, 40+cellH+16)
	if len(w.closed) > 0 {
		c.text(0, 40+cellH+34, "sub", fmt.Sprintf("closed by the idle timeout: %v", w.closed))
	}
	return c.svg("timers")
}
