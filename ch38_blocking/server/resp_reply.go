package server

import (
	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/resp"
)

// respWriter writes replies in RESP, in the connection's protocol version,
// appended to buf: the replyWriter of the RESP listener, and what its own
// commands write through (simple strings, maps, Redis's error texts).
//
// Its buffer grows by its own rule (room), never by append's: at least
// doubling, so that building a reply of any size, EXEC's too, copies it
// a constant number of times over; and within the budget of all
// connections' memory, whose count it keeps up to date as it grows. A
// reply the budget cannot hold, even once the connection holding the
// most is closed (unless that is this one), is cut off (over), and the
// caller replaces it with an error.
type respWriter struct {
	buf []byte
	ver int // resp.RESP2 until HELLO 3
	// conn is the connection whose budget the growth is charged to (see
	// budgetMake); nil for a writer of no connection (in tests).
	conn *conn
	// reserve is how many bytes past the reply must stay within the
	// budget: EXEC keeps room there for its later elements.
	reserve int
	// limit, if not 0, is a length buf may not pass: EXEC's bound on the
	// bytes of its reply (see respExec).
	limit int
	// over says the reply was cut off: everything written after that is
	// dropped.
	over bool
	// cmd is the row of the command the reply is for, as Redis's client's
	// cmd: for the errors that name it (errExpireTime, errSubcommand).
	cmd *command
}

// The most bytes of framing around a value: a type byte, a length of up
// to 20 digits, CRLF, and the CRLF after a bulk string's bytes.
const respHeaderMax = 1 + 20 + 2 + 2

// respReplyCopied counts the bytes replies have copied as their buffers
// grew (for the tests: it stays within a constant times the replies'
// sizes).
var respReplyCopied int

// begin starts a reply at the end of buf.
func (w *respWriter) begin(buf []byte) {
	w.buf, w.reserve, w.limit, w.over = buf, 0, 0, false
}

// room makes room for n more bytes of the reply, or reports that they
// would take it past what the budget can hold. The buffer at least
// doubles when it grows.
func (w *respWriter) room(n int) bool {
	if w.over {
		return false
	}
	need := len(w.buf) + n + w.reserve
	if w.limit > 0 && need > w.limit {
		w.over = true
		return false
	}
	if need <= cap(w.buf) {
		return true
	}
	size, tried := 0, 0
	for _, s := range growSteps(cap(w.buf)) {
		if s = max(s, need); s == tried {
			continue
		}
		if tried = s; budgetMake(w.conn, s) {
			size = s
			break
		}
	}
	if size == 0 {
		w.over = true
		return false
	}
	grown := make([]byte, len(w.buf), size)
	respReplyCopied += copy(grown, w.buf)
	outputHeld += size - cap(w.buf)
	w.buf = grown
	return true
}

// left is how many more bytes the reply may take now: the room its buffer
// can reach by doubling within what the budget has left (see room).
func (w *respWriter) left() int {
	n := w.reach() - len(w.buf) - w.reserve
	if w.limit > 0 {
		n = min(n, w.limit-len(w.buf)-w.reserve)
	}
	return n
}

// growSteps are the sizes a buffer of capacity c may grow to, largest
// first. It doubles while the budget has room, so that a reply is copied
// a constant number of times over as it grows; past that, smaller steps,
// down to an eighth, still copy it at most some eight times over. While
// it is copied the old buffer and the new one are both held, so the
// budget must have room for the whole new one: a reply reaches about half
// of what the budget has left, and past that it is cut off. Growing by
// just the bytes the next item needs would copy the reply once per item.
// A buffer smaller than kWBufSize may grow to what it needs.
func growSteps(c int) []int {
	if c < kWBufSize {
		return []int{kWBufSize, 0}
	}
	return []int{2 * c, c + c/2, c + c/4, c + c/8}
}

// reach is the size the buffer can grow to, in room's steps, with what
// the budget has left now.
func (w *respWriter) reach() int {
	c, free := cap(w.buf), budgetLeft()
	for grew := true; grew; {
		grew = false
		for _, s := range growSteps(c) {
			if s > c && s <= free {
				free -= s - c
				c, grew = s, true
				break
			}
		}
	}
	return c
}

func (w *respWriter) outNil() {
	if w.room(respHeaderMax) {
		w.buf = resp.AppendNull(w.buf, w.ver)
	}
}

func (w *respWriter) outStr(s string) {
	if w.room(respHeaderMax + len(s)) {
		w.buf = resp.AppendBulk(w.buf, s)
	}
}

// outBulk is outStr for bytes, such as an argument of the request.
func (w *respWriter) outBulk(b []byte) {
	if w.room(respHeaderMax + len(b)) {
		w.buf = resp.AppendBulk(w.buf, b)
	}
}

func (w *respWriter) outInt(n int64) {
	if w.room(respHeaderMax) {
		w.buf = resp.AppendInt(w.buf, n)
	}
}

// outDbl writes a score as Redis 7.0 does (see resp.AppendDouble).
func (w *respWriter) outDbl(f float64) {
	if w.room(respHeaderMax + 24) { // "-1.2345678901234567e-308"
		w.buf = resp.AppendDouble(w.buf, f, w.ver)
	}
}

func (w *respWriter) outArr(n int) {
	if w.room(respHeaderMax) {
		w.buf = resp.AppendArray(w.buf, n)
	}
}

// outMap starts a map of n pairs: RESP3 has maps; in RESP2 it is an array
// of 2n elements, as Redis sends HGETALL.
func (w *respWriter) outMap(n int) {
	if w.room(respHeaderMax) {
		w.buf = resp.AppendMap(w.buf, n, w.ver)
	}
}

// outErr writes an error of the book's commands in Redis's words: the
// code says what went wrong, and Redis has its own text for a wrong type.
func (w *respWriter) outErr(code int32, msg string) {
	if code == proto.CodeType {
		w.err(errWrongType)
		return
	}
	w.err("ERR " + msg)
}

// err writes an error with its whole text, kind first ("ERR ...",
// "WRONGTYPE ...").
func (w *respWriter) err(text string) {
	if w.room(respHeaderMax + len(text)) {
		w.buf = resp.AppendError(w.buf, text)
	}
}

// simple writes a simple string: "+OK".
func (w *respWriter) simple(s string) {
	if w.room(respHeaderMax + len(s)) {
		w.buf = resp.AppendSimple(w.buf, s)
	}
}

func (w *respWriter) beginArr() int { return len(w.buf) }

// endArr puts the header of an array of n elements before them, at at.
// RESP writes a count in as many digits as it takes, so the elements move
// up to make room, as Redis does for a reply of a length not known ahead.
func (w *respWriter) endArr(at, n int) {
	var hdr [respHeaderMax]byte
	h := resp.AppendArray(hdr[:0], n)
	if !w.room(len(h)) {
		return
	}
	w.buf = w.buf[:len(w.buf)+len(h)]
	copy(w.buf[at+len(h):], w.buf[at:])
	copy(w.buf[at:], h)
}

func (w *respWriter) size() int { return len(w.buf) }

// maxReply is what the budget has left, counted in the book's sizes: RESP
// frames a value in at most 5 times the book's 5 bytes (a bulk string's
// "$<length>\r\n...\r\n"), so a fifth.
func (w *respWriter) maxReply() int { return w.left() / 5 }

func (w *respWriter) truncate(at int) {
	w.buf = w.buf[:at]
	w.over = false
}

// Redis's texts for the errors many commands share.
const (
	errWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNotInt    = "ERR value is not an integer or out of range"
	errNotFloat  = "ERR value is not a valid float"
	errSyntax    = "ERR syntax error"
)
