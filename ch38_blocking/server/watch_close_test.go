package server

import (
	"fmt"
	"testing"

	"example.com/byor/ch38_blocking/sock"
	"golang.org/x/sys/unix"
)

// closingWatcher is a RESP connection on a socket pair, registered with
// the poller as acceptNewConn registers one, and the client's end.
type closingWatcher struct {
	tc  *txClient
	cli int
}

// newClosingWatcher opens a RESP connection on gData.poller.
func newClosingWatcher(t *testing.T) *closingWatcher {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv, cli := fds[0], fds[1]
	t.Cleanup(func() {
		// The server's end is closed by connHungUp, unless the test
		// stopped before.
		if srv < len(gData.fd2conn) && gData.fd2conn[srv] != nil {
			unix.Close(srv)
		}
	})
	for _, fd := range fds {
		if err := sock.SetNonblock(fd); err != nil {
			t.Fatal(err)
		}
	}
	c := newConn(srv)
	st := newRESPState(c)
	c.framing = st
	c.events = connEvents(c)
	if err := gData.poller.Add(srv, c.events); err != nil {
		t.Fatal(err)
	}
	idleListOf(c).InsertBefore(&c.idleList)
	connPut(&gData.fd2conn, c)
	connsOpen++
	gStats.connsOpen++
	return &closingWatcher{&txClient{t, st, c}, cli}
}

// queuedWatchHeld is what the watched keys waiting in unwatchQueue hold.
func queuedWatchHeld() int {
	n := 0
	for _, st := range unwatchQueue {
		n += st.tx.watchHeld
	}
	return n
}

// TestWatchCloseBounded: fifty connections each watching the same 2,000
// keys hang up together. The loop iteration that finds them closed
// unwatches at most kMaxUnwatch of their 100,000 watches, and the
// iterations after it the rest, kMaxUnwatch at a time, the loop not
// sleeping meanwhile; what the watches hold stays counted in the budget
// until they are unwatched, and then the watchers map starts afresh.
// Before, that one iteration unwatched all 100,000 (200 connections of
// 10,000 keys held a bystander's PING more than a second). Meanwhile the
// closed connections, still in their keys' watchers, change nothing a
// live watcher sees: a write fails only the live watchers' EXEC, FLUSHALL
// too, and an untouched watcher's EXEC runs.
func TestWatchCloseBounded(t *testing.T) {
	const conns, keys = 50, 2000
	resetTx(t)
	savedOpen, savedStats := connsOpen, gStats.connsOpen
	t.Cleanup(func() {
		connsOpen, gStats.connsOpen = savedOpen, savedStats
		unwatchQueue = nil
	})
	poller, err := sock.NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { poller.Close() })
	gData.poller = poller
	respIdleList().Init()

	w := newTxClient(t)
	w.expect(okReply, "SET", "key:9", "v")
	args := []string{"WATCH"}
	for i := range keys {
		args = append(args, fmt.Sprint("key:", i))
	}
	var ws []*closingWatcher
	for range conns {
		cw := newClosingWatcher(t)
		cw.tc.expect(okReply, args...)
		ws = append(ws, cw)
	}
	live, idle := newTxClient(t), newTxClient(t)
	live.expect(okReply, "WATCH", "key:5", "mine")
	idle.expect(okReply, "WATCH", "key:6")
	liveHeld := live.st.tx.held + idle.st.tx.held
	total := conns * keys
	if n := watchEntries(); n != total+3 || inputHeld != liveHeld+conns*ws[0].tc.st.tx.held {
		t.Fatalf("%d watches, inputHeld %d; want %d, %d", n, inputHeld, total+3, liveHeld+conns*ws[0].tc.st.tx.held)
	}

	// They all hang up; one loop iteration finds them so.
	for _, cw := range ws {
		unix.Close(cw.cli)
	}
	events := make([]sock.Event, kMaxEvents)
	n, err := poller.Wait(events, 0)
	if err != nil || n != conns {
		t.Fatalf("the poller reports %d of %d connections (%v)", n, conns, err)
	}
	before, entries := workDone, watchEntries()
	for _, ev := range events[:n] {
		connReady(gData.fd2conn[ev.Fd], ev.Events)
	}
	unwatchClosed(kMaxUnwatch)
	work, removed := workDone-before, entries-watchEntries()
	t.Logf("the iteration that closed %d watchers of %d keys: %d watches removed, %d units of work", conns, keys, removed, work)
	for _, cw := range ws {
		if gData.fd2conn[cw.tc.c.fd] != nil {
			t.Fatalf("connection %d is still open", cw.tc.c.fd)
		}
	}
	if removed > kMaxUnwatch || work > kMaxUnwatch+conns {
		t.Fatalf("the iteration that closed %d watchers removed %d watches, %d units of work; want at most %d",
			conns, removed, work, kMaxUnwatch)
	}
	if removed == 0 || len(unwatchQueue) == 0 || nextTimerMs() != 0 {
		t.Fatalf("removed %d watches, %d connections queued, the loop may sleep %d ms: want some of each, and 0",
			removed, len(unwatchQueue), nextTimerMs())
	}
	if inputHeld != liveHeld+queuedWatchHeld() {
		t.Fatalf("inputHeld %d, want the live watchers' %d and the queued watches' %d", inputHeld, liveHeld, queuedWatchHeld())
	}

	// Writes while they drain: only the live watchers see them.
	w.expect(okReply, "SET", "key:5", "v")
	if set, ok := watchers["key:5"]; ok {
		t.Fatalf("key:5, written, still has %d watchers", len(set))
	}
	live.expect(okReply, "MULTI")
	live.expect(queued, "SET", "ran", "1")
	live.expect(nullArray, "EXEC")
	flushed := newTxClient(t)
	flushed.expect(okReply, "WATCH", "key:9")
	w.expect(okReply, "FLUSHALL")
	flushed.expect(okReply, "MULTI")
	flushed.expect(nullArray, "EXEC")
	idle.expect(okReply, "MULTI")
	idle.expect(queued, "GET", "key:6")
	idle.expect("*1\r\n$-1\r\n", "EXEC")
	if lookupEntry("ran") != nil {
		t.Fatal("the touched watcher's transaction ran")
	}

	// The later iterations unwatch the rest, a bounded number each.
	rounds := 1
	for len(unwatchQueue) > 0 {
		if nextTimerMs() != 0 {
			t.Fatalf("round %d: the loop may sleep %d ms with %d connections' keys to unwatch", rounds, nextTimerMs(), len(unwatchQueue))
		}
		before, entries := workDone, watchEntries()
		done := unwatchClosed(kMaxUnwatch)
		rounds++
		if done > kMaxUnwatch || workDone-before != done || entries-watchEntries() > done {
			t.Fatalf("round %d unwatched %d keys, %d units of work, %d watches removed; want at most %d",
				rounds, done, workDone-before, entries-watchEntries(), kMaxUnwatch)
		}
		if inputHeld != queuedWatchHeld() {
			t.Fatalf("round %d: inputHeld %d, the queued watches hold %d", rounds, inputHeld, queuedWatchHeld())
		}
		if rounds > 2*total/kMaxUnwatch+conns {
			t.Fatalf("%d rounds and %d connections still queued", rounds, len(unwatchQueue))
		}
	}
	t.Logf("%d watches unwatched over %d loop iterations", total, rounds)
	if rounds < total/kMaxUnwatch-1 {
		t.Fatalf("%d watches unwatched in %d iterations of at most %d", total, rounds, kMaxUnwatch)
	}
	if len(watchers) != 0 || inputHeld != 0 || watchersPeak != 0 || unwatchQueue != nil {
		t.Fatalf("at the end: %d keys watched, inputHeld %d, peak %d, queue %d; want none, a fresh map",
			len(watchers), inputHeld, watchersPeak, len(unwatchQueue))
	}

	// A formerly watched key, written, fails only its new watcher.
	again := newTxClient(t)
	again.expect(okReply, "WATCH", "key:100")
	w.expect(okReply, "SET", "key:100", "v")
	again.expect(okReply, "MULTI")
	again.expect(nullArray, "EXEC")
	if len(watchers) != 0 || inputHeld != 0 {
		t.Fatalf("after the last EXEC: %d keys watched, inputHeld %d", len(watchers), inputHeld)
	}
}

// TestWatchCloseForMemory: a connection closed by connDone (budgetMake
// closes the one holding the most to make room) gives back its watched
// keys at once: the room is needed now.
func TestWatchCloseForMemory(t *testing.T) {
	resetTx(t)
	savedOpen, savedStats := connsOpen, gStats.connsOpen
	t.Cleanup(func() { connsOpen, gStats.connsOpen = savedOpen, savedStats })
	poller, err := sock.NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { poller.Close() })
	gData.poller = poller
	respIdleList().Init()
	cw := newClosingWatcher(t)
	t.Cleanup(func() { unix.Close(cw.cli) })
	cw.tc.expect(okReply, "WATCH", "a", "b", "c")
	connDone(cw.tc.c)
	if len(watchers) != 0 || inputHeld != 0 || unwatchQueue != nil {
		t.Fatalf("after connDone: %d keys watched, inputHeld %d, %d connections queued", len(watchers), inputHeld, len(unwatchQueue))
	}
}
