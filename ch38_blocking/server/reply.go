package server

import "example.com/byor/ch38_blocking/proto"

// replyWriter is where a command writes its reply: one value, or an array
// of them, in whatever protocol the connection speaks. It has the shape of
// the book's out_nil, out_str, out_int, out_dbl, out_arr and out_err, plus
// the book's way to write an array whose length is known only at its end.
// The book's serialization (binWriter) and RESP (respWriter, in
// resp_reply.go) implement it, so a command written against it answers on
// either listener, as an http.Handler answers HTTP/1 and HTTP/2 alike.
type replyWriter interface {
	outNil()
	outStr(s string)
	outInt(n int64)
	outDbl(f float64)
	outArr(n int)
	// outErr writes an error: code is one of the book's (proto.CodeType,
	// ...), which a writer may show in its own protocol's words.
	outErr(code int32, msg string)
	// beginArr starts an array of a length still unknown and returns where
	// it starts; endArr(at, n) gives it its n elements once written.
	beginArr() int
	endArr(at, n int)
	// size is how many bytes the reply holds so far, and truncate(at)
	// drops what was written from at (a size, or a beginArr) on.
	size() int
	truncate(at int)
	// maxReply is the most bytes of the book's serialization a reply
	// may take, for the commands that refuse one too big before they
	// change anything: the book's message (kMaxReply), or on RESP what
	// the budget of memory has left.
	maxReply() int
}

// binWriter writes replies in the book's serialization (package proto),
// appended to buf.
type binWriter struct {
	buf []byte
}

func (w *binWriter) outNil()                       { w.buf = proto.OutNil(w.buf) }
func (w *binWriter) outStr(s string)               { w.buf = proto.OutStr(w.buf, s) }
func (w *binWriter) outInt(n int64)                { w.buf = proto.OutInt(w.buf, n) }
func (w *binWriter) outDbl(f float64)              { w.buf = proto.OutDbl(w.buf, f) }
func (w *binWriter) outArr(n int)                  { w.buf = proto.OutArr(w.buf, uint32(n)) }
func (w *binWriter) outErr(code int32, msg string) { w.buf = proto.OutErr(w.buf, code, msg) }
func (w *binWriter) size() int                     { return len(w.buf) }
func (w *binWriter) truncate(at int)               { w.buf = w.buf[:at] }
func (w *binWriter) maxReply() int                 { return kMaxReply }

func (w *binWriter) beginArr() int {
	at := len(w.buf)
	w.buf = proto.OutArr(w.buf, 0) // the count is filled in by endArr
	return at
}

func (w *binWriter) endArr(at, n int) { proto.OutUpdateArr(w.buf[at:], uint32(n)) }
