package server

import (
	"bytes"
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
	conn.framing = newRESPState(nil)
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

	checkTurns(t, conn, cli, reply, n, conn.framing.requestReady)
}
