package server

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRESPTurnBounded: TestTurnBounded for a connection speaking RESP,
// whose requests wait in a buffer of its own: each turn makes at most
// kMaxTurn of replies (plus the one that crosses it), the connection waits
// for room to write while requests are left, and all of them are answered
// before the client's EOF ends it.
func TestRESPTurnBounded(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestConn(t, srv)
	conn.resp = newRESPState()
	val := strings.Repeat("v", 4000)
	run("set", "k", val)
	reply := []byte(fmt.Sprintf("$%d\r\n%s\r\n", len(val), val))
	n := 4 * kMaxTurn / len(reply) // several turns' worth, in one read
	requests := bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), n)
	if len(requests) > kRESPBufSize {
		t.Fatalf("test bug: %d bytes of requests take more than one read", len(requests))
	}
	if w, err := unix.Write(cli, requests); err != nil || w != len(requests) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, len(requests), err)
	}
	if err := unix.Shutdown(cli, unix.SHUT_WR); err != nil {
		t.Fatal(err)
	}

	var got []byte
	buf := make([]byte, 64<<10)
	turns := 0
	for conn.state != stateEnd {
		if !loopOnce(t, conn) {
			t.Fatalf("after %d turns, %d bytes of replies, epoll does not report the connection (state %d, events %#x)",
				turns, len(got), conn.state, conn.events)
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
		got = append(got, buf[:max(m, 0)]...)
		if conn.state == stateReq && requestReady(conn) && conn.events&unix.EPOLLOUT == 0 {
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
