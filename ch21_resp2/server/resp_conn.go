package server

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch21_resp2/dlist"
	"example.com/byor/ch21_resp2/resp"
	"example.com/byor/ch21_resp2/sock"
)

// DefaultRESPAddr is where the server speaks Redis's protocol unless told
// otherwise: 6380, next to Redis's own 6379 rather than on it, so that the
// server starts even where a real Redis is running (to compare the two,
// say). redis-cli tries 6379 when given no port: run it as
// redis-cli -p 6380.
const DefaultRESPAddr = "127.0.0.1:6380"

// respListenFd is the socket that accepts RESP connections, or -1 when
// the server speaks only the book's protocol (-resp-addr "").
var respListenFd = -1

// parseRESPAddr checks the -resp-addr flag: an address, or "" for none.
func parseRESPAddr(addr string) (*unix.SockaddrInet4, error) {
	if addr == "" {
		return nil, nil
	}
	return sock.ParseAddr(addr)
}

// respListen opens the RESP listener on sa, if any, and logs where. The
// event loop watches it beside the book's listener (see respRegister).
func respListen(sa *unix.SockaddrInet4) error {
	if sa == nil {
		return nil
	}
	fd, err := sock.Listen(sa)
	if err != nil {
		return err
	}
	bound, err := sock.LocalAddr(fd)
	if err != nil {
		unix.Close(fd)
		return err
	}
	if err := sock.SetNonblock(fd); err != nil {
		unix.Close(fd)
		return err
	}
	respListenFd = fd
	msg("listening for RESP on %s", bound)
	return nil
}

// respRegister adds the RESP listener, if any, to the poller's set.
func respRegister(poller sock.Poller) error {
	if respListenFd < 0 {
		return nil
	}
	return poller.Add(respListenFd, sock.In)
}

// respTimeoutMs is how long a RESP connection may stay silent before the
// server closes it: Redis's timeout (the -timeout flag, in seconds), 0 for
// never, Redis's default. A client such as redis-cli that waits for its
// user keeps its connection however long the user thinks.
var respTimeoutMs uint64

// respIdle holds the RESP connections, ordered by last activity as
// gData.idleList holds the book's, for their own timeout.
var respIdle dlist.DList[conn]

// respIdleList returns respIdle, set up on first use.
func respIdleList() *dlist.DList[conn] {
	if respIdle.Next() == nil {
		respIdle.Init()
	}
	return &respIdle
}

// idleListOf returns the list of conn's idle timer: each listener's
// connections have their own timeout.
func idleListOf(conn *conn) *dlist.DList[conn] {
	if _, ok := conn.framing.(*respState); ok {
		return respIdleList()
	}
	return &gData.idleList
}

// respState is a connection of the RESP listener: its framing (see
// framing in conn.go). Its requests are not length-prefixed, so it reads
// into a buffer of its own that grows until a whole request is there;
// rbuf, sized for the book's 4 KiB messages, is not used.
type respState struct {
	// The connection it frames.
	conn *conn
	// buf[start:] holds received bytes not yet parsed; buf is nil until
	// the first read, and while the connection is idle.
	buf   []byte
	start int
	// Where the replies are written.
	w respWriter
}

// kRESPBufSize is the usual size of a RESP connection's read buffer. A
// request that does not fit doubles it, within the budget.
const kRESPBufSize = 16 << 10

// respArgs is the array the RESP requests' arguments are parsed into, one
// request at a time, kept from one request to the next.
var respArgs [][]byte

func newRESPState(conn *conn) *respState {
	return &respState{conn: conn, w: respWriter{conn: conn}}
}

// fill is tryFillBuffer for a RESP connection: one read into the free end
// of its buffer, which is first compacted, taken if the connection has
// none, and doubled when a partial request already fills it. The buffer
// is counted in the budget of all connections' memory; one that cannot
// grow within it ends the connection (after the connection holding the
// most, if it is another, is closed: see budgetMake).
func (st *respState) fill(conn *conn) {
	if st.start > 0 {
		st.buf = st.buf[:copy(st.buf, st.buf[st.start:])]
		st.start = 0
	}
	switch {
	case len(st.buf) == 0:
		st.shrink()
	case len(st.buf) == cap(st.buf):
		size := 2 * cap(st.buf)
		if !budgetMake(conn, size-cap(st.buf)) {
			respRefuse(conn, errClientMemory)
			return
		}
		inputHeld += size - cap(st.buf)
		grown := make([]byte, len(st.buf), size)
		copy(grown, st.buf)
		st.buf = grown
	}
	if st.buf == nil {
		if !budgetMake(conn, kRESPBufSize) {
			respRefuse(conn, errClientMemory)
			return
		}
		inputHeld += kRESPBufSize
		st.buf = make([]byte, 0, kRESPBufSize)
	}
	st.buf = st.buf[:len(st.buf)+st.read(conn, st.buf[len(st.buf):cap(st.buf)])]
}

// read is one read into dst, and returns how many bytes it brought: none
// if the socket had none, failed, or was closed (the connection is then
// ended once its replies are sent).
func (st *respState) read(conn *conn, dst []byte) int {
	n, err := sock.Read(conn.fd, dst)
	if errors.Is(err, unix.EAGAIN) {
		return 0
	}
	if err != nil {
		connMsg(os.Stderr, "%v", err)
		conn.state = stateEnd
		return 0
	}
	if n == 0 {
		if len(st.buf) > 0 {
			connMsg(os.Stderr, "unexpected EOF")
		} else {
			connMsg(os.Stderr, "EOF")
		}
		stopReading(conn)
	}
	return n
}

// errClientMemory ends a connection whose request would need more memory
// than the budget of all connections can hold, this one holding the most.
const errClientMemory = "ERR the server's memory for clients is full (-max-output-mb): request refused, connection closed"

// errReplyTooBig refuses a reply larger than the write buffer can take:
// this chapter's replies do not grow it.
const errReplyTooBig = "ERR response is too big"

// shrink gives back a read buffer grown for a large request, once it
// holds nothing: the connection keeps one of the usual size.
func (st *respState) shrink() {
	if len(st.buf) == 0 && cap(st.buf) > kRESPBufSize {
		inputHeld -= cap(st.buf) - kRESPBufSize
		st.buf = make([]byte, 0, kRESPBufSize)
	}
}

// held is what the connection holds besides its write buffer: its read
// buffer (see clientmem.go).
func (st *respState) held() int { return cap(st.buf) }

// giveBack frees the read buffer if it holds nothing (see clientmem.go).
func (st *respState) giveBack() {
	if st.buf != nil && st.start == len(st.buf) {
		inputHeld -= cap(st.buf)
		st.buf, st.start = nil, 0
	}
}

// release gives back what a closed connection held in inputHeld.
func (st *respState) release() {
	inputHeld -= cap(st.buf)
	st.buf = nil
}

// oneRequest is tryOneRequest for a RESP connection: it answers the
// request at the front of the buffer, if it is all there, and reports
// whether it did.
func (st *respState) oneRequest(conn *conn) bool {
	cmd, n, err := resp.ParseRequest(st.buf[st.start:], respArgs)
	if err != nil {
		if err != resp.ErrIncomplete {
			respParseError(conn, err)
		}
		return false
	}
	respArgs = cmd[:0] // keep the array, grown or not, for the next request
	defer clear(cmd)   // no pointers into this connection's buffer
	st.start += n
	if len(cmd) == 0 {
		return true // an empty array: nothing to answer
	}
	// The reply goes in wbuf through the book's path's accounting: the
	// replies already sent are moved out first, and room is made for a
	// reply of at least the book's size (wbufReserve); a reply larger
	// than the buffer's room is refused.
	if conn.wbufSent > 0 {
		conn.wbuf = append(conn.wbuf[:0], conn.wbuf[conn.wbufSent:]...)
		conn.wbufSent = 0
	}
	if !wbufReserve(conn) {
		respRefuse(conn, errClientMemory)
		return false
	}
	st.w.begin(conn.wbuf)
	respDo(conn, st, cmd)
	stepKeySpace()
	if st.w.over {
		st.w.begin(conn.wbuf)
		st.w.err(errReplyTooBig)
	}
	if st.start == len(st.buf) {
		st.buf, st.start = st.buf[:0], 0
		st.shrink()
	}
	conn.wbuf, st.w.buf = st.w.buf, nil
	conn.progress = true
	return true
}

// respParseError answers a request the parser rejects: err is a
// *resp.ProtocolError, the only error besides resp.ErrIncomplete.
// (errors.As would make its target escape: an allocation per request.)
func respParseError(conn *conn, err error) {
	msg := "invalid request"
	if perr, ok := err.(*resp.ProtocolError); ok {
		msg = perr.Msg
	}
	respProtocolError(conn, msg)
}

// requestReady is requestReady for a RESP connection: whether its buffer
// holds a whole request, or bytes the parser rejects, for the next turn
// to handle.
func (st *respState) requestReady(conn *conn) bool {
	_, _, err := resp.ParseRequest(st.buf[st.start:], nil)
	return err != resp.ErrIncomplete
}

// inputEmpty reports whether the connection's own buffer holds no bytes
// not yet handled: part of a request, for a connection that is still
// sending one (see connectionIO).
func (st *respState) inputEmpty(conn *conn) bool {
	return st.start == len(st.buf)
}

// wbufNeed is the capacity a RESP connection's write buffer needs before
// it answers one more request: what wbufReserve makes it. A larger reply
// grows it further as it is written, within the budget.
func (st *respState) wbufNeed(conn *conn) int {
	return wbufNeed(conn)
}

// respProtocolError answers a request that cannot be parsed, as Redis
// does, and ends the connection once the replies before it are sent: the
// rest of the input cannot be framed.
func respProtocolError(conn *conn, text string) {
	respRefuse(conn, "ERR Protocol error: "+text)
}

// respRefuse answers the error text, after the replies made before it,
// and ends the connection once they are sent.
func respRefuse(conn *conn, text string) {
	connMsg(os.Stderr, "bad RESP request: %s", text)
	if !wbufReserve(conn) { // room for the error, any growth counted
		conn.state = stateEnd // no room for the error either: close now
		return
	}
	conn.wbuf = resp.AppendError(conn.wbuf, text)
	stopReading(conn)
}
