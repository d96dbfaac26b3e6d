package server

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch15_hardening/proto"
	"example.com/byor/ch15_hardening/sock"
)

// testRequest is one small framed request.
func testRequest() []byte {
	body := proto.EncodeReq([]string{"get", "k"})
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// newTestConn wraps fd in a connection as acceptNewConn would, on a fresh
// timer list of its own.
func newTestConn(fd int) *conn {
	gData.idleList.Init()
	conn := &conn{fd: fd, state: stateReq}
	conn.idleList.Owner = conn
	gData.idleList.InsertBefore(&conn.idleList)
	return conn
}

// TestLeftoverRequestsAfterBlockedReply: a client sends a read buffer's
// worth of small requests in one write, then only reads. Their replies
// overflow a small send buffer, so the connection stops mid-batch to wait
// for POLLOUT with requests still in rbuf. Once the reply is flushed those
// requests must be handled at once: no more input will arrive to prompt
// it. The test plays the event loop's part over a Unix socketpair, whose
// buffer accounting (Linux's) makes a small send buffer fill after a few
// replies, so the outcome does not depend on timing.
func TestLeftoverRequestsAfterBlockedReply(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv, cli := fds[0], fds[1]
	defer unix.Close(srv)
	defer unix.Close(cli)
	for _, fd := range fds {
		if err := sock.SetNonblock(fd); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.SetsockoptInt(srv, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}

	n := (4 + proto.KMaxMsg) / len(testRequest())
	batch := bytes.Repeat(testRequest(), n)
	if w, err := unix.Write(cli, batch); err != nil || w != len(batch) {
		t.Fatalf("sending %d bytes of requests: %d, %v", len(batch), w, err)
	}

	conn := newTestConn(srv)
	replies, stalls := 0, 0
	blockedWithLeftovers := false
	var pending []byte
	buf := make([]byte, 64<<10)
	for replies < n {
		progressed := false
		// Advance the connection only when poll() would report it ready.
		events := int16(unix.POLLIN)
		if conn.state == stateRes {
			events = unix.POLLOUT
		}
		pfd := []unix.PollFd{{Fd: int32(srv), Events: events}}
		if k, _ := unix.Poll(pfd, 0); k > 0 {
			connectionIO(conn)
			progressed = true
			if conn.state == stateRes && conn.rbufSize > 0 {
				blockedWithLeftovers = true
			}
		}
		if conn.state == stateEnd {
			t.Fatal("the server ended the connection")
		}
		// Collect the replies that have arrived.
		if m, err := unix.Read(cli, buf); err == nil && m > 0 {
			progressed = true
			pending = append(pending, buf[:m]...)
			for len(pending) >= 4 {
				size := 4 + int(binary.LittleEndian.Uint32(pending))
				if len(pending) < size {
					break
				}
				pending = pending[size:]
				replies++
			}
		}
		if progressed {
			stalls = 0
			continue
		}
		if stalls++; stalls > 1000 {
			t.Fatalf("stuck after %d of %d replies: the connection waits for input while %d bytes of requests sit unanswered in its buffer",
				replies, n, conn.rbufSize)
		}
		time.Sleep(time.Millisecond)
	}
	if !blockedWithLeftovers {
		t.Fatal("the replies never blocked with requests still buffered; the test did not exercise the case")
	}
}

// TestHugeLengthEndsConnection: a length header of 2^31 or more is above
// k_max_msg like any other and ends the connection. On a 32-bit build
// (GOARCH=386, arm) such a length read as an int turns negative, and
// unless it is compared before that, it passes the check and the slice
// of the body panics. On a 64-bit machine this test passes either way;
// run it with GOARCH=386 to see the difference.
func TestHugeLengthEndsConnection(t *testing.T) {
	for _, size := range []uint32{1 << 31, 1<<32 - 1} {
		conn := newTestConn(-1) // never read or written: the header is all it gets
		binary.LittleEndian.PutUint32(conn.rbuf[:], size)
		conn.rbufSize = 4
		if tryOneRequest(conn) || conn.state != stateEnd {
			t.Errorf("length %#x: the connection is in state %d, want it ended", size, conn.state)
		}
	}
}
