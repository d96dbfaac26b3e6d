package server

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"example.com/byor/ch06_eventloop/proto"
	"example.com/byor/ch06_eventloop/sock"
)

// A connection is always in one of these states. It either reads requests
// or writes a response, never both, so poll() watches one direction per fd.
const (
	stateReq = iota // reading requests
	stateRes        // sending a response
	stateEnd        // done: the event loop closes it
)

// conn is one client connection. A nonblocking read or write can stop
// anywhere, so the bytes received but not yet handled, and the bytes of the
// response not yet sent, wait here until the socket is ready again.
type conn struct {
	fd    int
	state int
	// rbuf[:rbufSize] holds received bytes not yet handled.
	rbufSize int
	rbuf     [4 + proto.KMaxMsg]byte
	// wbuf[wbufSent:wbufSize] holds the part of the response still to send.
	wbufSize int
	wbufSent int
	wbuf     [4 + proto.KMaxMsg]byte
}

// connectionIO advances a connection whose socket poll() reported ready.
func connectionIO(conn *conn) {
	switch conn.state {
	case stateReq:
		handleStateReq(conn)
	case stateRes:
		handleStateRes(conn)
		// Requests that arrived with the one just answered may still wait
		// in rbuf. Handle them now: a client that has sent them all will
		// send nothing more to wake us. (The book's code misses this case,
		// and a pipelining client whose replies fill the socket buffer
		// then waits forever.)
		if conn.state == stateReq {
			for tryOneRequest(conn) {
			}
		}
	default:
		panic(fmt.Sprintf("connectionIO: unexpected state %d", conn.state))
	}
}

func handleStateReq(conn *conn) {
	for tryFillBuffer(conn) {
	}
}

// tryFillBuffer reads what the socket has into rbuf and handles every
// complete request in it. It reports whether to keep reading.
func tryFillBuffer(conn *conn) bool {
	// exercise: ch06-state-machine
	n, err := sock.Read(conn.fd, conn.rbuf[conn.rbufSize:])
	if errors.Is(err, unix.EAGAIN) {
		return false // drained the socket; poll() says when there is more
	}
	if err != nil {
		msg("%v", err)
		conn.state = stateEnd
		return false
	}
	if n == 0 {
		if conn.rbufSize > 0 {
			msg("unexpected EOF")
		} else {
			msg("EOF")
		}
		conn.state = stateEnd
		return false
	}
	conn.rbufSize += n

	// A client may send several requests without waiting for replies
	// (pipelining), so one read can bring more than one request.
	for tryOneRequest(conn) {
	}
	return conn.state == stateReq
	// end exercise: ch06-state-machine
}

// tryOneRequest handles the request at the front of rbuf, if it is all
// there, and reports whether to look for another.
func tryOneRequest(conn *conn) bool {
	// exercise: ch06-state-machine
	if conn.rbufSize < 4 {
		return false // wait for the rest of the header
	}
	// Compared before it becomes an int, which on a 32-bit machine
	// would turn a length of 2^31 or more negative.
	size := binary.LittleEndian.Uint32(conn.rbuf[:4])
	if size > proto.KMaxMsg {
		msg("too long")
		conn.state = stateEnd
		return false
	}
	n := int(size)
	if 4+n > conn.rbufSize {
		return false // wait for the rest of the body
	}
	body := conn.rbuf[4 : 4+n]

	fmt.Printf("client says: %s\n", body)

	// The reply echoes the request.
	binary.LittleEndian.PutUint32(conn.wbuf[:4], uint32(n))
	copy(conn.wbuf[4:], body)
	conn.wbufSize = 4 + n

	// Drop the request by moving what follows it to the front. Moving bytes
	// after every request is simple rather than fast (an exercise fixes it).
	conn.rbufSize = copy(conn.rbuf[:], conn.rbuf[4+n:conn.rbufSize])

	conn.state = stateRes
	handleStateRes(conn)
	return conn.state == stateReq
	// end exercise: ch06-state-machine
}

func handleStateRes(conn *conn) {
	for tryFlushBuffer(conn) {
	}
}

// tryFlushBuffer writes what it can of wbuf and reports whether to try
// again. Once the response is all sent the connection reads again.
func tryFlushBuffer(conn *conn) bool {
	// exercise: ch06-state-machine
	n, err := sock.Write(conn.fd, conn.wbuf[conn.wbufSent:conn.wbufSize])
	if errors.Is(err, unix.EAGAIN) {
		return false // the socket buffer is full; poll() says when it drains
	}
	if err != nil {
		msg("%v", err)
		conn.state = stateEnd
		return false
	}
	conn.wbufSent += n
	if conn.wbufSent == conn.wbufSize {
		conn.state = stateReq
		conn.wbufSent = 0
		conn.wbufSize = 0
		return false
	}
	return true
	// end exercise: ch06-state-machine
}
