package server

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

// parseScanReply reads SCAN's RESP reply: the cursor and the keys. It
// fails the test on anything else.
func parseScanReply(t *testing.T, reply string) (uint64, []string) {
	t.Helper()
	bad := func() { t.Fatalf("not a SCAN reply: %.200q", reply) }
	line := func() string {
		i := strings.Index(reply, "\r\n")
		if i < 0 {
			bad()
		}
		l := reply[:i]
		reply = reply[i+2:]
		return l
	}
	bulk := func() string {
		h := line()
		n, err := strconv.Atoi(strings.TrimPrefix(h, "$"))
		if h == "" || h[0] != '$' || err != nil || len(reply) < n+2 {
			bad()
		}
		s := reply[:n]
		reply = reply[n+2:]
		return s
	}
	if line() != "*2" {
		bad()
	}
	cursor, err := strconv.ParseUint(bulk(), 10, 64)
	if err != nil {
		bad()
	}
	h := line()
	n, err := strconv.Atoi(strings.TrimPrefix(h, "*"))
	if h == "" || h[0] != '*' || err != nil {
		bad()
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = bulk()
	}
	if reply != "" {
		bad()
	}
	return cursor, keys
}

// scanAll runs SCAN with the options given from cursor 0 to the end,
// calling between (if not nil) after each call; it returns how often each
// key came back, and the number of calls.
func scanAll(t *testing.T, between func(), opts ...string) (map[string]int, int) {
	t.Helper()
	got := map[string]int{}
	calls := 0
	for cursor := uint64(0); ; {
		c, keys := parseScanReply(t, respRun(t, append([]string{"SCAN", strconv.FormatUint(cursor, 10)}, opts...)...))
		calls++
		for _, k := range keys {
			got[k]++
		}
		if cursor = c; cursor == 0 {
			return got, calls
		}
		if between != nil {
			between()
		}
		if calls > 1_000_000 {
			t.Fatal("the scan does not end")
		}
	}
}

// TestRESPScanWhileAdding: a SCAN whose every call is followed by 100 new
// keys, so the key space grows several times over while it runs, returns
// every key present when it started, each once, and no key twice.
func TestRESPScanWhileAdding(t *testing.T) {
	resetData(t)
	const before = 2000
	for i := range before {
		run("set", fmt.Sprint("old:", i), "v")
	}
	added := 0
	got, calls := scanAll(t, func() {
		for range 100 {
			run("set", fmt.Sprint("new:", added), "v")
			added++
		}
	}, "COUNT", "20")
	for i := range before {
		if n := got[fmt.Sprint("old:", i)]; n != 1 {
			t.Fatalf("old:%d returned %d times", i, n)
		}
	}
	for k, n := range got {
		if n != 1 {
			t.Fatalf("%s returned %d times", k, n)
		}
	}
	t.Logf("%d calls; %d keys before, %d added meanwhile, %d of those returned", calls, before, added, len(got)-before)
	if added < 4*before {
		t.Errorf("only %d keys added during the scan: the key space did not grow enough to test resizes", added)
	}
}

// TestRESPScanOptions: MATCH, TYPE and COUNT, and the keys whose TTL has
// passed but which the timers have not removed yet.
func TestRESPScanOptions(t *testing.T) {
	resetData(t)
	for i := range 100 {
		run("set", fmt.Sprint("s:", i), "v")
		run("zadd", fmt.Sprint("z:", i), "1", "m")
		run("hset", fmt.Sprint("h:", i), "f", "v")
	}
	count := func(got map[string]int, prefix string) int {
		n := 0
		for k := range got {
			if strings.HasPrefix(k, prefix) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		opts    []string
		s, z, h int
	}{
		{nil, 100, 100, 100},
		{[]string{"MATCH", "z:*"}, 0, 100, 0},
		{[]string{"MATCH", "?:1?"}, 10, 10, 10},
		{[]string{"TYPE", "hash"}, 0, 0, 100},
		{[]string{"type", "STRING", "count", "1000"}, 100, 0, 0},
		{[]string{"TYPE", "zset", "MATCH", "z:5*"}, 0, 11, 0},
		{[]string{"TYPE", "list"}, 0, 0, 0},
		{[]string{"COUNT", "1", "COUNT", "3"}, 100, 100, 100},
	} {
		got, _ := scanAll(t, nil, tc.opts...)
		if s, z, h := count(got, "s:"), count(got, "z:"), count(got, "h:"); s != tc.s || z != tc.z || h != tc.h || len(got) != s+z+h {
			t.Errorf("SCAN %v: %d strings, %d zsets, %d hashes of %d keys; want %d, %d, %d", tc.opts, s, z, h, len(got), tc.s, tc.z, tc.h)
		}
	}
	// COUNT is how many keys to look at, as in Redis: a large one returns
	// them all in one call, COUNT 1 a few at a time.
	if _, calls := scanAll(t, nil, "COUNT", "1000"); calls != 1 {
		t.Errorf("SCAN COUNT 1000 over 300 keys took %d calls", calls)
	}
	if _, calls := scanAll(t, nil, "COUNT", "1"); calls < 100 {
		t.Errorf("SCAN COUNT 1 over 300 keys took %d calls", calls)
	}

	// A key whose TTL is due is not returned, though its timer has not
	// run yet.
	run("pexpire", "s:7", "100000")
	ent := lookupEntry("s:7")
	gData.heap[ent.heapIdx].Val = 0 // due since the server started
	if got, _ := scanAll(t, nil); got["s:7"] != 0 || len(got) != 299 {
		t.Errorf("a key past its TTL returned %d times, %d keys in all", got["s:7"], len(got))
	}
}

// TestRESPScanErrors: Redis 7.0's errors, the cursor checked first; an
// argument it takes as a cursor (strtoul's) goes on with or starts a scan.
func TestRESPScanErrors(t *testing.T) {
	resetData(t)
	run("set", "k", "v")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"abc"}, "-ERR invalid cursor\r\n"},
		{[]string{" 1"}, "-ERR invalid cursor\r\n"},
		{[]string{"-"}, "-ERR invalid cursor\r\n"},
		{[]string{"1x"}, "-ERR invalid cursor\r\n"},
		{[]string{"18446744073709551616"}, "-ERR invalid cursor\r\n"},
		{[]string{"abc", "COUNT", "0"}, "-ERR invalid cursor\r\n"},
		{[]string{"0", "COUNT", "0"}, "-ERR syntax error\r\n"},
		{[]string{"0", "COUNT", "-1"}, "-ERR syntax error\r\n"},
		{[]string{"0", "COUNT", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"0", "COUNT"}, "-ERR syntax error\r\n"},
		{[]string{"0", "MATCH"}, "-ERR syntax error\r\n"},
		{[]string{"0", "FOO", "bar"}, "-ERR syntax error\r\n"},
		{[]string{"0", "MATCH", "*", "x"}, "-ERR syntax error\r\n"},
		// Accepted: the empty cursor is 0, "-1" the largest; from 2^32 on,
		// cursors of epochs other than this key space's (0) start over.
		{[]string{""}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"},
		{[]string{"+0"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"},
		{[]string{"-1"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"},
		{[]string{"4294967296"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"},
		{[]string{"18446744073709551615", "COUNT", "9223372036854775807"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"},
	} {
		if got := respRun(t, append([]string{"SCAN"}, tc.args...)...); got != tc.want {
			t.Errorf("SCAN %q = %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := respRun(t, "SCAN"); got != "-"+errArity("scan")+"\r\n" {
		t.Errorf("SCAN alone = %q", got)
	}
}

// TestRESPScanOtherEpoch: a cursor's top 32 bits are the key table's
// epoch, the same in every cursor of a scan; a cursor of another epoch
// (from before the table took a new salt) starts the scan over, as cursor
// 0 does, and a scan begun with one returns every key.
func TestRESPScanOtherEpoch(t *testing.T) {
	resetData(t)
	for i := range 300 {
		run("set", fmt.Sprint("k", i), "v")
	}
	first := respRun(t, "SCAN", "0", "COUNT", "20")
	c1, _ := parseScanReply(t, first)
	second := respRun(t, "SCAN", strconv.FormatUint(c1, 10), "COUNT", "20")
	c2, _ := parseScanReply(t, second)
	if c1 == 0 || c2 == 0 || c1>>32 != c2>>32 || uint32(c2) <= uint32(c1) {
		t.Fatalf("cursors %#x then %#x: one epoch, places going up", c1, c2)
	}
	for _, epoch := range []uint64{c1>>32 + 1, c1>>32 ^ 1<<31, 1<<32 - 1} {
		other := epoch<<32 | uint64(uint32(c1))
		if got := respRun(t, "SCAN", strconv.FormatUint(other, 10), "COUNT", "20"); got != first {
			t.Errorf("SCAN %#x = %.60q, want SCAN 0's %.60q", other, got, first)
		}
	}
	got := map[string]int{}
	for cursor := (c1>>32+1)<<32 | uint64(uint32(c2)); ; {
		c, keys := parseScanReply(t, respRun(t, "SCAN", strconv.FormatUint(cursor, 10), "COUNT", "20"))
		for _, k := range keys {
			got[k]++
		}
		if cursor = c; cursor == 0 {
			break
		}
	}
	for i := range 300 {
		if n := got[fmt.Sprint("k", i)]; n != 1 {
			t.Fatalf("a scan begun with another epoch's cursor returned k%d %d times", i, n)
		}
	}
}

// TestRESPScanBounded: a SCAN with a huge COUNT looks at a bounded number
// of slots (kScanMaxWork, plus one step), and one whose keys would not fit
// in a reply walks a shorter stretch instead of failing.
func TestRESPScanBounded(t *testing.T) {
	resetData(t)
	const n = 100_000
	for i := range n {
		run("set", fmt.Sprint("k", i), "v")
	}
	before := workDone
	cursor, keys := parseScanReply(t, respRun(t, "SCAN", "0", "COUNT", "1000000000", "MATCH", "nomatch"))
	work := workDone - before
	if cursor == 0 || len(keys) != 0 || work > kScanMaxWork+4*kScanMaxCount {
		t.Errorf("SCAN COUNT 10^9 over %d keys: cursor %d, %d keys, %d work", n, cursor, len(keys), work)
	}

	resetData(t)
	big := strings.Repeat("x", 20_000)
	for i := range 200 { // 4 MB of keys, where a reply takes 512 KB
		run("set", fmt.Sprint(i, big), "v")
	}
	got, calls := scanAll(t, nil, "COUNT", "1000")
	if len(got) != 200 {
		t.Errorf("SCAN over 200 keys of 20 KB: %d keys in %d calls", len(got), calls)
	}
}

// bookScan runs the book's scan and decodes its reply: the cursor and the
// keys, or the error.
func bookScan(t *testing.T, args ...string) (int64, []string, string) {
	t.Helper()
	out := []byte(run(append([]string{"scan"}, args...)...))
	u32 := func() int {
		if len(out) < 4 {
			t.Fatalf("reply cut short")
		}
		v := binary.LittleEndian.Uint32(out)
		out = out[4:]
		return int(v)
	}
	tag := func(want byte) {
		if len(out) == 0 || out[0] != want {
			t.Fatalf("reply %q: want tag %d", out, want)
		}
		out = out[1:]
	}
	if len(out) > 0 && out[0] == proto.SerErr {
		return 0, nil, string(out[9:])
	}
	tag(proto.SerArr)
	if u32() != 2 {
		t.Fatal("scan's reply is not an array of 2")
	}
	tag(proto.SerInt)
	cursor := int64(binary.LittleEndian.Uint64(out))
	out = out[8:]
	tag(proto.SerArr)
	keys := make([]string, u32())
	for i := range keys {
		tag(proto.SerStr)
		n := u32()
		keys[i], out = string(out[:n]), out[n:]
	}
	if len(out) != 0 {
		t.Fatalf("%d bytes after the reply", len(out))
	}
	return cursor, keys, ""
}

// TestBookScan: the book's protocol's scan returns every key once, in
// replies that fit its 4 KB messages, halving its count where the keys
// are long; its errors are the book's.
func TestBookScan(t *testing.T) {
	resetData(t)
	want := map[string]bool{}
	for i := range 300 {
		k := fmt.Sprintf("%03d%s", i, strings.Repeat("k", 500))
		want[k] = true
		run("set", k, "v")
	}
	got := map[string]int{}
	calls := 0
	for cursor := int64(0); ; calls++ {
		c, keys, err := bookScan(t, strconv.FormatInt(cursor, 10), "100")
		if err != "" {
			t.Fatalf("scan %d 100: %s", cursor, err)
		}
		for _, k := range keys {
			got[k]++
		}
		if cursor = c; cursor == 0 {
			break
		}
	}
	for k := range want {
		if got[k] != 1 {
			t.Fatalf("key %.5s... returned %d times", k, got[k])
		}
	}
	if len(got) != len(want) || calls < 300*500/kMaxReply {
		t.Errorf("%d keys in %d calls", len(got), calls)
	}
	for _, args := range [][]string{{"x"}, {"0", "0"}, {"0", "-5"}, {"0", "y"}} {
		if _, _, err := bookScan(t, args...); !strings.HasPrefix(err, "expect") {
			t.Errorf("scan %q: error %q", args, err)
		}
	}
	// A cursor of another epoch (-1 is epoch 2^32-1) starts over.
	c0, keys0, _ := bookScan(t, "0", "100")
	if c, keys, _ := bookScan(t, "-1", "100"); c != c0 || !slices.Equal(keys, keys0) || len(keys) == 0 {
		t.Errorf("scan -1 100: cursor %d, %d keys; scan 0 100: cursor %d, %d keys", c, len(keys), c0, len(keys0))
	}
}
