package server

import (
	"encoding/binary"
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/dlist"
	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/sock"
)

// A connection is always in one of these states. While it serves requests
// it reads and writes independently: epoll watches it for input whenever
// it may take more requests, and for room to write whenever replies wait.
const (
	stateReq   = iota // serving: reading requests, sending replies
	stateClose        // done reading: send the replies made, then close
	stateEnd          // done: the event loop closes it
)

const (
	// kWBufSize is the usual capacity of a connection's write buffer: room
	// for the replies to many pipelined requests, which go out in one
	// write. A buffer grown past it for a backlog is given back once the
	// backlog is sent.
	kWBufSize = 16 << 10
	// kMaxOutput bounds the replies a connection may have unsent. A
	// client that sends requests without reading the replies is answered
	// until it owes this much, then no longer read (its requests wait in
	// the kernel's buffers, and its own writes eventually block) until it
	// reads. Memory stays bounded and other clients are served meanwhile.
	kMaxOutput = 1 << 20
	// kMaxTurn bounds the reply bytes one connection makes in one turn
	// (one call of connectionIO). One read of pipelined gets of a 4 KB
	// value asks for 186 replies, 728 KB; answered at once for each of
	// the 256 connections one epoll_wait reports, that is 180 MB to copy
	// before the loop reaches the next socket, and every other client
	// waited for it. The requests left over are answered on the
	// connection's next turn, after every other ready connection has had
	// its own. 16 KB is a few large replies, or hundreds of small ones,
	// in one write.
	kMaxTurn = 16 << 10
	// kMaxTurnRequests bounds the requests one connection has answered in
	// one turn, whatever their replies: bytes alone let through hundreds
	// of requests with short replies (an error is 26 bytes) but perhaps
	// much work each. Pipelining clients send far fewer at a time (16 in
	// the benchmarks); a client with more gets them answered over several
	// turns, taken in turn with the other ready connections.
	kMaxTurnRequests = 64
	// kMaxTurnWork bounds the work one connection's requests do in one
	// turn, counted in units of work (workDone, see work.go): a request
	// costs one per argument and per 64 bytes, and a command that walks a
	// collection (ZRANGE, KEYS, HGETALL) one per member, key or field it
	// visits. Neither bytes nor a count of requests bound that: a ZRANGE
	// over a big set answers "response is too big" in 26 bytes after
	// visiting 40,000 members.
	// A turn ends once it passes this; one request may pass it alone, by
	// at most its own bound (the budget for its reply, kKeysMaxScan).
	kMaxTurnWork = 1 << 16
)

// workDone counts the units of work (see work.go) requests have done
// since the server started; serveRequests bounds a turn by how much it
// grows (kMaxTurnWork).
var workDone int

// logConns turns on the log lines about single connections (a client
// hung up, broke the protocol, was idle too long), which the -log-conns
// flag asks for. They are off by default: a server with many clients
// coming and going would log for every one.
var logConns = false

// connMsg logs one line about a single connection to w, if logConns.
func connMsg(w io.Writer, format string, args ...any) {
	if logConns {
		logTo(w, format, args...)
	}
}

// conn is one client connection. A nonblocking read or write can stop
// anywhere, so the bytes received but not yet handled, and the bytes of the
// replies not yet sent, wait here until the socket is ready again.
type conn struct {
	fd    int
	state int
	// The events epoll is watching for on fd (see connWatch).
	events sock.Events
	// rbuf[rbufStart:rbufEnd] holds received bytes not yet handled.
	// Handling a request only moves rbufStart past it; the bytes left
	// are moved to the front once, just before the next read.
	// rbuf is nil until the first read, then kRBufSize bytes long.
	rbufStart int
	rbufEnd   int
	rbuf      []byte
	// wbuf[wbufSent:] holds the replies still to send. The buffer is
	// reused from one batch to the next; it is nil until the first reply.
	wbuf     []byte
	wbufSent int
	// When the connection last made progress, and its place in
	// gData.idleList; progress says whether it has during this event
	// (answered a request or sent reply bytes).
	idleStart uint64
	idleList  dlist.DList[conn]
	progress  bool
	// Its place in bufList while it holds buffers (see clientmem.go).
	bufList   dlist.DList[conn]
	inBufList bool
	// How the connection's bytes become requests: the book's framing, or
	// Redis's protocol on the RESP listener (see resp_conn.go).
	framing framing
	// blocked says a blocking command parked it (blocking.go): it answers
	// nothing more until that one is answered, but is still read, into
	// the room its buffer has, so that a client hanging up is seen.
	blocked bool
}

// framing is how a connection reads requests and frames replies. The
// book's protocol (bookFraming) reads length-prefixed messages into rbuf;
// RESP (respState) has its own buffer and parser. Everything else about
// a connection (the event loop, idle timer, output bounds, bounded turns,
// batched writes) is the same for both.
type framing interface {
	// fill reads what the socket has (tryFillBuffer).
	fill(conn *conn)
	// requestReady reports whether a whole request, or bytes that cannot
	// start one, wait to be handled.
	requestReady(conn *conn) bool
	// oneRequest handles the request at the front of the input, if it is
	// all there, appending its reply to wbuf, and reports whether it did.
	oneRequest(conn *conn) bool
	// inputEmpty reports whether no received bytes wait to be handled.
	inputEmpty(conn *conn) bool
	// wbufNeed is the capacity wbuf may need to answer one more request.
	wbufNeed(conn *conn) int
	// held is what the framing holds, counted in inputHeld, and giveBack
	// frees what of it holds nothing (see clientmem.go).
	held() int
	giveBack()
	// warm brings the keys of the whole requests waiting into the cache
	// together, before the first of them runs (see warm.go).
	warm(conn *conn)
}

// bookFraming is the book's protocol: the functions below.
type bookFraming struct{}

func (bookFraming) fill(conn *conn)              { tryFillBuffer(conn) }
func (bookFraming) requestReady(conn *conn) bool { return requestReady(conn) }
func (bookFraming) oneRequest(conn *conn) bool   { return tryOneRequest(conn) }
func (bookFraming) inputEmpty(conn *conn) bool   { return conn.rbufStart == conn.rbufEnd }
func (bookFraming) wbufNeed(conn *conn) int      { return wbufNeed(conn) }
func (bookFraming) held() int                    { return 0 }
func (bookFraming) giveBack()                    {}
func (bookFraming) warm(conn *conn)              { warmKeys(conn) }

// newConn makes the state of a new connection on fd, ready to read.
func newConn(fd int) *conn {
	conn := &conn{fd: fd, state: stateReq, framing: bookFraming{}}
	conn.idleList.Owner = conn
	conn.bufList.Owner = conn
	return conn
}

// pending returns how many reply bytes wait to be sent.
func (conn *conn) pending() int {
	return len(conn.wbuf) - conn.wbufSent
}

// canAnswer reports whether the connection may answer one more request:
// it is still serving, a reply of any size keeps it within kMaxOutput, and
// any growth of its buffer that takes keeps all within maxOutputTotal. A
// connection with no replies unsent may always answer: it takes its usual
// buffer, by closing the connection holding the most if the budget is
// full (see budgetMake); one with a backlog waits for its client to read
// rather than grow it past what the budget has left. (A RESP reply may be
// far larger than the book's: it grows the buffer as it is written, within
// the budget; see respWriter.room.)
func (conn *conn) canAnswer() bool {
	if conn.state != stateReq || conn.blocked || conn.pending()+4+proto.KMaxMsg > kMaxOutput {
		return false
	}
	if conn.pending() == 0 {
		return true
	}
	size := conn.framing.wbufNeed(conn)
	return size <= cap(conn.wbuf) || size-cap(conn.wbuf) <= budgetLeft()
}

// connectionIO advances a connection whose socket epoll reported ready
// with events: one read if it has input, then as many requests as can be
// answered, then one write. A socket that still has data, or room, after
// that is reported again by the next epoll_wait (it is level-triggered),
// so there is no need to call read or write until it fails with EAGAIN,
// which would cost one more syscall per wakeup.
func connectionIO(conn *conn, events sock.Events) {
	conn.progress = false
	// Read only while requests can be answered; past kMaxOutput the input
	// waits in the kernel. Requests left over from the last turn (see
	// kMaxTurn) are answered before any more is read: the read could find
	// the client's EOF, which would end the connection before they are. An
	// error or hang-up is found by the read or the write that follows.
	// A parked client is read all the same, into the room its buffer has:
	// its EOF unparks it.
	if events&(sock.In|sock.Err) != 0 && (parkedRoom(conn) || conn.canAnswer() && !conn.framing.requestReady(conn)) {
		conn.framing.fill(conn)
	}
	serveRequests(conn)

	// Progress restarts the idle timer: move the connection to the back of
	// the list, which therefore stays ordered by last activity. Bytes of a
	// request that is still incomplete are not progress: a client sending
	// one byte every 100 ms was otherwise never idle and never dropped. So
	// a request must arrive whole within the idle timeout.
	if conn.progress || conn.framing.inputEmpty(conn) {
		if !conn.blocked { // a parked client is in no idle list
			conn.idleStart = getMonotonicUsec()
			conn.idleList.Detach()
			idleListOf(conn).InsertBefore(&conn.idleList)
		}
		bufActive(conn)
	}
}

// tryFillBuffer reads what the socket has into rbuf.
func tryFillBuffer(conn *conn) {
	if conn.rbuf == nil {
		if !budgetMake(conn, kRBufSize) {
			connMsg(os.Stderr, "the memory for clients is full")
			conn.state = stateEnd
			return
		}
		inputHeld += kRBufSize
		conn.rbuf = make([]byte, kRBufSize)
	}
	// Make room: move the bytes not yet handled (by now at most part of
	// one request) to the front. Doing it once per read, rather than after
	// every request, spares a read that brought many pipelined requests
	// from moving the rest of the buffer once for each of them.
	// exercise: ch17-read-offset
	if conn.rbufStart > 0 {
		conn.rbufEnd = copy(conn.rbuf[:], conn.rbuf[conn.rbufStart:conn.rbufEnd])
		conn.rbufStart = 0
	}
	// end exercise: ch17-read-offset
	n, err := sock.Read(conn.fd, conn.rbuf[conn.rbufEnd:])
	if errors.Is(err, unix.EAGAIN) {
		return // nothing there after all; epoll says when there is
	}
	if err != nil {
		connMsg(os.Stderr, "%v", err)
		conn.state = stateEnd
		return
	}
	if n == 0 {
		if conn.rbufEnd > conn.rbufStart {
			connMsg(os.Stderr, "unexpected EOF")
		} else {
			connMsg(os.Stderr, "EOF")
		}
		stopReading(conn)
		return
	}
	conn.rbufEnd += n
}

// stopReading ends a connection that will send no more requests (it hung
// up, or broke the protocol) once the replies already made are sent.
func stopReading(conn *conn) {
	conn.state = stateClose
	if conn.pending() == 0 {
		conn.state = stateEnd
	}
}

// requestReady reports whether rbuf holds a whole request, or the
// header of one too long to take, for the next turn to handle.
func requestReady(conn *conn) bool {
	avail := conn.rbuf[conn.rbufStart:conn.rbufEnd]
	if len(avail) < 4 {
		return false
	}
	// The length is compared while unsigned, and becomes an int only once
	// it is known to be small (see tryOneRequest).
	n := binary.LittleEndian.Uint32(avail[:4])
	return n > proto.KMaxMsg || 4+int(n) <= len(avail)
}

// serveRequests answers the complete requests in rbuf and sends the
// replies with one write. A client may send many requests without waiting
// for replies (pipelining), so one read can bring many requests.
func serveRequests(conn *conn) {
	conn.framing.warm(conn) // warm.go
	// exercise: ch17-batched-replies
	made, handled := 0, 0 // reply bytes made, requests answered this turn
	work := workDone      // workDone - work is this turn's work
	logged := aofCmds     // aofHold tells by it whether the turn logged
	for sent := true; ; {
		// Answer requests while the output allows, and this turn's share
		// (kMaxTurn, kMaxTurnRequests, kMaxTurnWork) is not spent. Any left over wait in
		// rbuf, and the connection is not read until they are answered, so
		// a read finds at most part of one request there.
		for made < kMaxTurn && handled < kMaxTurnRequests && workDone-work < kMaxTurnWork && conn.canAnswer() {
			before := conn.pending()
			if !conn.framing.oneRequest(conn) {
				break
			}
			made += conn.pending() - before
			handled++
			gStats.commands++
		}
		if conn.pending() == 0 {
			return // nothing to send
		}
		if aofHold(conn, logged) {
			// Sent once the log is on disk (aof.go): asked after every
			// round, since one after a partial write may have answered
			// writes too.
			return
		}
		if !sent {
			// The socket is full (epoll reports when it has room again)
			// or the write failed.
			return
		}
		// One write for all the replies. Then go round: the room it made
		// lets requests left over be answered now, since a client that has
		// sent them all will send nothing more to wake us. (The book's code
		// misses this case, and a pipelining client whose replies fill the
		// socket buffer then waits forever.) If everything was sent, their
		// replies are written on the next round; if not, they wait for the
		// socket to drain.
		sent = tryFlushBuffer(conn)
	}
	// end exercise: ch17-batched-replies
}

// tryOneRequest handles the request at the front of rbuf, if it is all
// there, appending its reply to wbuf, and reports whether it did.
func tryOneRequest(conn *conn) bool {
	avail := conn.rbuf[conn.rbufStart:conn.rbufEnd]
	if len(avail) < 4 {
		return false // wait for the rest of the header
	}
	// Compared before it becomes an int, which on a 32-bit machine
	// would turn a length of 2^31 or more negative.
	size := binary.LittleEndian.Uint32(avail[:4])
	if size > proto.KMaxMsg {
		connMsg(os.Stderr, "too long")
		stopReading(conn)
		return false
	}
	n := int(size)
	if 4+n > len(avail) {
		return false // wait for the rest of the body
	}
	body := avail[4 : 4+n]

	// Parse the request into slices of rbuf, reusing the slice of the
	// previous request. A malformed one ends the connection, once the
	// requests before it are answered.
	cmd, err := proto.SplitReq(body, gData.args)
	if err != nil {
		connMsg(os.Stderr, "bad req: %v", err)
		stopReading(conn)
		return false
	}
	gData.args = cmd

	// Run it, serializing the reply straight into wbuf after 4 bytes kept
	// for its length. wbuf has room for any reply that can be sent, so
	// this does not allocate.
	if !wbufReserve(conn) {
		connMsg(os.Stderr, "the memory for clients is full")
		stopReading(conn)
		return false
	}
	start := len(conn.wbuf)
	out := doRequest(cmd, conn.wbuf[:start+4])
	clear(cmd) // keep no pointers into this connection's buffer
	workDone += stepKeySpace()
	if len(out)-start > proto.KMaxMsg {
		// 4+len(reply) > KMaxMsg: too big for one message. An error
		// replaces it, in wbuf's own array (a reply that outgrew wbuf was
		// built in a new one, which is dropped).
		out = proto.OutErr(conn.wbuf[:start+4], proto.Code2Big, "response is too big")
	}
	binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	conn.wbuf = out
	if blockReady.Len() > 0 {
		blockServeReady(conn) // a zadd made a key some client waits on (blocking.go)
	}

	// Consume the request: only the start offset moves.
	// exercise: ch17-read-offset
	conn.rbufStart += 4 + n
	// end exercise: ch17-read-offset
	conn.progress = true
	return true
}

// wbufNeed returns the capacity wbuf needs to take one more reply of the
// largest size that can be sent: its own, if moving the unsent replies to
// the front leaves room; else doubled as often as needed, up to
// kMaxOutput (which canAnswer guarantees is enough).
func wbufNeed(conn *conn) int {
	const room = 4 + proto.KMaxMsg
	if cap(conn.wbuf)-len(conn.wbuf) >= room {
		return cap(conn.wbuf)
	}
	size := max(cap(conn.wbuf), kWBufSize)
	for size-conn.pending() < room {
		size *= 2
	}
	return min(size, kMaxOutput)
}

// wbufReserve makes room in wbuf for one more reply of the largest size
// that can be sent, and reports whether the budget allowed it. Unsent
// replies move to the front first; only a backlog that still leaves no
// room grows the buffer (see wbufNeed), and a connection's first reply
// takes a buffer of the usual size.
func wbufReserve(conn *conn) bool {
	const room = 4 + proto.KMaxMsg
	if cap(conn.wbuf)-len(conn.wbuf) >= room {
		return true
	}
	buf := conn.wbuf[:0]
	if size := wbufNeed(conn); size > cap(conn.wbuf) {
		if !budgetMake(conn, size-cap(conn.wbuf)) {
			return false
		}
		outputHeld += size - cap(conn.wbuf)
		buf = make([]byte, 0, size)
	}
	conn.wbuf = append(buf, conn.wbuf[conn.wbufSent:]...) // copy handles the overlap
	conn.wbufSent = 0
	return true
}

// tryFlushBuffer writes what it can of the unsent replies and reports
// whether all of them went. A short write means the socket buffer is
// full; epoll reports when it has room again.
func tryFlushBuffer(conn *conn) bool {
	n, err := sock.Write(conn.fd, conn.wbuf[conn.wbufSent:])
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		connMsg(os.Stderr, "%v", err)
		conn.state = stateEnd
		return false
	}
	conn.wbufSent += n
	conn.progress = conn.progress || n > 0
	if conn.pending() > 0 {
		return false
	}
	// All sent: the next replies start at the front again, in a buffer of
	// the usual size (one grown for a backlog is not kept).
	conn.wbufSent = 0
	conn.wbuf = conn.wbuf[:0]
	if cap(conn.wbuf) > kWBufSize {
		outputHeld -= cap(conn.wbuf) - kWBufSize
		conn.wbuf = make([]byte, 0, kWBufSize)
	}
	if conn.state == stateClose {
		conn.state = stateEnd
	}
	return true
}
