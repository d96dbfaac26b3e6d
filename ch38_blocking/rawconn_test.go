package chapter_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// Helpers for the tests that talk to the server over plain sockets. The
// checks of bad input, pipelining and partial reads and writes are the
// conformance runner's (go run ./tools/conform), run against every chapter.

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
