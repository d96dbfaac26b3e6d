package server

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch17_resp/resp"
	"example.com/byor/ch17_resp/sock"
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

// respState is a connection of the RESP listener: its framing (see
// framing in conn.go) and what Redis keeps per client. Its requests are not
// length-prefixed, so it reads into a buffer of its own that grows, up to
// a bound, until a whole request is there; rbuf, sized for the book's
// 4 KiB messages, is not used.
type respState struct {
	// buf[start:] holds received bytes not yet parsed.
	buf   []byte
	start int
	// need is how many bytes buf[start:] must hold before the request
	// there can be whole (resp.ParseRequest says so when it is not): a
	// request arriving in pieces is parsed again only once it can be, and
	// then from where the last parse stopped (progress).
	need     int
	progress resp.Progress
	// Where the replies are written, in the connection's protocol version.
	w respWriter
	// The connection's id and name, for CLIENT ID and CLIENT GETNAME.
	id   int64
	name string
	// inMulti says a MULTI was answered and no EXEC or DISCARD yet: the
	// commands in between are refused (see respMulti), and multiRefused
	// that one was, so EXEC discards the transaction.
	inMulti      bool
	multiRefused bool
}

const (
	// kRESPBufSize is the usual size of a RESP connection's read buffer.
	kRESPBufSize = 16 << 10
	// kRESPMaxBuf bounds it: the largest request the parser accepts plus
	// one header line. A request still incomplete at this size is over the
	// parser's limits, which the parser reports first.
	kRESPMaxBuf = resp.MaxRequest + resp.MaxInline + 64
	// kRESPMaxReply bounds one reply. The book's protocol caps a reply at
	// 4 KiB; RESP has no cap of its own, but a reply is built whole in the
	// write buffer, so one (KEYS on a large key space) is capped at this.
	kRESPMaxReply = 512 << 10
)

// respNextID numbers RESP connections for CLIENT ID.
var respNextID int64

func newRESPState() *respState {
	respNextID++
	return &respState{buf: make([]byte, 0, kRESPBufSize), w: respWriter{ver: resp.RESP2}, id: respNextID}
}

// fill is tryFillBuffer for a RESP connection: one read into the free end
// of its buffer, which is first compacted, and grown (doubling, up to
// kRESPMaxBuf) only when a partial request already fills it.
func (st *respState) fill(conn *conn) {
	if st.start > 0 {
		st.buf = st.buf[:copy(st.buf, st.buf[st.start:])]
		st.start = 0
	}
	switch {
	case len(st.buf) == 0:
		st.shrink()
	case len(st.buf) == cap(st.buf):
		if cap(st.buf) >= kRESPMaxBuf {
			respProtocolError(conn, "request too big")
			return
		}
		size := min(2*cap(st.buf), kRESPMaxBuf)
		if size-cap(st.buf) > budgetLeft() {
			// The connections hold all the memory they may (partial
			// requests, unsent replies, names): this one is dropped
			// rather than let grow, as Redis's maxmemory-clients does.
			respRefuse(conn, errClientMemory)
			return
		}
		inputHeld += size - cap(st.buf)
		grown := make([]byte, len(st.buf), size)
		copy(grown, st.buf)
		st.buf = grown
	}
	n, err := sock.Read(conn.fd, st.buf[len(st.buf):cap(st.buf)])
	if errors.Is(err, unix.EAGAIN) {
		return
	}
	if err != nil {
		connMsg(os.Stderr, "%v", err)
		conn.state = stateEnd
		return
	}
	if n == 0 {
		if len(st.buf) > 0 {
			connMsg(os.Stderr, "unexpected EOF")
		} else {
			connMsg(os.Stderr, "EOF")
		}
		stopReading(conn)
		return
	}
	st.buf = st.buf[:len(st.buf)+n]
}

// errClientMemory ends a connection whose request would need more memory
// than the bound over all connections has left.
const errClientMemory = "ERR the server's memory for clients is full (-max-output-mb): request refused, connection closed"

// errReplyMemory refuses a reply that would grow the write buffer past
// what the bound over all connections has left.
const errReplyMemory = "ERR response is too big for the server's memory for replies now (-max-output-mb): try again later"

// shrink gives back a read buffer grown for a large request, once it
// holds nothing.
func (st *respState) shrink() {
	if len(st.buf) == 0 && cap(st.buf) > kRESPBufSize {
		inputHeld -= cap(st.buf) - kRESPBufSize
		st.buf = make([]byte, 0, kRESPBufSize)
	}
}

// release gives back what a closed connection held in inputHeld.
func (st *respState) release() {
	inputHeld -= max(0, cap(st.buf)-kRESPBufSize) + len(st.name)
	st.buf, st.name = nil, ""
}

// oneRequest is tryOneRequest for a RESP connection: it answers the
// request at the front of the buffer, if it is all there, and reports
// whether it did.
func (st *respState) oneRequest(conn *conn) bool {
	cmd, n, err := st.parse()
	if err == resp.ErrIncomplete {
		return false
	}
	if err != nil {
		// A *resp.ProtocolError, the only other error. (errors.As would
		// make its target escape: an allocation per request.)
		msg := "invalid request"
		if perr, ok := err.(*resp.ProtocolError); ok {
			msg = perr.Msg
		}
		respProtocolError(conn, msg)
		return false
	}
	gData.args = cmd
	st.start += n
	workDone += len(cmd)
	if len(cmd) == 0 {
		return true // an empty line or array: nothing to answer
	}
	// The reply goes in wbuf through the book's path's accounting: the
	// replies already sent are moved out first (a client reading slowly
	// would otherwise have them copied along each time a reply grows the
	// buffer), room is made for a reply of the book's size (wbufReserve),
	// and a larger reply's growth of the buffer counts in outputGrown, as
	// canAnswer allowed for (see wbufNeed).
	if conn.wbufSent > 0 {
		conn.wbuf = append(conn.wbuf[:0], conn.wbuf[conn.wbufSent:]...)
		conn.wbufSent = 0
	}
	wbufReserve(conn)
	before := conn.wbuf
	st.w.begin(conn.wbuf)
	// The reply may grow the buffer by what the bound over all
	// connections has left, at most.
	st.w.limit = min(kRESPMaxReply, cap(conn.wbuf)-len(conn.wbuf)+max(0, budgetLeft()))
	limit := st.w.limit
	respDo(conn, st, cmd)
	clear(cmd) // keep no pointers into this connection's buffer
	workDone += stepKeySpace()
	if st.w.over {
		// The error goes in the buffer's own array, which has room for it;
		// one the reply outgrew is dropped.
		st.w.begin(before)
		if limit < kRESPMaxReply {
			st.w.err(errReplyMemory)
		} else {
			st.w.err("ERR response is too big")
		}
	}
	if st.start == len(st.buf) {
		st.buf, st.start = st.buf[:0], 0
		st.shrink()
	}
	conn.wbuf, st.w.buf = st.w.buf, nil
	outputGrown += grown(cap(conn.wbuf)) - grown(cap(before))
	conn.progress = true
	return true
}

// requestReady is requestReady for a RESP connection: whether its buffer
// holds a whole request, or bytes the parser rejects, for the next turn
// to handle.
func (st *respState) requestReady(conn *conn) bool {
	cmd, _, err := st.parse()
	gData.args = cmd
	clear(cmd) // keep no pointers into this connection's buffer
	return err != resp.ErrIncomplete
}

// respParses counts the parses of a request (for the tests).
var respParses int

// parse parses the request at the front of the buffer, unless it is known
// to be incomplete still (see need).
func (st *respState) parse() ([][]byte, int, error) {
	if len(st.buf)-st.start < st.need {
		return gData.args[:0], 0, resp.ErrIncomplete
	}
	respParses++
	cmd, n, err := resp.ParseRequestFrom(st.buf[st.start:], gData.args, &st.progress)
	st.need = 0
	if err == resp.ErrIncomplete {
		st.need = n
	}
	return cmd, n, err
}

// inputEmpty reports whether the connection's own buffer holds no bytes
// not yet handled: part of a request, for a connection that is still
// sending one (see connectionIO).
func (st *respState) inputEmpty(conn *conn) bool {
	return st.start == len(st.buf)
}

// wbufNeed bounds the capacity a RESP connection's write buffer can reach
// by answering one more request: what wbufReserve makes it, or the unsent
// replies (moved to the front) and a reply of up to kRESPMaxReply, the
// most respWriter grows it to.
func (st *respState) wbufNeed(conn *conn) int {
	return max(wbufNeed(conn), conn.pending()+kRESPMaxReply)
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
	wbufReserve(conn) // room for the error, any growth counted
	conn.wbuf = resp.AppendError(conn.wbuf, text)
	stopReading(conn)
}
