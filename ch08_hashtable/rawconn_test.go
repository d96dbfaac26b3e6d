package chapter_test

import (
	"encoding/binary"
	"io"
	"net"
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

// res is the body of a reply with status code and data.
func res(code uint32, data string) string {
	return string(binary.LittleEndian.AppendUint32(nil, code)) + data
}
