package server

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/sock"
)

// TestTotalOutputBounded: once the connections hold all of
// maxOutputTotal, a connection with a backlog of replies keeps its usual
// buffer and stops reading requests until it takes its replies, which then
// all arrive, intact and in order.
func TestTotalOutputBounded(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	// A small send buffer keeps the kernel from absorbing the replies.
	if err := unix.SetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	conn := newTestConn(t, srv)
	// Other connections hold all the budget but this one's usual buffers.
	savedOut, savedIn := outputHeld, inputHeld
	outputHeld, inputHeld = maxOutputTotal-kWBufSize-kRBufSize, 0
	t.Cleanup(func() { outputHeld, inputHeld = savedOut, savedIn })

	val := strings.Repeat("v", 4000)
	run("set", "k", val)
	reply := testStrReply(val)
	const n = 100 // 400 KB of replies, far more than kWBufSize
	requests := bytes.Repeat(testFrame("get", "k"), n)
	if w, err := unix.Write(cli, requests); err != nil || w != len(requests) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, len(requests), err)
	}
	for i := 0; i < 100 && loopOnce(t, conn); i++ {
	}
	if cap(conn.wbuf) > kWBufSize {
		t.Fatalf("the write buffer grew to %d bytes with the total bound reached", cap(conn.wbuf))
	}
	if !requestWaiting(conn) || conn.events&sock.Out == 0 {
		t.Fatalf("want requests left unanswered and the connection waiting for room to write (events %#x)", conn.events)
	}
	if budgetLeft() != 0 {
		t.Fatalf("the connections hold %d bytes, want %d", outputHeld+inputHeld, maxOutputTotal)
	}

	// The client reads: every reply arrives.
	var pending []byte
	buf := make([]byte, 64<<10)
	for received, stalls := 0, 0; received < n; {
		progressed := loopOnce(t, conn)
		if m, err := unix.Read(cli, buf); err == nil && m > 0 {
			progressed = true
			pending = append(pending, buf[:m]...)
			for len(pending) >= len(reply) {
				if !bytes.Equal(pending[:len(reply)], reply) {
					t.Fatalf("reply %d is wrong: %q...", received, pending[:16])
				}
				pending = pending[len(reply):]
				received++
			}
		}
		if cap(conn.wbuf) > kWBufSize {
			t.Fatalf("the write buffer grew to %d bytes with the total bound reached", cap(conn.wbuf))
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
	if budgetLeft() != 0 {
		t.Fatalf("the connections hold %d bytes after the backlog, want %d", outputHeld+inputHeld, maxOutputTotal)
	}
}
