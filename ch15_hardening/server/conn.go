package server

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"example.com/byor/ch15_hardening/dlist"
	"example.com/byor/ch15_hardening/proto"
	"example.com/byor/ch15_hardening/sock"
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
	// When the connection last made progress, and its place in
	// gData.idleList; progress says whether it has during this event
	// (answered a request or sent reply bytes).
	idleStart uint64
	idleList  dlist.DList[conn]
	progress  bool
}

// connectionIO advances a connection whose socket poll() reported ready.
func connectionIO(conn *conn) {
	conn.progress = false
	defer func() {
		// Progress restarts the idle timer: move the connection to the
		// back of the list, which therefore stays ordered by last
		// activity. Bytes of a request that is still incomplete are not
		// progress: a client sending one byte every 100 ms was otherwise
		// never idle and never dropped. So a request must arrive whole
		// within the idle timeout.
		if conn.progress || conn.rbufSize == 0 {
			conn.idleStart = getMonotonicUsec()
			conn.idleList.Detach()
			gData.idleList.InsertBefore(&conn.idleList)
		}
	}()

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
}

// tryOneRequest handles the request at the front of rbuf, if it is all
// there, and reports whether to look for another.
func tryOneRequest(conn *conn) bool {
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

	// Parse and run the request. A malformed one ends the connection.
	cmd, err := proto.ParseReq(body)
	if err != nil {
		msg("bad req: %v", err)
		conn.state = stateEnd
		return false
	}
	out := doRequest(cmd, nil)

	// Frame the serialized reply, unless it would not fit in one message.
	if 4+len(out) > proto.KMaxMsg {
		out = proto.OutErr(out[:0], proto.Code2Big, "response is too big")
	}
	binary.LittleEndian.PutUint32(conn.wbuf[0:4], uint32(len(out)))
	copy(conn.wbuf[4:], out)
	conn.wbufSize = 4 + len(out)

	// Drop the request by moving what follows it to the front. Moving bytes
	// after every request is simple rather than fast (an exercise fixes it).
	conn.rbufSize = copy(conn.rbuf[:], conn.rbuf[4+n:conn.rbufSize])
	conn.progress = true

	conn.state = stateRes
	handleStateRes(conn)
	return conn.state == stateReq
}

func handleStateRes(conn *conn) {
	for tryFlushBuffer(conn) {
	}
}

// tryFlushBuffer writes what it can of wbuf and reports whether to try
// again. Once the response is all sent the connection reads again.
func tryFlushBuffer(conn *conn) bool {
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
	conn.progress = conn.progress || n > 0
	if conn.wbufSent == conn.wbufSize {
		conn.state = stateReq
		conn.wbufSent = 0
		conn.wbufSize = 0
		return false
	}
	return true
}
