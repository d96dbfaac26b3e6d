package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

// TestBinWriterIsTheBooksSerialization: each of binWriter's methods
// appends exactly the bytes of the book's out_* function it stands for, so
// the commands' replies on the book's listener are what they were.
func TestBinWriterIsTheBooksSerialization(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w replyWriter)
		want  []byte
	}{
		{"nil", func(w replyWriter) { w.outNil() }, proto.OutNil(nil)},
		{"str", func(w replyWriter) { w.outStr("abc") }, proto.OutStr(nil, "abc")},
		{"int", func(w replyWriter) { w.outInt(-7) }, proto.OutInt(nil, -7)},
		{"dbl", func(w replyWriter) { w.outDbl(2.5) }, proto.OutDbl(nil, 2.5)},
		{"arr", func(w replyWriter) { w.outArr(3) }, proto.OutArr(nil, 3)},
		{"err", func(w replyWriter) { w.outErr(proto.CodeType, "expect zset") }, proto.OutErr(nil, proto.CodeType, "expect zset")},
		{"array of a length known at its end", func(w replyWriter) {
			at := w.beginArr()
			w.outStr("a")
			w.outInt(1)
			w.endArr(at, 2)
		}, proto.OutInt(proto.OutStr(proto.OutArr(nil, 2), "a"), 1)},
		{"truncated", func(w replyWriter) {
			at := w.beginArr()
			w.outStr(strings.Repeat("x", 100))
			w.truncate(at)
			w.outErr(proto.Code2Big, "response is too big")
		}, proto.OutErr(nil, proto.Code2Big, "response is too big")},
	} {
		w := &binWriter{}
		c.write(w)
		if !bytes.Equal(w.buf, c.want) || w.size() != len(c.want) {
			t.Errorf("%s: wrote %x (size %d), want %x", c.name, w.buf, w.size(), c.want)
		}
	}
	if got := (&binWriter{}).maxReply(); got != kMaxReply {
		t.Errorf("maxReply() = %d, want kMaxReply (%d)", got, kMaxReply)
	}
}

// callWriter is a replyWriter that records the calls made on it, to show
// what a command says without any protocol's bytes.
type callWriter struct {
	calls []string
}

func (w *callWriter) outNil()                       { w.add("nil") }
func (w *callWriter) outStr(s string)               { w.add("str " + s) }
func (w *callWriter) outInt(n int64)                { w.add(fmt.Sprint("int ", n)) }
func (w *callWriter) outDbl(f float64)              { w.add(fmt.Sprint("dbl ", f)) }
func (w *callWriter) outArr(n int)                  { w.add(fmt.Sprint("arr ", n)) }
func (w *callWriter) outErr(code int32, msg string) { w.add(fmt.Sprint("err ", code, " ", msg)) }
func (w *callWriter) beginArr() int                 { w.add("begin"); return len(w.calls) - 1 }
func (w *callWriter) endArr(at, n int)              { w.calls[at] = fmt.Sprint("arr ", n) }
func (w *callWriter) size() int                     { return len(w.calls) }
func (w *callWriter) truncate(at int)               { w.calls = w.calls[:at] }
func (w *callWriter) maxReply() int                 { return kMaxReply }
func (w *callWriter) add(call string)               { w.calls = append(w.calls, call) }

// TestCommandsWriteThroughTheWriter: the book's commands write their
// replies through any replyWriter, not into the book's bytes.
func TestCommandsWriteThroughTheWriter(t *testing.T) {
	resetData(t)
	run("zadd", "z", "1", "a")
	run("zadd", "z", "2.5", "b")
	run("set", "s", "v")
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"get", "s"}, "str v"},
		{[]string{"get", "nosuchkey"}, "nil"},
		{[]string{"zscore", "z", "b"}, "dbl 2.5"},
		{[]string{"zquery", "z", "0", "", "0", "10"}, "arr 4|str a|dbl 1|str b|dbl 2.5"},
		{[]string{"get", "z"}, fmt.Sprint("err ", proto.CodeType, " expect string type")},
		{[]string{"hset", "h", "f", "v"}, "int 1"},
		{[]string{"hlen", "z"}, fmt.Sprint("err ", proto.CodeType, " expect hash")},
		{[]string{"hget", "nosuchkey", "f"}, "nil"},
		{[]string{"hgetall", "nosuchkey"}, "arr 0"},
		{[]string{"nosuchcommand"}, fmt.Sprint("err ", proto.CodeUnknown, " Unknown cmd")},
	} {
		args := make([][]byte, len(c.cmd))
		for i, s := range c.cmd {
			args[i] = []byte(s)
		}
		w := &callWriter{}
		bookRequest(args, w)
		if got := strings.Join(w.calls, "|"); got != c.want {
			t.Errorf("%q wrote %s, want %s", c.cmd, got, c.want)
		}
	}
}
