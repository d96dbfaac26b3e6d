package server

import (
	"example.com/byor/ch21_resp2/proto"
	"example.com/byor/ch21_resp2/resp"
)

// respWriter writes replies in RESP2, appended to buf: the replyWriter
// of the RESP listener, and what its own commands write through (simple
// strings, Redis's error texts). A reply has the room the write buffer
// has (wbufReserve makes it at least the book's message size); one larger
// is cut off (over), and the caller replaces it with an error.
type respWriter struct {
	buf []byte
	// conn is the connection it writes for; nil in tests.
	conn *conn
	// over says the reply was cut off: everything written after that is
	// dropped.
	over bool
}

// The most bytes of framing around a value: a type byte, a length of up
// to 20 digits, CRLF, and the CRLF after a bulk string's bytes.
const respHeaderMax = 1 + 20 + 2 + 2

// begin starts a reply at the end of buf.
func (w *respWriter) begin(buf []byte) {
	w.buf, w.over = buf, false
}

// room reports whether the reply has room for n more bytes in the
// buffer's capacity: a larger reply is refused whole (over), and the
// request is answered with an error instead (see oneRequest).
func (w *respWriter) room(n int) bool {
	if len(w.buf)+n > cap(w.buf) {
		w.over = true
	}
	return !w.over
}

func (w *respWriter) outNil() {
	if w.room(respHeaderMax) {
		w.buf = resp.AppendNull(w.buf)
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
		w.buf = resp.AppendDouble(w.buf, f)
	}
}

func (w *respWriter) outArr(n int) {
	if w.room(respHeaderMax) {
		w.buf = resp.AppendArray(w.buf, n)
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
func (w *respWriter) maxReply() int { return (cap(w.buf) - len(w.buf)) / 5 }

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
