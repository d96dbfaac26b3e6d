package chapter_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"regexp"
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

// TestTooLong: a length header above k_max_msg is logged and ends the
// connection; the server then serves the next client as before.
func TestTooLong(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	c.Write(binary.LittleEndian.AppendUint32(nil, 4097))
	expectClosed(t, c)
	if err := srv.waitLog(regexp.MustCompile(`(?m)^too long$`)); err != nil {
		t.Fatal(err)
	}

	next := dialRaw(t, srv.Addr)
	next.Write(frame("hello"))
	expectReply(t, next, "world")
}

// TestTruncatedThenEOF: a client that hangs up inside a request is logged
// and dropped; the requests it completed were answered.
func TestTruncatedThenEOF(t *testing.T) {
	srv := startTestServer(t)
	c := dialRaw(t, srv.Addr)
	c.Write(frame("one"))
	expectReply(t, c, "world")
	c.Write(frame("two")[:5])
	c.(*net.TCPConn).CloseWrite()
	expectClosed(t, c)
	if err := srv.waitLog(regexp.MustCompile(`(?m)^unexpected EOF$`)); err != nil {
		t.Fatal(err)
	}

	next := dialRaw(t, srv.Addr)
	next.Write(frame("hello"))
	expectReply(t, next, "world")
}
