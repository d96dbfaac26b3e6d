package server

import (
	"bytes"
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
