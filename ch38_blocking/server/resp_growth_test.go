package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// sendInPieces writes req to cli 16 KiB at a time, running the connection
// after each piece until it has read all there is.
func sendInPieces(t *testing.T, conn *conn, cli int, req []byte) {
	t.Helper()
	for len(req) > 0 {
		piece := req[:min(16<<10, len(req))]
		w, err := unix.Write(cli, piece)
		if err != nil && err != unix.EAGAIN {
			t.Fatal(err)
		}
		req = req[max(w, 0):]
		for conn.state == stateReq && loopOnce(t, conn) {
		}
		if conn.state != stateReq {
			t.Fatalf("the connection ended with %d bytes left to send", len(req))
		}
	}
}

// hsetOf is an HSET of h of n fields f0, f1... whose values are of size
// bytes each, the i-th all of the letter 'a'+i%26 (an MSET's shape).
func hsetOf(n, size int) []byte {
	req := fmt.Appendf(nil, "*%d\r\n$4\r\nHSET\r\n$1\r\nh\r\n", 2+2*n)
	for i := 0; i < n; i++ {
		f := fmt.Sprintf("f%d", i)
		req = fmt.Appendf(req, "$%d\r\n%s\r\n$%d\r\n", len(f), f, size)
		req = append(append(req, bytes.Repeat([]byte{byte('a' + i%26)}, size)...), "\r\n"...)
	}
	return req
}

// TestRESPReadBufferCopiesBounded: a request of many bulk strings arriving
// in pieces is not copied again and again as its read buffer grows. The
// buffer was grown to the end of each pending bulk string that ended
// within twice its size, alternately with doubling: an HSET of 64 values
// of 64 KiB (4 MiB) grew it 13 times, copying 13 MB, and 200 values of
// 1 MiB 20 times, to 356 MB, copying 690 MB, the turn of each growth
// holding every other client. Now bulk strings of kBigArg bytes or more
// are read into buffers of their own, and the read buffer doubles, up to
// the request's end once its last argument is pending; whatever a client
// announces, what is held stays within twice what has arrived, counted
// in the budget.
func TestRESPReadBufferCopiesBounded(t *testing.T) {
	saveBudget(t)
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	st := conn.framing.(*respState)
	reply := func(want string) {
		t.Helper()
		buf := make([]byte, 64)
		if r, err := unix.Read(cli, buf); err != nil || string(buf[:r]) != want {
			t.Fatalf("reply %q, %v; want %q", buf[:max(r, 0)], err, want)
		}
	}
	for _, c := range []struct {
		n, size, copies int
	}{
		{64, 64 << 10, 0},  // large values, each read into its own buffer
		{256, 16 << 10, 2}, // smaller ones, into the read buffer, doubling
	} {
		req := hsetOf(c.n, c.size)
		growths, copied := respGrowths, respGrowCopied
		sendInPieces(t, conn, cli, req[:len(req)-1])
		growths, copied = respGrowths-growths, respGrowCopied-copied
		if arrived := len(req) - 1; inputHeld > 2*arrived || inputHeld != cap(st.buf)+st.bigHeld {
			t.Errorf("%d values of %d bytes, all but the last byte there: inputHeld %d, the read buffers have %d + %d bytes",
				c.n, c.size, inputHeld, cap(st.buf), st.bigHeld)
		}
		// Doubling from 16 KiB to 4 MiB, then to the request's end, copies
		// 8 MiB less 16 KiB; each large value moves what of it arrived in
		// the read buffer, up to 16 KiB, and the first doubles from 16 KiB.
		if limit := max(c.copies*len(req), c.n*kRESPBufSize+2*c.size); growths > 9 || copied > limit {
			t.Errorf("%d values of %d bytes in pieces (%d bytes): %d growths of the read buffers copied %d bytes, want at most %d",
				c.n, c.size, len(req), growths, copied, limit)
		}
		sendInPieces(t, conn, cli, req[len(req)-1:])
		reply(fmt.Sprintf(":%d\r\n", c.n))
		if got := respRun(t, "HGET", "h", fmt.Sprintf("f%d", c.n-3)); got != fmt.Sprintf("$%d\r\n%s\r\n", c.size, strings.Repeat(string(rune('a'+(c.n-3)%26)), c.size)) {
			t.Fatalf("HGET h f%d: %.40q", c.n-3, got)
		}
		respRun(t, "DEL", "h")
	}
	if inputHeld != kRESPBufSize || st.bigHeld != 0 || len(st.bigs) != 0 {
		t.Errorf("inputHeld %d, %d in large bulk strings, once the requests were answered", inputHeld, st.bigHeld)
	}

	// A value announced but not sent takes no more than what has arrived.
	announced := fmt.Appendf(nil, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s", 100_000_000, strings.Repeat("v", 100_000))
	sendInPieces(t, conn, cli, announced)
	if inputHeld > 2*len(announced) || inputHeld != cap(st.buf)+st.bigHeld {
		t.Errorf("100 KB of a value of 100 MB: inputHeld %d, the read buffers have %d + %d bytes", inputHeld, cap(st.buf), st.bigHeld)
	}
}

// TestRESPBigArgMovesInSteps: a large bulk string's buffer, outgrown,
// moves to the new one in steps as the reads go on, never all in one
// turn. Copied whole at each doubling, a value of 24 MiB moved 16 MiB
// in the one turn that outgrew 16 MiB, every other client waiting; now no
// read moves more than kMoveStep besides what it brought, the moves add
// up to less than twice the value, and the bytes arrive whole and in order.
func TestRESPBigArgMovesInSteps(t *testing.T) {
	saveBudget(t)
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	st := conn.framing.(*respState)
	const size = 24 << 20
	val := make([]byte, size)
	for i := range val {
		val[i] = byte('a' + i/4093%26)
	}
	req := append(fmt.Appendf(nil, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n", size), val...)
	req = append(req, "\r\n"...)
	const piece = 64 << 10
	copied, most, arrived := respGrowCopied, 0, 0
	for len(req) > 0 {
		w, err := unix.Write(cli, req[:min(piece, len(req))])
		if err != nil && err != unix.EAGAIN {
			t.Fatal(err)
		}
		req, arrived = req[max(w, 0):], arrived+max(w, 0)
		for {
			before := respGrowCopied
			if conn.state != stateReq || !loopOnce(t, conn) {
				break
			}
			most = max(most, respGrowCopied-before)
		}
		if conn.state != stateReq {
			t.Fatalf("the connection ended with %d bytes left to send", len(req))
		}
		if len(req) > 0 && inputHeld > 3*arrived+kRESPBufSize {
			t.Fatalf("%d bytes arrived: inputHeld %d", arrived, inputHeld)
		}
	}
	if copied = respGrowCopied - copied; most > kMoveStep+piece || copied >= 2*size {
		t.Errorf("a value of %d bytes in pieces of %d: one read moved %d bytes (want at most %d), all moved %d",
			size, piece, most, kMoveStep+piece, copied)
	}
	buf := make([]byte, 16)
	if r, err := unix.Read(cli, buf); err != nil || string(buf[:r]) != "+OK\r\n" {
		t.Fatalf("reply %q, %v", buf[:max(r, 0)], err)
	}
	if got := lookupEntry("k"); got == nil || got.val() != string(val) {
		t.Fatal("the value stored is not the one sent")
	}
	if inputHeld != cap(st.buf) || st.bigHeld != 0 {
		t.Errorf("inputHeld %d, %d in large bulk strings, once the request was answered", inputHeld, st.bigHeld)
	}
}
