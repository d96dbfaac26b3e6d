package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/sock"
)

// These tests drive a connection over a socketpair, playing the event
// loop's part with the real poller (epoll; poll() with -tags
// pollfallback), so the buffer sizes, and the outcome, do not depend on
// the machine.

// testFrame frames a command the way the client does, written out here
// rather than taken from package proto.
func testFrame(cmd ...string) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(len(cmd)))
	for _, s := range cmd {
		body = binary.LittleEndian.AppendUint32(body, uint32(len(s)))
		body = append(body, s...)
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// testStrReply is the framed reply carrying the string s.
func testStrReply(s string) []byte {
	body := append([]byte{2}, binary.LittleEndian.AppendUint32(nil, uint32(len(s)))...)
	body = append(body, s...)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// testPair returns a nonblocking pair of connected sockets of type typ,
// closed when the test ends: the server's end and the client's.
func testPair(t *testing.T, typ int) (srv, cli int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, typ, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	for _, fd := range fds {
		if err := sock.SetNonblock(fd); err != nil {
			t.Fatal(err)
		}
	}
	return fds[0], fds[1]
}

// newTestConn wraps fd in a connection registered with a fresh poller,
// on a fresh timer list, as acceptNewConn would.
func newTestConn(t *testing.T, fd int) *conn {
	t.Helper()
	resetData(t)
	poller, err := sock.NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { poller.Close() })
	gData.poller = poller
	conn := newConn(fd)
	conn.events = connEvents(conn)
	if err := poller.Add(fd, conn.events); err != nil {
		t.Fatal(err)
	}
	gData.idleList.InsertBefore(&conn.idleList)
	return conn
}

// loopOnce is one turn of the event loop for conn alone: if the poller
// reports its socket ready for what it waits for, advance it and update
// its events, as serve does. It reports whether the connection was
// advanced.
func loopOnce(t *testing.T, conn *conn) bool {
	t.Helper()
	var evs [1]sock.Event
	n, err := gData.poller.Wait(evs[:], 0)
	if errors.Is(err, unix.EINTR) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return false
	}
	connectionIO(conn, evs[0].Events)
	if conn.state != stateEnd {
		connWatch(conn)
	}
	return true
}

// requestWaiting reports whether a complete request sits at the front of
// the connection's read buffer.
func requestWaiting(conn *conn) bool {
	avail := conn.rbuf[conn.rbufStart:conn.rbufEnd]
	return len(avail) >= 4 && 4+int(binary.LittleEndian.Uint32(avail)) <= len(avail)
}

// TestRepliesBatchedInOneWrite: the replies to requests that arrive
// together go out in one write. Over a SOCK_SEQPACKET pair every write is
// one record and every read returns at most one, so the client's first
// read shows exactly what the server's first write held.
func TestRepliesBatchedInOneWrite(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_SEQPACKET)
	conn := newTestConn(t, srv)
	run("set", "k", "v")
	var batch, want []byte
	for range 16 {
		batch = append(batch, testFrame("get", "k")...)
		want = append(want, testStrReply("v")...)
	}
	if _, err := unix.Write(cli, batch); err != nil {
		t.Fatal(err)
	}
	if !loopOnce(t, conn) {
		t.Fatal("epoll did not report the request batch")
	}
	buf := make([]byte, 64<<10)
	n, err := unix.Read(cli, buf)
	if err != nil {
		t.Fatalf("reading the first record: %v", err)
	}
	if !bytes.Equal(buf[:n], want) {
		t.Fatalf("first write held %d bytes, want all 16 replies (%d bytes): %q", n, len(want), buf[:n])
	}
	if conn.events != sock.In {
		t.Errorf("after sending everything the connection waits for events %#x, want input only", conn.events)
	}
}

// TestReadBufferConsumedByOffset: handling requests only moves rbufStart;
// the bytes left are moved to the front before the next read, so a
// request of the largest size still fits after a small one.
func TestReadBufferConsumedByOffset(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestConn(t, srv)
	small := testFrame("set", "k", "v")
	// A request of exactly the largest size: 4+KMaxMsg bytes in all.
	big := testFrame("set", "big", "")
	big = testFrame("set", "big", strings.Repeat("x", kRBufSize-len(big)))
	if len(big) != kRBufSize {
		t.Fatalf("test bug: the big request is %d bytes, want %d", len(big), kRBufSize)
	}

	// Two small requests and the start of the big one.
	first := append(append(append([]byte{}, small...), small...), big[:100]...)
	if _, err := unix.Write(cli, first); err != nil {
		t.Fatal(err)
	}
	loopOnce(t, conn)
	if conn.rbufStart != 2*len(small) || conn.rbufEnd != len(first) {
		t.Fatalf("after two requests: rbuf[%d:%d], want rbuf[%d:%d] (consumed by offset, nothing moved)",
			conn.rbufStart, conn.rbufEnd, 2*len(small), len(first))
	}
	if !bytes.Equal(conn.rbuf[conn.rbufStart:conn.rbufEnd], big[:100]) {
		t.Fatal("the partial request is not where the offsets say")
	}

	// The rest of the big request only fits once the partial one has
	// moved to the front.
	if _, err := unix.Write(cli, big[100:]); err != nil {
		t.Fatal(err)
	}
	loopOnce(t, conn)
	if conn.state != stateReq {
		t.Fatalf("state %d after the big request, want stateReq", conn.state)
	}
	if conn.rbufStart != len(big) || conn.rbufEnd != len(big) {
		t.Fatalf("after the big request: rbuf[%d:%d], want rbuf[%d:%d]", conn.rbufStart, conn.rbufEnd, len(big), len(big))
	}
	if got := run("get", "big"); len(got) != 5+kRBufSize-len(testFrame("set", "big", "")) {
		t.Fatalf("get big after the request: %d bytes", len(got))
	}
}

// TestBacklogBoundedAndResumed: a client sends, in one write, requests
// whose replies come to more than kMaxOutput, and reads nothing until the
// server is stuck. The server must answer until it owes about kMaxOutput,
// then stop reading, with the last requests left in rbuf and none in the
// socket; once the client reads, those requests must be answered without
// any more input (the pipelining fix: nothing else will wake the server),
// and every reply must arrive intact and in order. Whenever a complete
// request is left unanswered in rbuf (the output bound, or the end of the
// connection's turn, kMaxTurn), the connection must wait for room to write,
// which is what brings it back.
//
// The backlog drains either in many short writes, or, if the socket's
// send buffer grows at the bound, in one write that sends it all; then
// the server must go round again by itself to answer the requests left.
func TestBacklogBoundedAndResumed(t *testing.T) {
	t.Run("short writes", func(t *testing.T) { testBacklog(t, false) })
	t.Run("one write", func(t *testing.T) { testBacklog(t, true) })
}

func testBacklog(t *testing.T, growAtBound bool) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	// A small send buffer keeps the kernel from absorbing the replies.
	if err := unix.SetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	conn := newTestConn(t, srv)
	val := strings.Repeat("v", 4000)
	run("set", "k", val)
	reply := testStrReply(val)
	// A few more than the bound lets through, and few enough that all of
	// them fit in two reads of rbuf.
	n := kMaxOutput/len(reply) + 40
	requests := bytes.Repeat(testFrame("get", "k"), n)
	if len(requests) > 2*kRBufSize {
		t.Fatalf("test bug: %d bytes of requests take more than two reads", len(requests))
	}

	stalls, received := 0, 0
	bounded := false
	var pending []byte
	buf := make([]byte, 64<<10)
	for received < n {
		progressed := loopOnce(t, conn)
		if conn.state != stateReq {
			t.Fatalf("the connection left stateReq (state %d)", conn.state)
		}
		if requestWaiting(conn) && conn.events&sock.Out == 0 {
			t.Fatal("a complete request is left unanswered, and the connection does not wait for room to write")
		}
		if conn.pending() > kMaxOutput || cap(conn.wbuf) > kMaxOutput {
			t.Fatalf("%d bytes of replies pending in a buffer of %d, past the bound %d", conn.pending(), cap(conn.wbuf), kMaxOutput)
		}
		if !bounded && requestWaiting(conn) && conn.pending() > kMaxOutput-len(reply) {
			if conn.events&sock.In != 0 {
				t.Fatal("at the output bound the connection still waits for input")
			}
			unread, err := unix.IoctlGetInt(srv, unix.SIOCINQ)
			if err != nil || unread != 0 || len(requests) != 0 {
				t.Fatalf("at the bound %d bytes of requests are unsent and %d unread (%v): the test needs them all in rbuf",
					len(requests), unread, err)
			}
			bounded = true
			if growAtBound {
				// Room for the whole backlog (Linux doubles the value, up to
				// twice net.core.wmem_max).
				unix.SetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<20)
				if got, err := unix.GetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF); err != nil || got < 2*kMaxOutput {
					t.Skipf("cannot grow the send buffer past the backlog (SO_SNDBUF %d, %v); see net.core.wmem_max", got, err)
				}
			}
		}
		// Send what the socket takes.
		if len(requests) > 0 {
			if w, err := unix.Write(cli, requests); err == nil {
				requests = requests[w:]
				progressed = true
			}
		}
		// Read only once the server has hit the bound, or stalled.
		if bounded || stalls > 10 {
			if m, err := unix.Read(cli, buf); err == nil && m > 0 {
				progressed = true
				pending = append(pending, buf[:m]...)
				for len(pending) >= len(reply) {
					if !bytes.Equal(pending[:len(reply)], reply) {
						t.Fatalf("reply %d is wrong: %q...", received, pending[:min(len(pending), 16)])
					}
					pending = pending[len(reply):]
					received++
				}
			}
		}
		if progressed {
			stalls = 0
			continue
		}
		if stalls++; stalls > 1000 {
			t.Fatalf("stuck after %d of %d replies: %d bytes of requests unsent, %d in rbuf, %d bytes of replies pending",
				received, n, len(requests), conn.rbufEnd-conn.rbufStart, conn.pending())
		}
		time.Sleep(time.Millisecond)
	}
	if !bounded {
		t.Fatal("the server never reached the output bound; the test did not exercise it")
	}
	if cap(conn.wbuf) != kWBufSize {
		t.Errorf("after the backlog the write buffer holds %d bytes, want it back to %d", cap(conn.wbuf), kWBufSize)
	}
}

// TestBadRequestAfterBacklog: a malformed request that follows a backlog
// of replies ends the connection only once those replies are sent.
func TestBadRequestAfterBacklog(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	if err := unix.SetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	conn := newTestConn(t, srv)
	val := strings.Repeat("v", 4000)
	run("set", "k", val)
	// As many as one turn answers (see kMaxTurn), more than the socket takes.
	n := (kMaxTurn - 1) / len(testStrReply(val))
	requests := append(bytes.Repeat(testFrame("get", "k"), n), 0xff, 0xff, 0xff, 0xff) // then a length far too big
	if _, err := unix.Write(cli, requests); err != nil {
		t.Fatal(err)
	}
	for loopOnce(t, conn) && conn.state == stateReq {
	}
	if conn.state != stateClose {
		t.Fatalf("state %d after the bad request with replies unsent, want stateClose", conn.state)
	}
	if conn.events != sock.Out {
		t.Errorf("a closing connection waits for events %#x, want output only", conn.events)
	}
	var got []byte
	buf := make([]byte, 64<<10)
	for stalls := 0; conn.state != stateEnd; {
		if m, err := unix.Read(cli, buf); err == nil && m > 0 {
			got = append(got, buf[:m]...)
			stalls = 0
		}
		if !loopOnce(t, conn) {
			if stalls++; stalls > 1000 {
				t.Fatalf("stuck in state %d with %d bytes pending", conn.state, conn.pending())
			}
			time.Sleep(time.Millisecond)
		}
	}
	for {
		m, err := unix.Read(cli, buf)
		if err != nil || m == 0 {
			break
		}
		got = append(got, buf[:m]...)
	}
	if want := bytes.Repeat(testStrReply(val), n); !bytes.Equal(got, want) {
		t.Fatalf("before the close the client got %d bytes, want the %d replies (%d bytes)", len(got), n, len(want))
	}
}

// TestTurnBounded: however many requests one read brings, a connection
// makes at most kMaxTurn of replies in one turn (plus the reply that
// crosses it), so that the event loop gets on to other connections. The
// requests left are answered on its next turns, with no more input: it
// must wait for room to write, which epoll reports at once. The client has
// hung up its side after sending them; the EOF must not be read before
// they are all answered, and every reply must arrive, in order.
func TestTurnBounded(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestConn(t, srv)
	val := strings.Repeat("v", 4000)
	run("set", "k", val)
	reply := testStrReply(val)
	n := 4 * kMaxTurn / len(reply) // several turns' worth, in one read
	requests := bytes.Repeat(testFrame("get", "k"), n)
	if len(requests) > kRBufSize {
		t.Fatalf("test bug: %d bytes of requests take more than one read", len(requests))
	}
	if w, err := unix.Write(cli, requests); err != nil || w != len(requests) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, len(requests), err)
	}
	if err := unix.Shutdown(cli, unix.SHUT_WR); err != nil {
		t.Fatal(err)
	}

	checkTurns(t, conn, cli, reply, n, requestWaiting)
}

// TestTurnRequestsBounded: requests with short replies are bounded per
// turn by their number (kMaxTurnRequests), not only by the bytes of their
// replies: one read brings some two hundred gets of a missing key, whose
// 5-byte replies make 1 KB, far under kMaxTurn.
func TestTurnRequestsBounded(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestConn(t, srv)
	req := testFrame("get", "k")
	n := kRBufSize / len(req) // all in one read
	if n < 3*kMaxTurnRequests {
		t.Fatalf("test bug: %d requests fit in one read, want several turns' worth", n)
	}
	if w, err := unix.Write(cli, bytes.Repeat(req, n)); err != nil || w != n*len(req) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, n*len(req), err)
	}
	if err := unix.Shutdown(cli, unix.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	checkTurns(t, conn, cli, []byte{1, 0, 0, 0, 0}, n, requestWaiting) // a nil
}

// checkTurns runs the event loop for conn until the connection ends,
// reading what the client end cli received after every turn. Each turn may
// make at most kMaxTurn of replies, plus the one that crosses it, and
// answer at most kMaxTurnRequests requests; a turn
// that leaves a complete request waiting (as waiting tells) must ask for
// room to write, so that epoll brings the connection back; and in all the
// client must get reply n times.
func checkTurns(t *testing.T, conn *conn, cli int, reply []byte, n int, waiting func(*conn) bool) {
	t.Helper()
	var got []byte
	buf := make([]byte, 64<<10)
	turns := 0
	for conn.state != stateEnd {
		if !loopOnce(t, conn) {
			t.Fatalf("after %d turns, %d bytes of replies, epoll does not report the connection (state %d, events %#x, request waiting %v)",
				turns, len(got), conn.state, conn.events, waiting(conn))
		}
		turns++
		if conn.pending() > 0 {
			t.Fatalf("turn %d: %d bytes of replies unsent; the socket was to take them all", turns, conn.pending())
		}
		m, err := unix.Read(cli, buf)
		if err != nil && !errors.Is(err, unix.EAGAIN) {
			t.Fatal(err)
		}
		if m > kMaxTurn+len(reply) {
			t.Fatalf("turn %d made %d bytes of replies, past kMaxTurn (%d) and one reply", turns, m, kMaxTurn)
		}
		if m/len(reply) > kMaxTurnRequests {
			t.Fatalf("turn %d answered %d requests, past kMaxTurnRequests (%d)", turns, m/len(reply), kMaxTurnRequests)
		}
		got = append(got, buf[:max(m, 0)]...)
		if conn.state == stateReq && waiting(conn) && conn.events&sock.Out == 0 {
			t.Fatalf("turn %d left requests unanswered and does not wait for room to write", turns)
		}
		if turns > 10*n {
			t.Fatalf("still open after %d turns", turns)
		}
	}
	if want := bytes.Repeat(reply, n); !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes of replies, want the %d replies (%d bytes)", len(got), n, len(want))
	}
	if turns < 4 {
		t.Errorf("%d replies of %d bytes came in %d turns; the turn does not bound them", n, len(reply), turns)
	}
}

// TestHugeLengthStopsReading: a length header of 2^31 or more is above
// k_max_msg like any other: it is ready to be handled as soon as it is
// read, and handling it ends the connection. On a 32-bit build
// (GOARCH=386, arm) such a length read as an int turns negative, and
// unless it is compared before that, it passes the check and the slice
// of the body panics. On a 64-bit machine this test passes either way;
// run it with GOARCH=386 to see the difference.
func TestHugeLengthStopsReading(t *testing.T) {
	for _, size := range []uint32{1 << 31, 1<<32 - 1} {
		conn := newConn(-1) // never read or written: the header is all it gets
		conn.rbuf = binary.LittleEndian.AppendUint32(nil, size)
		conn.rbufEnd = len(conn.rbuf)
		if !requestReady(conn) {
			t.Errorf("length %#x: the header is not ready to be handled", size)
		}
		if tryOneRequest(conn) || conn.state != stateEnd {
			t.Errorf("length %#x: the connection is in state %d, want it ended", size, conn.state)
		}
	}
}
