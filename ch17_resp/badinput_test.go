package chapter_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests talk to the server over plain sockets so that they can send
// bytes the real client never would.

// dialRaw connects to the server; every read and write gives up after 10s.
func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// frame prefixes body with its 4-byte little-endian length.
func frame(body string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// readReply reads one framed reply and returns its body.
func readReply(t *testing.T, c net.Conn) []byte {
	t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatalf("reading reply header: %v", err)
	}
	body := make([]byte, binary.LittleEndian.Uint32(hdr[:]))
	if _, err := io.ReadFull(c, body); err != nil {
		t.Fatalf("reading reply body: %v", err)
	}
	return body
}

// expectReply reads one framed reply and checks its body.
func expectReply(t *testing.T, c net.Conn, want string) {
	t.Helper()
	if body := readReply(t, c); string(body) != want {
		t.Fatalf("reply %q, want %q", body, want)
	}
}

// expectClosed checks that the server closes the connection without
// sending anything more.
func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	n, err := c.Read(make([]byte, 1))
	if n != 0 || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("read after bad input = %d, %v; want the connection closed", n, err)
	}
}

// req frames a command the way the client does. It is written out here,
// rather than taken from package proto, so the tests check the protocol
// and not the code under test.
func req(cmd ...string) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(len(cmd)))
	for _, s := range cmd {
		body = binary.LittleEndian.AppendUint32(body, uint32(len(s)))
		body = append(body, s...)
	}
	return frame(string(body))
}

// Serialized replies, written out independently of package proto.
func serNil() string { return "\x00" }
func serStr(s string) string {
	return "\x02" + string(le32(uint32(len(s)))) + s
}
func serInt(n int64) string {
	return "\x03" + string(binary.LittleEndian.AppendUint64(nil, uint64(n)))
}
func serErr(code int32, msg string) string {
	return "\x01" + string(le32(uint32(code))) + string(le32(uint32(len(msg)))) + msg
}
func serArr(elems ...string) string {
	return "\x05" + string(le32(uint32(len(elems)))) + strings.Join(elems, "")
}

// exchange sends one command and checks the reply body.
func exchange(t *testing.T, c net.Conn, want string, cmd ...string) {
	t.Helper()
	if _, err := c.Write(req(cmd...)); err != nil {
		t.Fatal(err)
	}
	expectReply(t, c, want)
}

// le32 is a 4-byte little-endian integer.
func le32(n uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, n)
}

// concat joins byte slices.
func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestBadInput sends each kind of bad input on its own connection while a
// bystander stays connected: only the offender is closed, requests before
// the bad bytes are answered, the bystander keeps being served, and the
// server logs what went wrong and later exits cleanly.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name    string
		send    []byte // written in one write
		replies []string
		log     string // a line the server must log
		hangUp  bool   // close our side after sending
	}{
		{
			name: "length above k_max_msg",
			send: le32(4097),
			log:  "too long",
		},
		{
			name: "nstr above k_max_args",
			send: frame(string(le32(1025))),
			log:  "bad req: too many strings: 1025 above 1024",
		},
		{
			name: "string length running past the message",
			send: frame(string(concat(le32(1), le32(10), []byte("short")))),
			log:  "bad req: string runs past the end of the request",
		},
		{
			name: "fewer strings than nstr",
			send: frame(string(concat(le32(2), le32(3), []byte("get")))),
			log:  "bad req: string runs past the end of the request",
		},
		{
			name: "body shorter than nstr",
			send: frame("ab"),
			log:  "bad req: string runs past the end of the request",
		},
		{
			name: "trailing bytes after the last string",
			send: frame(string(concat(le32(1), le32(3), []byte("get"), []byte("junk")))),
			log:  "bad req: trailing bytes after the last string",
		},
		{
			name:    "valid request then bad frame in one write",
			send:    concat(req("get", "k"), le32(1<<31)),
			replies: []string{serStr("v")},
			log:     "too long",
		},
		{
			name:    "valid request then bad request in one write",
			send:    concat(req("get", "k"), frame(string(concat(le32(1), le32(1<<20))))),
			replies: []string{serStr("v")},
			log:     "bad req: string runs past the end of the request",
		},
		{
			name:   "truncated request then EOF",
			send:   req("set", "k", "v")[:9],
			log:    "unexpected EOF",
			hangUp: true,
		},
		{
			name:   "disconnect inside the header",
			send:   []byte{9, 0},
			log:    "unexpected EOF",
			hangUp: true,
		},
	}
	srv := startTestServer(t)
	bystander := dialRaw(t, srv.Addr)
	exchange(t, bystander, serNil(), "set", "k", "v")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialRaw(t, srv.Addr)
			if _, err := c.Write(tt.send); err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.replies {
				expectReply(t, c, want)
			}
			if tt.hangUp {
				c.Close()
			} else {
				expectClosed(t, c)
			}
			if err := srv.waitLog(regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tt.log) + `$`)); err != nil {
				t.Fatal(err)
			}
			exchange(t, bystander, serStr("v"), "get", "k")
		})
	}
}

// TestPipelinedInOneWrite: several requests arriving in one read are all
// answered, in order.
func TestPipelinedInOneWrite(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	c.Write(concat(req("set", "a", "1"), req("get", "a"), req("del", "a"), req("get", "a"), req("nope"), req("keys")))
	for _, want := range []string{serNil(), serStr("1"), serInt(1), serNil(), serErr(1, "Unknown cmd"), serArr()} {
		expectReply(t, c, want)
	}
}

// TestPartialReads: a request trickling in a byte at a time is assembled
// across reads.
func TestPartialReads(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	for _, b := range req("set", "slow", "one byte at a time") {
		if _, err := c.Write([]byte{b}); err != nil {
			t.Fatal(err)
		}
	}
	expectReply(t, c, serNil())
	exchange(t, c, serStr("one byte at a time"), "get", "slow")
}

// TestPartialWrites: a client that pipelines far more than the socket
// buffers hold, and reads nothing for a while, makes the server's writes
// stop on EAGAIN mid-reply; it must resume when poll() says the socket has
// drained. Every reply must arrive intact and in order.
func TestPartialWrites(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	// A small receive buffer on our side keeps the kernel from absorbing
	// all the replies.
	c.(*net.TCPConn).SetReadBuffer(64 << 10)
	val := strings.Repeat("v", 4000)
	exchange(t, c, serNil(), "set", "big", val)
	const count = 2000 // about 8 MB of replies, far past what the buffers hold
	var writeErr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		for i := 0; i < count; i++ {
			if _, writeErr = c.Write(req("get", "big")); writeErr != nil {
				return
			}
		}
	}()
	// Hold off reading until the writer is done or stuck, so replies pile
	// up in the server. (The timing decides only how hard the server is
	// pushed, never whether a correct server passes.)
	select {
	case <-written:
	case <-time.After(200 * time.Millisecond):
	}
	for i := 0; i < count; i++ {
		expectReply(t, c, serStr(val))
	}
	<-written
	if writeErr != nil {
		t.Fatal(writeErr)
	}
}

// TestClientRefusesOversizedCommand: the client checks the size limit
// before sending anything.
func TestClientRefusesOversizedCommand(t *testing.T) {
	srv := startTestServer(t)
	out, err := exec.Command("client", "-addr", srv.Addr, "set", "k", strings.Repeat("x", 5000)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "too long") {
		t.Fatalf("client with a 5000-byte value: %v, output %q; want a too long error", err, out)
	}
}
