package server

import (
	"bytes"
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/dlist"
	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/sock"
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

// respConfigSet sets what CONFIG GET reports for the parameter name (see
// respConfigParams), adding it if it is not there: the settings the flags
// give (timeout, maxclients) and Redis's sizes this server takes.
func respConfigSet(name, value string) {
	for i := range respConfigParams {
		if respConfigParams[i][0] == name {
			respConfigParams[i][1] = value
			return
		}
	}
	respConfigParams = append(respConfigParams, [2]string{name, value})
}

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
// framing in conn.go) and what Redis keeps per client. Its requests are not
// length-prefixed, so it reads into a buffer of its own that grows, within
// the budget of all connections' memory, until a whole request is there;
// rbuf, sized for the book's 4 KiB messages, is not used.
type respState struct {
	// The connection it frames.
	conn *conn
	// buf[start:] holds received bytes not yet parsed; buf is nil until
	// the first read, and while the connection is idle.
	buf   []byte
	start int
	// need is how many bytes buf[start:] must hold before the request
	// there can be whole (resp.ParseRequest says so when it is not): a
	// request arriving in pieces is parsed again only once it can be, and
	// then from where the last parse stopped (progress).
	need     int
	progress resp.Progress
	// big is the buffer of its own that a large bulk string of the request
	// arriving (kBigArg bytes or more) is read into, rather than into buf:
	// buf, grown for it, would copy all the request's bytes before it
	// each time. bigs are the request's large bulk strings received, each
	// standing in for the empty one left in buf in its place; bigHeld is
	// what big and bigs hold, counted in the budget as buf is.
	big     bigArg
	bigs    []bigArg
	bigHeld int
	// adoptAt is where adoptArg looks first among bigs.
	adoptAt int
	// Once the request at buf[start:] is known to be whole, its length
	// (ready, 0 until then) and argument count: requestReady finds that
	// out without building the arguments, and the request is then parsed
	// once, by oneRequest.
	ready, argc int
	// Where the replies are written, in the connection's protocol version.
	w respWriter
	// The connection's id and name, for CLIENT ID and CLIENT GETNAME.
	id   int64
	name string
	// inMulti says a MULTI was answered and no EXEC or DISCARD yet: the
	// commands in between are queued (see cmd_multi.go), and multiRefused
	// that one was refused, so EXEC discards the transaction.
	inMulti      bool
	multiRefused bool
	// The commands queued and the keys watched.
	tx txState
	// block is the blocking command it waits in, if any (blocking.go).
	block *waiter
	// created is when it connected, on the monotonic clock, and addr
	// and laddr its peer's address and its own, once CLIENT LIST asked.
	created     uint64
	addr, laddr string
}

// bigArg is a large bulk string of a request: its index among the
// request's arguments, and its bytes, its CRLF included, which buf
// receives until it holds size of them. old is the buffer buf outgrew,
// until its bytes have moved to buf's front, moved of them so far.
type bigArg struct {
	at, size int
	buf      []byte
	old      []byte
	moved    int
}

// kMoveStep is the least a large bulk string's outgrown buffer moves with
// each read: a buffer of 100 MB copied whole in one turn held every other
// client for as long as the copy took (0.3 s here, longer while the
// garbage collector waited for the copy to end). A read of n bytes moves
// n bytes too, so the old buffer has moved by the time the new one fills.
const kMoveStep = 4 << 20

// kBigArg is the length from which a bulk string still arriving is read
// into a buffer of its own (see respState.big), as Redis does.
const kBigArg = 32 << 10

// kRESPBufSize is the usual size of a RESP connection's read buffer. A
// request that does not fit grows it, within the budget (Redis takes bulk
// strings of up to 512 MB, and requests of up to 1 GB).
const kRESPBufSize = 16 << 10

// respArgs is the array the RESP requests' arguments are parsed into, one
// request at a time, and respArgsOwner the connection whose request holds
// it now (nil between requests). Its slots take a slice header each
// (kArgSlot bytes): a request of 5,000,000 empty arguments is 30 MB of
// bytes but 120 MB of slots. An array of up to kRESPArgsKept slots
// (1.5 MB) is kept from one request to the next, the server's own like
// its other fixed state; a larger one is taken from the budget before it
// is allocated, for exactly the request's count, counted in inputHeld and
// in its owner's memory while the request holds it, and given back once
// the request is answered.
var (
	respArgs      [][]byte
	respArgsOwner *respState
)

// kArgSlot is what one argument's slot takes in respArgs.
const kArgSlot = int(unsafe.Sizeof([]byte(nil)))

// kRESPArgsKept is the most argument slots kept from one request to the
// next, outside the budget.
const kRESPArgsKept = 1 << 16

// respArgsFor makes respArgs an array of room for argc arguments, more
// than it has room for, and reports whether it did: one of more than
// kRESPArgsKept slots, of exactly argc, only if the budget has room for
// it (see budgetMake).
func respArgsFor(self *conn, argc int) bool {
	if argc > kRESPArgsKept {
		if !budgetMake(self, argc*kArgSlot) {
			return false
		}
		inputHeld += argc * kArgSlot
		respArgs = make([][]byte, 0, argc)
		return true
	}
	// The kept array grows by doubling, up to its bound.
	respArgs = make([][]byte, 0, max(argc, min(2*cap(respArgs), kRESPArgsKept)))
	return true
}

// respArgsCounted is what respArgs holds in the budget: its slots if it
// is larger than the array kept between requests, or nothing.
func respArgsCounted() int {
	if cap(respArgs) > kRESPArgsKept {
		return cap(respArgs) * kArgSlot
	}
	return 0
}

// respNextID numbers RESP connections for CLIENT ID.
var respNextID int64

func newRESPState(conn *conn) *respState {
	respNextID++
	return &respState{conn: conn, w: respWriter{ver: resp.RESP2, conn: conn}, id: respNextID, created: getMonotonicUsec()}
}

// fill is tryFillBuffer for a RESP connection: one read into the free end
// of its buffer, which is first compacted, taken if the connection has
// none, and grown only when a partial request already fills it: doubling,
// or to the request's end if its last bulk string is pending and ends
// nearer (never to more than twice what has arrived, whatever a client
// announces). The buffer is counted in the budget; one that cannot grow
// within it ends the connection, as Redis's maxmemory-clients does (after
// the connection holding the most, if it is another, is closed: see
// budgetMake).
//
// Each growth copies all that has arrived, so it must be geometric. Grown
// to the end of each pending bulk string that ended within twice its size,
// the buffer of an MSET of 200 values of 1 MiB grew 20 times, to 356 MB,
// copying 690 MB, and some of those growths were of a few bytes (the next
// key's header) copying 178 MB. A large bulk string goes to a buffer of
// its own (see takeBig), so that even doubling does not copy the request
// again and again in one turn that holds every other client.
func (st *respState) fill(conn *conn) {
	// exercise: ch22-resp-fill
	if st.start > 0 {
		st.buf = st.buf[:copy(st.buf, st.buf[st.start:])]
		st.start = 0
	}
	if st.big.buf == nil && st.need > len(st.buf)+1 && !st.takeBig(conn) {
		return
	}
	if st.big.buf != nil {
		st.fillBig(conn)
		return
	}
	switch {
	case len(st.buf) == 0:
		st.shrink()
	case len(st.buf) == cap(st.buf):
		size := 2 * cap(st.buf)
		if st.need > len(st.buf)+1 && st.need < size && st.lastPending() {
			size = st.need // the request's end, not just "more"
		}
		if !budgetMake(conn, size-cap(st.buf)) {
			respRefuse(conn, errClientMemory)
			return
		}
		inputHeld += size - cap(st.buf)
		grown := make([]byte, len(st.buf), size)
		copy(grown, st.buf)
		st.buf = grown
		respGrowths++
		respGrowCopied += len(st.buf)
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
	// end exercise: ch22-resp-fill
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

// takeBig gives the bulk string the partial request waits for a buffer of
// its own, if it is large: the bytes of it already in buf move there, and
// buf ends where its header began. Like buf, the new buffer is counted in
// the budget, and holds no more than what has arrived of the request, or
// the usual 16 KiB, doubling as more arrives (see fillBig). takeBig
// reports whether the connection may go on reading.
func (st *respState) takeBig(conn *conn) bool {
	data := st.buf[st.start:]
	pos := st.progress.Pos // the bulk string's header, whole
	val := pos + bytes.IndexByte(data[pos:], '\n') + 1
	size := st.need - val // its bytes and CRLF
	if size-2 < kBigArg {
		return true
	}
	arrived := len(data) + st.bigHeld
	c := min(size, max(arrived, kRESPBufSize))
	if !budgetMake(conn, c) {
		respRefuse(conn, errClientMemory)
		return false
	}
	inputHeld += c
	st.bigHeld += c
	st.big = bigArg{at: int(st.progress.Done), size: size, buf: append(make([]byte, 0, c), data[val:]...)}
	st.buf = st.buf[:st.start+pos]
	respGrowCopied += len(st.big.buf)
	return true
}

// fillBig is fill while a large bulk string arrives: one read into its
// buffer, grown first by doubling if it is full, up to the bulk string's
// length. The bytes of the buffer it outgrew move to the new one's front
// in steps, as reads follow (move). Once it is all there, an empty bulk
// string takes its place in buf, for the parser, and the request is
// parsed again from there.
func (st *respState) fillBig(conn *conn) {
	b := &st.big
	if len(b.buf) == cap(b.buf) {
		st.moveBig(len(b.old)) // what the reads did not move, if any
		size := min(2*cap(b.buf), b.size)
		if !budgetMake(conn, size) {
			respRefuse(conn, errClientMemory)
			return
		}
		inputHeld += size
		st.bigHeld += size
		b.old, b.moved = b.buf, 0
		b.buf = make([]byte, len(b.old), size)
		respGrowths++
	}
	n := st.read(conn, b.buf[len(b.buf):min(cap(b.buf), b.size)])
	b.buf = b.buf[:len(b.buf)+n]
	st.moveBig(max(n, kMoveStep))
	if len(b.buf) < b.size || conn.state != stateReq {
		return
	}
	st.moveBig(len(b.old))
	if b.buf[b.size-2] != '\r' || b.buf[b.size-1] != '\n' {
		respProtocolError(conn, "expected CRLF after a bulk string")
		return
	}
	st.bigs = append(st.bigs, *b)
	*b = bigArg{}
	// The header it replaces, of a length of 5 digits or more, leaves room.
	st.buf = append(st.buf, "$0\r\n\r\n"...)
	st.need = 0
}

// moveBig moves up to n more bytes of the large bulk string's outgrown
// buffer to the front of its new one, charged as copies are, and gives
// the old buffer back once all have moved.
func (st *respState) moveBig(n int) {
	b := &st.big
	if b.old == nil {
		return
	}
	end := min(b.moved+n, len(b.old))
	copyInSteps(b.buf[b.moved:end], b.old[b.moved:end])
	chargeBytes(end - b.moved)
	respGrowCopied += end - b.moved
	if b.moved = end; end == len(b.old) {
		inputHeld -= cap(b.old)
		st.bigHeld -= cap(b.old)
		b.old = nil
	}
}

// copyInSteps is copy(dst, src), a MiB at a time. The garbage collector
// cannot stop the loop's goroutine within one copy, and spins on the
// other core while it waits: a copy of 200 MiB in one step took 3 s here,
// 8 s of CPU in all; between steps the collector can stop it at once.
func copyInSteps(dst, src []byte) int {
	n := 0
	for n < min(len(dst), len(src)) {
		n += copy(dst[n:], src[n:min(len(src), n+kCopyStep)])
	}
	return n
}

// kCopyStep is the step of copyInSteps.
const kCopyStep = 1 << 20

// dropBigs gives back the large bulk strings of a request answered, or of
// a connection closed.
func (st *respState) dropBigs() {
	inputHeld -= st.bigHeld
	clear(st.bigs)
	st.big, st.bigs, st.bigHeld, st.adoptAt = bigArg{}, st.bigs[:0], 0, 0
}

// adoptArg takes v out of the request being answered if it is one of its
// large bulk strings, and returns its buffer as a string value's own
// (strBuf), no longer counted in the budget of connections' memory: a SET
// of 200 MiB then copies none of it, where the copy took a turn that held
// every other client (0.6 s here). For any other v it returns nil, and
// the caller copies v. The search starts after the last one taken, as a
// command stores its arguments in order.
func adoptArg(v []byte) *strBuf {
	st := respArgsOwner
	if st == nil || len(v) < kBigArg {
		return nil
	}
	for range st.bigs {
		b := &st.bigs[st.adoptAt]
		st.adoptAt = (st.adoptAt + 1) % len(st.bigs)
		if b.buf != nil && len(v) == b.size-2 && unsafe.SliceData(b.buf) == unsafe.SliceData(v) {
			inputHeld -= cap(b.buf)
			st.bigHeld -= cap(b.buf)
			s := &strBuf{b: b.buf[:len(v):len(v)]}
			b.buf = nil
			return s
		}
	}
	return nil
}

// respGrowths counts the growths of RESP read buffers, and respGrowCopied
// the bytes they copied, with those moved to a large bulk string's own
// buffer (for the tests).
var respGrowths, respGrowCopied int

// lastPending reports whether the bulk string the partial request at the
// front of the buffer waits for (the one ending at need) is its last
// argument: then need is where the request ends, and a buffer grown to it
// need not grow again. The parser has checked the header line ("*3", at
// most 18 digits) and the elements before Done by then.
func (st *respState) lastPending() bool {
	b := st.buf[st.start:]
	eol := bytes.IndexByte(b, '\n')
	if eol < 3 || b[0] != '*' {
		return false
	}
	count := int64(0)
	for _, c := range b[1 : eol-1] {
		if c < '0' || c > '9' {
			return false
		}
		count = count*10 + int64(c-'0')
	}
	return st.progress.Done+1 == count
}

// errClientMemory ends a connection whose request would need more memory
// than the budget of all connections can hold, this one holding the most.
const errClientMemory = "ERR the server's memory for clients is full (-max-output-mb): request refused, connection closed"

// errReplyMemory refuses a reply that would grow the write buffer past
// what the budget of all connections can hold, this one holding the most.
const errReplyMemory = "ERR response is too big for the server's memory for replies now (-max-output-mb): try again later"

// shrink gives back a read buffer grown for a large request, once it
// holds nothing: the connection keeps one of the usual size.
func (st *respState) shrink() {
	if len(st.buf) == 0 && cap(st.buf) > kRESPBufSize {
		inputHeld -= cap(st.buf) - kRESPBufSize
		st.buf = make([]byte, 0, kRESPBufSize)
	}
}

// held is what the connection holds besides its write buffer: its read
// buffers, its name, its transaction, and while its request runs the
// request's arguments (see clientmem.go).
func (st *respState) held() int {
	n := cap(st.buf) + len(st.name) + st.bigHeld + st.tx.held
	if st.block != nil {
		n += st.block.held
	}
	if respArgsOwner == st {
		n += respArgsCounted()
	}
	return n
}

// giveBack frees the read buffer if it holds nothing (see clientmem.go).
func (st *respState) giveBack() {
	if st.buf != nil && st.start == len(st.buf) {
		inputHeld -= cap(st.buf)
		st.buf, st.start, st.need, st.ready = nil, 0, 0, 0
	}
}

// release gives back what a closed connection held in inputHeld.
func (st *respState) release() {
	if st.block != nil {
		blockHungUp(st.block) // it waits no more
	}
	st.endMulti() // its queue and watched keys
	st.dropBigs()
	inputHeld -= cap(st.buf) + len(st.name)
	st.buf, st.name = nil, ""
}

// oneRequest is tryOneRequest for a RESP connection: it answers the
// request at the front of the buffer, if it is all there, and reports
// whether it did.
func (st *respState) oneRequest(conn *conn) bool {
	// One parse builds the arguments in respArgs if it has room for them;
	// a request found whole by requestReady, or of more arguments than
	// that, is then parsed into an array of room for exactly its count,
	// which the budget must have room for first.
	var cmd [][]byte
	n, argc := st.ready, st.argc
	if n == 0 {
		var err error
		if cmd, n, argc, err = st.parse(respArgs); err != nil {
			if err != resp.ErrIncomplete {
				respParseError(conn, err)
			}
			return false
		}
	}
	if len(cmd) < argc {
		if argc > cap(respArgs) && !respArgsFor(conn, argc) {
			respRefuse(conn, errClientMemory)
			return false
		}
		respParses++
		cmd, _, _, _ = resp.ParseRequestFrom(st.buf[st.start:st.start+n], respArgs, nil)
	}
	for _, b := range st.bigs {
		cmd[b.at] = b.buf[: b.size-2 : b.size-2]
	}
	respArgsOwner = st
	defer st.doneArgs(cmd)
	st.start += n
	st.ready, st.argc = 0, 0
	workDone += len(cmd)
	if len(cmd) == 0 {
		return true // an empty line or array: nothing to answer
	}
	// The reply goes in wbuf through the book's path's accounting: the
	// replies already sent are moved out first (a client reading slowly
	// would otherwise have them copied along each time a reply grows the
	// buffer), and room is made for a reply of the book's size
	// (wbufReserve). A larger reply grows the buffer as it is written,
	// counted in the budget (see respWriter.room).
	if conn.wbufSent > 0 {
		conn.wbuf = append(conn.wbuf[:0], conn.wbuf[conn.wbufSent:]...)
		conn.wbufSent = 0
	}
	if !wbufReserve(conn) {
		respRefuse(conn, errClientMemory)
		return false
	}
	before := conn.wbuf
	st.w.begin(conn.wbuf)
	respDo(conn, st, cmd)
	workDone += stepKeySpace()
	if st.w.over {
		// The error goes in the buffer's own array, which has room for it;
		// one the reply outgrew is dropped, and its growth given back.
		outputHeld -= cap(st.w.buf) - cap(before)
		st.w.begin(before)
		st.w.err(errReplyMemory)
	}
	if st.start == len(st.buf) {
		st.buf, st.start = st.buf[:0], 0
		st.shrink()
	}
	conn.wbuf, st.w.buf = st.w.buf, nil
	conn.progress = true
	if blockReady.Len() > 0 {
		blockServeReady(conn) // the keys it made that clients wait on (blocking.go)
	}
	return true
}

// doneArgs ends a request's hold on respArgs, whose arguments were cmd:
// the array keeps no pointers into this connection's buffers, and one
// grown for a request of many arguments is given back (a peak of
// arguments is not held for good), as are its large bulk strings.
func (st *respState) doneArgs(cmd [][]byte) {
	clear(cmd)
	st.dropBigs()
	respArgsOwner = nil
	if n := respArgsCounted(); n > 0 {
		inputHeld -= n
		respArgs = nil
	}
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
// to handle. It checks the request without building its arguments, and
// notes a whole one's length and count for oneRequest.
func (st *respState) requestReady(conn *conn) bool {
	if st.ready > 0 {
		return true
	}
	_, n, argc, err := st.parse(nil)
	if err == nil {
		st.ready, st.argc = n, argc
	}
	return err != resp.ErrIncomplete
}

// respParses counts the parses of a request (for the tests).
var respParses int

// parse parses the request at the front of the buffer, unless it is known
// to be incomplete still (see need), building its arguments in args if it
// has room for them all (see resp.ParseRequestFrom).
func (st *respState) parse(args [][]byte) ([][]byte, int, int, error) {
	if st.big.buf != nil || len(st.buf)-st.start < st.need {
		return args[:0], 0, 0, resp.ErrIncomplete
	}
	respParses++
	cmd, n, argc, err := resp.ParseRequestFrom(st.buf[st.start:], args, &st.progress)
	st.need = 0
	if err == resp.ErrIncomplete {
		st.need = n
	}
	return cmd, n, argc, err
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
