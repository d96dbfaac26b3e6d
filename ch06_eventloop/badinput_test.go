package chapter_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
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

// expectReply reads one framed reply and checks its body.
func expectReply(t *testing.T, c net.Conn, want string) {
	t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatalf("reading reply header: %v", err)
	}
	body := make([]byte, binary.LittleEndian.Uint32(hdr[:]))
	if _, err := io.ReadFull(c, body); err != nil {
		t.Fatalf("reading reply body: %v", err)
	}
	if string(body) != want {
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

// exchange sends one request and checks the echoed reply.
func exchange(t *testing.T, c net.Conn, body string) {
	t.Helper()
	if _, err := c.Write(frame(body)); err != nil {
		t.Fatal(err)
	}
	expectReply(t, c, body)
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
			send: binary.LittleEndian.AppendUint32(nil, 4097),
			log:  "too long",
		},
		{
			name:    "valid request then bad frame in one write",
			send:    append(frame("first"), binary.LittleEndian.AppendUint32(nil, 1<<31)...),
			replies: []string{"first"},
			log:     "too long",
		},
		{
			name:   "truncated request then EOF",
			send:   frame("truncated")[:7],
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
	exchange(t, bystander, "before")
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
			exchange(t, bystander, "still served after "+tt.name)
		})
	}
}

// TestPipelinedInOneWrite: several requests arriving in one read are all
// answered, in order.
func TestPipelinedInOneWrite(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	var batch []byte
	for _, body := range []string{"a", "bb", "", "ccc"} {
		batch = append(batch, frame(body)...)
	}
	c.Write(batch)
	for _, want := range []string{"a", "bb", "", "ccc"} {
		expectReply(t, c, want)
	}
}

// TestPartialReads: a request trickling in a byte at a time is assembled
// across reads.
func TestPartialReads(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	for _, b := range frame("one byte at a time") {
		if _, err := c.Write([]byte{b}); err != nil {
			t.Fatal(err)
		}
	}
	expectReply(t, c, "one byte at a time")
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
	const count = 2000 // about 8 MB of replies, far past what the buffers hold
	body := func(i int) string {
		return strings.Repeat(string(rune('a'+i%26)), 4096)
	}
	var writeErr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		for i := 0; i < count; i++ {
			if _, writeErr = c.Write(frame(body(i))); writeErr != nil {
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
		expectReply(t, c, body(i))
	}
	<-written
	if writeErr != nil {
		t.Fatal(writeErr)
	}
}
