package server

import (
	"encoding/binary"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

// loadedRequest prepares a connection whose read buffer is refilled with
// one framed request for cmd before each call of the returned function,
// which handles it as the event loop would. The key key:000042 exists and
// has a TTL.
func loadedRequest(tb testing.TB, cmd []string) func() {
	resetData(tb)
	run("set", "key:000042", "abc")
	run("pexpire", "key:000042", "3600000")
	body := proto.EncodeReq(cmd)
	req := append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
	conn := newConn(-1)
	return func() {
		conn.rbufStart, conn.rbufEnd = 0, copy(conn.testReadBuf(), req)
		if !tryOneRequest(conn) {
			tb.Fatal("request not handled")
		}
		conn.wbuf = conn.wbuf[:0]
	}
}

// TestRequestAllocs pins the chapter's claim of no allocation per request
// (step e of the README): a get, a pexpire and a pttl allocate nothing once
// their bytes are read; a set on an existing key allocates only the string
// that stores the new value.
func TestRequestAllocs(t *testing.T) {
	for _, tt := range []struct {
		cmd  []string
		want float64
	}{
		{[]string{"get", "key:000042"}, 0},
		{[]string{"GET", "key:000042"}, 0},
		{[]string{"get", "nosuchkey"}, 0},
		{[]string{"set", "key:000042", "xyz"}, 1},
		{[]string{"pexpire", "key:000042", "3600000"}, 0},
		{[]string{"pttl", "key:000042"}, 0},
	} {
		handle := loadedRequest(t, tt.cmd)
		if got := testing.AllocsPerRun(100, handle); got != tt.want {
			t.Errorf("%q: %v allocations per request, want %v", tt.cmd, got, tt.want)
		}
	}
}

// BenchmarkRequest measures what one request costs the event loop once
// its bytes are in the read buffer: parsing, running the command and
// framing the reply into the write buffer. It runs on a key that exists
// and has a TTL, as most requests of a warm server do. Run with
//
//	go test -run '^$' -bench Request -benchmem ./server
//
// and look at allocs/op: a get should allocate nothing, a set only the
// new value's string.
func BenchmarkRequest(b *testing.B) {
	for _, cmd := range [][]string{
		{"get", "key:000042"},
		{"set", "key:000042", "xyz"},
		{"pexpire", "key:000042", "3600000"},
		{"pttl", "key:000042"},
	} {
		b.Run(cmd[0], func(b *testing.B) {
			handle := loadedRequest(b, cmd)
			b.ReportAllocs()
			for b.Loop() {
				handle()
			}
		})
	}
}
