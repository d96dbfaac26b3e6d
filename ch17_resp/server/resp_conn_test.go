package server

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// newTestRESPConn is newTestConn for a connection of the RESP listener.
func newTestRESPConn(t *testing.T, fd int) *Conn {
	t.Helper()
	conn := newTestConn(t, fd)
	conn.resp = newRESPState()
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
