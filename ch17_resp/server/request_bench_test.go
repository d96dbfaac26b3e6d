package server

import (
	"encoding/binary"
	"testing"

	"example.com/byor/ch17_resp/proto"
)

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
			resetData()
			run("set", "key:000042", "abc")
			run("pexpire", "key:000042", "3600000")
			body := proto.EncodeReq(cmd)
			req := append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
			conn := newConn(-1)
			b.ReportAllocs()
			for b.Loop() {
				conn.rbufStart, conn.rbufEnd = 0, copy(conn.rbuf[:], req)
				if !tryOneRequest(conn) {
					b.Fatal("request not handled")
				}
				conn.wbuf = conn.wbuf[:0]
			}
		})
	}
}
