package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

var errTooBig = string(proto.OutErr(nil, proto.Code2Big, "response is too big"))

// fieldList returns "FIELDS n f0 ... f<n-1>".
func fieldList(n int) []string {
	out := []string{"FIELDS", fmt.Sprint(n)}
	for i := range n {
		out = append(out, fmt.Sprintf("f%d", i))
	}
	return out
}

// TestTooBigReplyChangesNothing: a command whose reply would be too big
// for one message answers the error and leaves the data as it was, rather
// than doing its work and then failing.
func TestTooBigReplyChangesNothing(t *testing.T) {
	resetData(t)
	const n = 460
	value := strings.Repeat("v", 30)
	set := []string{"hset", "hb"}
	for i := range n {
		set = append(set, fmt.Sprintf("f%d", i), value)
	}
	run(set...)
	check := func(cmd []string, want string) {
		t.Helper()
		if got := run(cmd...); got != want {
			t.Fatalf("%.60q = %.80q, want %.80q", cmd, got, want)
		}
	}
	hlen := []string{"hlen", "hb"}
	pttl := []string{"hpttl", "hb", "FIELDS", "1", "f0"}
	noTTL := string(proto.OutInt(proto.OutArr(nil, 1), -1))

	// hgetex with a past time would delete 300 fields.
	check(append([]string{"hgetex", "hb", "PXAT", "1"}, fieldList(300)...), errTooBig)
	check(hlen, string(proto.OutInt(nil, n)))
	// hpexpire and hpersist with 460 fields: 460 integers do not fit.
	check(append([]string{"hpexpire", "hb", "100000"}, fieldList(n)...), errTooBig)
	check(pttl, noTTL)
	run("hpexpire", "hb", "100000", "FIELDS", "1", "f0")
	check(append([]string{"hpersist", "hb"}, fieldList(n)...), errTooBig)
	if got := run(pttl...); got == noTTL {
		t.Fatalf("hpersist answered an error but removed the expiry of f0")
	}

	// A reply that fits still does the work; a field hgetex deletes reads
	// as nil when named again.
	want := proto.OutArr(nil, 3)
	want = proto.OutStr(want, value)
	want = proto.OutNil(want)
	want = proto.OutStr(want, value)
	check([]string{"hgetex", "hb", "PXAT", "1", "FIELDS", "3", "f1", "f1", "f2"}, string(want))
	check(hlen, string(proto.OutInt(nil, n-2)))
}

// TestTooBigReplyIsNotBuilt: keys, zquery and hgetall over collections
// far too large for one message answer the error without building the
// reply first (which took hundreds of milliseconds for a million items).
func TestTooBigReplyIsNotBuilt(t *testing.T) {
	resetData(t)
	const n = 50_000
	hset := []string{"hset", "h"}
	for i := range n {
		run("set", fmt.Sprintf("key%d", i), "v")
		run("zadd", "z", fmt.Sprint(i), fmt.Sprintf("member%d", i))
		hset = append(hset, fmt.Sprintf("f%d", i), "v")
	}
	run(hset...)
	for _, cmd := range [][]string{
		{"keys"},
		{"zquery", "z", "0", "", "0", "1000000000"},
		{"hgetall", "h"},
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
