package resp

import (
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

// The same requests parsed by both protocols' parsers: what finding the
// end of every header line costs next to reading length prefixes.
var benchRequests = map[string][]string{
	"set":      {"set", "key:000000012345", "xxx"},
	"set-4KiB": {"set", "key:000000012345", strings.Repeat("x", 4000)},
	"hset-20":  append([]string{"hset", "h"}, strings.Split(strings.Repeat("field,value,", 10), ",")[:20]...),
}

func BenchmarkParse(b *testing.B) {
	for name, req := range benchRequests {
		respReq := AppendRequest(nil, req...)
		bookReq := proto.EncodeReq(req)
		b.Run("resp/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(respReq)))
			var args [][]byte
			for b.Loop() {
				var err error
				if args, _, err = ParseRequest(respReq, args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("inline/"+name, func(b *testing.B) {
			inline := []byte(strings.Join(req, " ") + "\r\n")
			b.SetBytes(int64(len(inline)))
			var args [][]byte
			for b.Loop() {
				var err error
				if args, _, err = ParseRequest(inline, args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("book/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(bookReq)))
			var args [][]byte
			for b.Loop() {
				var err error
				if args, err = proto.SplitReq(bookReq, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
