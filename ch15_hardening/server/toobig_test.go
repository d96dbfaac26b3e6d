package server

import (
	"fmt"
	"runtime"
	"testing"

	"example.com/byor/ch15_hardening/proto"
)

var errTooBig = string(proto.OutErr(nil, proto.Code2Big, "response is too big"))

// TestTooBigReplyIsNotBuilt: keys and zquery over collections
// far too large for one message answer the error without building the
// reply first (which took hundreds of milliseconds for a million items).
func TestTooBigReplyIsNotBuilt(t *testing.T) {
	resetData(t)
	const n = 50_000
	for i := range n {
		run("set", fmt.Sprintf("key%d", i), "v")
		run("zadd", "z", fmt.Sprint(i), fmt.Sprintf("member%d", i))
	}
	for _, cmd := range [][]string{
		{"keys"},
		{"zquery", "z", "0", "", "0", "1000000000"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := run(cmd...)
		runtime.ReadMemStats(&after)
		if got != errTooBig {
			t.Errorf("%q = %.40q..., want the too-big error", cmd, got)
		}
		// The whole reply would take more than 500 KB.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
			t.Errorf("%q allocated %d bytes to refuse the reply: it was built first", cmd, alloc)
		}
	}
}
