package server

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// newTestRESPConn is newTestConn for a connection of the RESP listener.
func newTestRESPConn(t *testing.T, fd int) *conn {
	t.Helper()
	conn := newTestConn(t, fd)
	conn.framing = newRESPState(conn)
	return conn
}

// TestRESPDripIsNotProgress: bytes of a RESP request that is still
// incomplete do not restart the idle timer (a client sending one byte now
// and then was otherwise never timed out); answering the request does.
func TestRESPDripIsNotProgress(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	send := func(s string) {
		t.Helper()
		if _, err := unix.Write(cli, []byte(s)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // the clock moves on
		if !loopOnce(t, conn) {
			t.Fatalf("no event for %q", s)
		}
	}
	send("*1\r\n$4\r\nP")
	start := conn.idleStart
	for _, b := range []string{"I", "N", "G", "\r"} {
		send(b)
		if conn.idleStart != start {
			t.Fatalf("the byte %q restarted the idle timer", b)
		}
	}
	send("\n")
	if conn.idleStart == start {
		t.Fatal("answering the request did not restart the idle timer")
	}
	buf := make([]byte, 64)
	if n, err := unix.Read(cli, buf); err != nil || string(buf[:n]) != "+PONG\r\n" {
		t.Fatalf("reply %q, %v; want +PONG", buf[:max(n, 0)], err)
	}
}

// respFlood sets k to a value of 100,000 bytes and sends n pipelined
// RESP gets of it on cli, and returns the reply each gets.
func respFlood(t *testing.T, cli, n int) []byte {
	t.Helper()
	val := strings.Repeat("v", 100_000)
	run("set", "k", val)
	requests := bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), n)
	if w, err := unix.Write(cli, requests); err != nil || w != len(requests) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, len(requests), err)
	}
	return []byte("$100000\r\n" + val + "\r\n")
}

// respReadAll has the client on cli read, a little at a time, the n
// replies it is owed, each equal to reply, running conn's side meanwhile
// and calling check after each step.
func respReadAll(t *testing.T, conn *conn, cli int, reply []byte, n int, check func(string)) {
	t.Helper()
	var got []byte
	buf := make([]byte, 8<<10)
	for received, stalls := 0, 0; received < n; {
		progressed := loopOnce(t, conn)
		check("reading slowly")
		if m, err := unix.Read(cli, buf); err == nil && m > 0 {
			progressed = true
			got = append(got, buf[:m]...)
			for len(got) >= len(reply) {
				if !bytes.Equal(got[:len(reply)], reply) {
					t.Fatalf("reply %d is wrong: %.20q...", received, got)
				}
				got = got[len(reply):]
				received++
			}
		}
		if progressed {
			stalls = 0
			continue
		}
		if stalls++; stalls > 1000 {
			t.Fatalf("stuck after %d of %d replies", received, n)
		}
		time.Sleep(time.Millisecond)
	}
	for loopOnce(t, conn) {
	}
}

// newSlowRESPConn is a RESP connection whose client reads nothing until
// told, with a small send buffer so that the kernel does not absorb the
// replies; outputHeld is restored after the test.
func newSlowRESPConn(t *testing.T) (conn *conn, cli int) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	if err := unix.SetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	savedGrown, savedTotal := outputHeld, maxOutputTotal
	t.Cleanup(func() { outputHeld, maxOutputTotal = savedGrown, savedTotal })
	return newTestRESPConn(t, srv), cli
}

// TestRESPOutputAccounted: a RESP client pipelines gets of a large value
// and reads the replies slowly. Its write buffer is counted in outputHeld
// (which the budget of all connections relies on) and its growth given
// back once the replies are sent; the buffer stays within what canAnswer
// allowed for, and every reply arrives whole and in order.
func TestRESPOutputAccounted(t *testing.T) {
	// The most the buffer may hold: kMaxOutput of unsent replies, then one
	// more reply (100 KB), the buffer doubling to hold it.
	limit := 2 * (kMaxOutput + 100_100)
	conn, cli := newSlowRESPConn(t)
	// Other connections hold some growth already; the bound leaves room.
	const others = 3 << 20
	outputHeld, maxOutputTotal = others, others+8<<20
	const n = 60 // 6 MB of replies
	reply := respFlood(t, cli, n)
	most := 0 // the most reply bytes seen waiting
	check := func(when string) {
		t.Helper()
		if got, want := outputHeld-others, cap(conn.wbuf); got != want {
			t.Fatalf("%s: outputHeld counts %d bytes, the buffer has %d", when, got, want)
		}
		if cap(conn.wbuf) > limit {
			t.Fatalf("%s: the write buffer grew to %d bytes, past %d", when, cap(conn.wbuf), limit)
		}
		most = max(most, conn.pending())
	}
	for i := 0; i < 100 && loopOnce(t, conn); i++ {
		check("not reading")
	}
	// A turn makes one such reply (see kMaxTurn), then the connection
	// waits for room to write: its buffer fills as the client reads, a
	// little at a time, less than each turn makes.
	respReadAll(t, conn, cli, reply, n, check)
	if most < kMaxOutput/2 {
		t.Fatalf("at most %d bytes of replies waited: the test did not fill the buffer", most)
	}
	if outputHeld != others+kWBufSize || cap(conn.wbuf) != kWBufSize {
		t.Fatalf("outputHeld = %d after the replies were sent, the buffer %d bytes; want %d, %d", outputHeld, cap(conn.wbuf), others+kWBufSize, kWBufSize)
	}
}

// TestRESPTotalOutputBounded: with the budget of all connections spent
// but for this connection's usual buffers, and no other connection to
// close, a RESP connection may not grow its write buffer even for one
// reply (4000 slow readers held 480 KB each outside the bound that way):
// a reply larger than the room its buffer has is refused with an error
// saying why, nothing more is counted, and the connection goes on; once
// the budget has room again, the same request is answered.
func TestRESPTotalOutputBounded(t *testing.T) {
	conn, cli := newSlowRESPConn(t)
	const others = 8 << 20
	outputHeld, inputHeld, maxOutputTotal = others, 0, others+kWBufSize+kRESPBufSize
	const n = 20
	reply := respFlood(t, cli, n)
	refusal := []byte("-" + errReplyMemory + "\r\n")
	check := func(when string) {
		t.Helper()
		if outputHeld != others+cap(conn.wbuf) || cap(conn.wbuf) > kWBufSize {
			t.Fatalf("%s: outputHeld %d (want %d), the write buffer has %d bytes (want %d)",
				when, outputHeld, others+kWBufSize, cap(conn.wbuf), kWBufSize)
		}
	}
	respReadAll(t, conn, cli, refusal, n, check)

	outputHeld -= others // the other connections took their replies
	requests := bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), n)
	if w, err := unix.Write(cli, requests); err != nil || w != len(requests) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, len(requests), err)
	}
	respReadAll(t, conn, cli, reply, n, func(string) {})
}

// TestRESPProtocolErrorAccounted: the error answering a request that does
// not parse, added to a full write buffer, grows it through the same
// accounting as any reply.
func TestRESPProtocolErrorAccounted(t *testing.T) {
	conn, _ := newSlowRESPConn(t)
	conn.wbuf = make([]byte, kWBufSize) // full of unsent replies
	outputHeld += kWBufSize
	base := outputHeld
	respProtocolError(conn, "expected '$', got '+'")
	if got, want := outputHeld-base, cap(conn.wbuf)-kWBufSize; got != want || want == 0 {
		t.Fatalf("outputHeld counts %d bytes of growth, the buffer has %d", got, want)
	}
	if !bytes.HasSuffix(conn.wbuf, []byte("-ERR Protocol error: expected '$', got '+'\r\n")) {
		t.Fatalf("the error is not at the end of the buffer: %q", conn.wbuf[len(conn.wbuf)-64:])
	}
}
