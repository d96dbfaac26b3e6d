package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"example.com/byor/ch38_blocking/resp"
)

// respRunVer is respRun in protocol version ver.
func respRunVer(t testing.TB, ver int, args ...string) string {
	t.Helper()
	st := newRESPState(nil)
	st.w.ver = ver
	cmd := make([][]byte, len(args))
	for i, a := range args {
		cmd[i] = []byte(a)
	}
	st.w.begin(nil)
	st.w.ver = ver
	respDo(&conn{state: stateReq}, st, cmd)
	outputHeld -= cap(st.w.buf)
	return string(st.w.buf)
}

// replyNode is a parsed reply: a string (bulk, simple, integer or error,
// with its type byte in kind), a null, or an aggregate of elems.
type replyNode struct {
	kind  byte
	text  string
	elems []replyNode
}

// parseReply reads one reply from b and returns it and the rest of b.
func parseReply(t testing.TB, b string) (replyNode, string) {
	t.Helper()
	line, rest, ok := strings.Cut(b, "\r\n")
	if !ok || line == "" {
		t.Fatalf("no reply in %.80q", b)
	}
	n := replyNode{kind: line[0], text: line[1:]}
	switch line[0] {
	case '$':
		size, _ := strconv.Atoi(line[1:])
		if size < 0 {
			n.kind = '_'
			return n, rest
		}
		n.text, rest = rest[:size], rest[size+2:]
	case '*', '%', '~':
		size, _ := strconv.Atoi(line[1:])
		if n.kind == '%' {
			size *= 2
		}
		for range size {
			var e replyNode
			e, rest = parseReply(t, rest)
			n.elems = append(n.elems, e)
		}
	}
	return n, rest
}

// strs returns the texts of an array of strings.
func (n replyNode) strs() []string {
	var out []string
	for _, e := range n.elems {
		out = append(out, e.text)
	}
	return out
}

// TestRESPHMSetHSetNXHStrLen: the small hash commands' replies and
// errors, and that a refusal changes nothing.
func TestRESPHMSetHSetNXHStrLen(t *testing.T) {
	resetData(t)
	respSteps(t,
		"HMSET h a 1 b 22 => +OK|",
		"HMSET h a => -ERR wrong number of arguments for 'hmset' command|",
		"HMSET h a 1 b => -ERR wrong number of arguments for 'hmset' command|",
		"HMSET h a 9 c 333 => +OK|",
		"HGET h a => $1|9|",
		"HSTRLEN h c => :3|",
		"HSTRLEN h nosuch => :0|",
		"HSTRLEN nokey a => :0|",
		"HSETNX h a x => :0|",
		"HGET h a => $1|9|",
		"HSETNX h d x => :1|",
		"HSETNX new f v => :1|",
		"HLEN h => :4|",
		"SET s v => +OK|",
		"HMSET s a 1 => "+wrongType,
		"HSETNX s a 1 => "+wrongType,
		"HSTRLEN s a => "+wrongType,
		"GET s => $1|v|",
	)
}

// TestRESPHIncrByFloat: sums in a long double, Redis's order of checks
// (the increment, the type, the field's value, the sum), a field's TTL
// kept, and nothing changed by a refusal.
func TestRESPHIncrByFloat(t *testing.T) {
	resetData(t)
	respSteps(t,
		"HINCRBYFLOAT h f 0.1 => $3|0.1|",
		"HINCRBYFLOAT h f 0.2 => $3|0.3|",
		"HINCRBYFLOAT h f -0.3 => $1|0|",
		"HINCRBYFLOAT h f 1e3 => $4|1000|",
		"HINCRBYFLOAT h big 0 => $1|0|",
		"HINCRBYFLOAT h f 0x10 => $4|1016|",
		"HINCRBYFLOAT h f abc => -ERR value is not a valid float|",
		"HINCRBYFLOAT h f nan => -ERR value is not a valid float|",
		"HINCRBYFLOAT h f inf => -ERR value is NaN or Infinity|",
		"HINCRBYFLOAT h f -Infinity => -ERR value is NaN or Infinity|",
		"HSET h s abc i inf => :2|",
		"HINCRBYFLOAT h s 1 => -ERR hash value is not a float|",
		"HINCRBYFLOAT h i 1 => -ERR increment would produce NaN or Infinity|",
		"HGET h s => $3|abc|",
		"HGET h i => $3|inf|",
		"SET str v => +OK|",
		"HINCRBYFLOAT str f x => -ERR value is not a valid float|",
		"HINCRBYFLOAT str f 1 => "+wrongType,
		"HSET h big 1.1e4932 => :0|",
		"HINCRBYFLOAT h big 1.1e4932 => -ERR increment would produce NaN or Infinity|",
		"HGET h big => $8|1.1e4932|",
		"HEXPIRE h 1000 FIELDS 1 f => *1|:1|",
		"HINCRBYFLOAT h f 1.5 => $6|1017.5|",
		"HTTL h FIELDS 1 f => *1|:1000|",
	)
	// Past a float64's range, within a long double's: Redis's reply.
	resetData(t)
	if got := respRun(t, "HINCRBYFLOAT", "h", "big", "1.1e4932"); len(got) != 4942 ||
		!strings.HasPrefix(got, "$4933\r\n10999999999999999999743731075282418176590308692790434") {
		t.Errorf("HINCRBYFLOAT h big 1.1e4932: %.60q... (%d bytes)", got, len(got))
	}
}

// TestRESPHRandField: every form's reply, in both protocols, and the
// errors in Redis's order.
func TestRESPHRandField(t *testing.T) {
	resetData(t)
	fields := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
	for f, v := range fields {
		respRun(t, "HSET", "h", f, v)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for f := range fields {
			if !yield(f) {
				return
			}
		}
	})
	respSteps(t,
		"HRANDFIELD nokey => $-1|",
		"HRANDFIELD nokey 5 => *0|",
		"HRANDFIELD nokey -5 WITHVALUES => *0|",
		"HRANDFIELD h 0 => *0|",
		"HRANDFIELD h 0 WITHVALUES => *0|",
		"HRANDFIELD h x => -ERR value is not an integer or out of range|",
		"HRANDFIELD h x WITHVALUES => -ERR value is not an integer or out of range|",
		"HRANDFIELD h 1 WITHVALUE => -ERR syntax error|",
		"HRANDFIELD h 1 WITHVALUES x => -ERR syntax error|",
		"HRANDFIELD h -9223372036854775808 => -"+errHRandRange+"|",
		"HRANDFIELD h -9223372036854770000 WITHVALUES => -ERR value is out of range|",
		"HRANDFIELD h 4611686018427387904 WITHVALUES => -ERR value is out of range|",
		"SET s v => +OK|",
		"HRANDFIELD s => "+wrongType,
		"HRANDFIELD s 0 => "+wrongType,
		"HRANDFIELD s x => -ERR value is not an integer or out of range|",
	)
	// One field.
	for range 20 {
		n, _ := parseReply(t, respRun(t, "HRANDFIELD", "h"))
		if _, ok := fields[n.text]; !ok || n.kind != '$' {
			t.Fatalf("HRANDFIELD h: %+v, not a field", n)
		}
	}
	// Distinct: every size up to and past the hash's, both ways of
	// sampling (a third of the hash or less, and more).
	for count := 1; count <= 7; count++ {
		for range 10 {
			n, _ := parseReply(t, respRun(t, "HRANDFIELD", "h", strconv.Itoa(count)))
			got := slices.Sorted(slices.Values(n.strs()))
			if len(got) != min(count, 5) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Fatalf("HRANDFIELD h %d: %v, want %d distinct fields", count, got, min(count, 5))
			}
			for _, f := range got {
				if _, ok := fields[f]; !ok {
					t.Fatalf("HRANDFIELD h %d: %q is no field", count, f)
				}
			}
		}
	}
	// A count of a third of the hash or less draws places one by one.
	for i := range 100 {
		respRun(t, "HSET", "h100", strconv.Itoa(i), "v")
	}
	for range 20 {
		n, _ := parseReply(t, respRun(t, "HRANDFIELD", "h100", "33"))
		if got := slices.Sorted(slices.Values(n.strs())); len(slices.Compact(got)) != 33 {
			t.Fatalf("HRANDFIELD h100 33: %d distinct of %d", len(slices.Compact(got)), len(n.elems))
		}
	}
	n, _ := parseReply(t, respRun(t, "HRANDFIELD", "h", "5"))
	if diff := gocmp.Diff(names, slices.Sorted(slices.Values(n.strs()))); diff != "" {
		t.Errorf("HRANDFIELD h 5 (-want +got):\n%s", diff)
	}
	// Repeats: exactly the count asked, every field seen over enough picks.
	n, _ = parseReply(t, respRun(t, "HRANDFIELD", "h", "-1000"))
	seen := map[string]int{}
	for _, f := range n.strs() {
		seen[f]++
	}
	if len(n.elems) != 1000 || len(seen) != 5 {
		t.Errorf("HRANDFIELD h -1000: %d picks of %d fields, want 1000 of 5", len(n.elems), len(seen))
	}
	// WITHVALUES: flat in RESP2, pairs in RESP3, each field with its value.
	for _, ver := range []int{resp.RESP2, resp.RESP3} {
		for _, count := range []string{"3", "-8", "9"} {
			n, _ := parseReply(t, respRunVer(t, ver, "HRANDFIELD", "h", count, "WITHVALUES"))
			var pairs [][2]string
			if ver == resp.RESP3 {
				for _, e := range n.elems {
					if len(e.elems) != 2 {
						t.Fatalf("RESP3 HRANDFIELD h %s WITHVALUES: element %+v is not a pair", count, e)
					}
					pairs = append(pairs, [2]string{e.elems[0].text, e.elems[1].text})
				}
			} else {
				s := n.strs()
				for i := 0; i+1 < len(s); i += 2 {
					pairs = append(pairs, [2]string{s[i], s[i+1]})
				}
			}
			want, _ := strconv.Atoi(count)
			want = max(-want, min(want, 5))
			if len(pairs) != want {
				t.Errorf("RESP%d HRANDFIELD h %s WITHVALUES: %d pairs, want %d", ver, count, len(pairs), want)
			}
			for _, p := range pairs {
				if fields[p[0]] != p[1] {
					t.Errorf("RESP%d HRANDFIELD h %s WITHVALUES: %q with %q", ver, count, p[0], p[1])
				}
			}
		}
	}
	if got := respRunVer(t, resp.RESP3, "HRANDFIELD", "nokey"); got != "_\r\n" {
		t.Errorf("RESP3 HRANDFIELD nokey: %q, want the null", got)
	}
}

// TestRESPHRandFieldExpired: expired fields that no timer has reclaimed
// yet are never picked (HRANDFIELD reclaims them first); a hash whose
// fields have all expired answers as a missing key, and is gone.
func TestRESPHRandFieldExpired(t *testing.T) {
	resetData(t)
	respRun(t, "HSET", "h", "live", "1")
	respRun(t, "HSET", "all", "x", "1")
	for i := range 50 {
		f := fmt.Sprint("dead", i)
		respRun(t, "HSET", "h", f, "x")
		respRun(t, "HPEXPIRE", "h", "1", "FIELDS", "1", f)
	}
	respRun(t, "HPEXPIRE", "all", "1", "FIELDS", "1", "x")
	// No event loop runs here: the fields expire, and stay stored.
	for start := getUnixMs(); getUnixMs() < start+3; {
		time.Sleep(time.Millisecond)
	}
	if n := lookupEntry("h").obj.hash.StoredLen(); n != 51 {
		t.Fatalf("%d fields stored, want 51", n)
	}
	respSteps(t,
		"HRANDFIELD h -5 => *5|$4|live|$4|live|$4|live|$4|live|$4|live|",
		"HRANDFIELD all => $-1|",
		"EXISTS all => :0|",
	)
	if n := lookupEntry("h").obj.hash.StoredLen(); n != 1 {
		t.Errorf("%d fields stored after HRANDFIELD, want 1: it reclaims the expired ones", n)
	}
}

// TestRESPHRandFieldTooBig: a count whose reply cannot fit in the budget
// is refused before any pick, whatever its size, as a reply of many
// fields would be cut off.
func TestRESPHRandFieldTooBig(t *testing.T) {
	resetData(t)
	respRun(t, "HSET", "h", "f", "v")
	before := workDone
	respSteps(t,
		"HRANDFIELD h -9223372036854775807 => -"+errReplyMemory+"|",
		"HRANDFIELD h -4611686018427387903 WITHVALUES => -"+errReplyMemory+"|",
	)
	if w := workDone - before; w > 100 {
		t.Errorf("two refused HRANDFIELDs did %d units of work, want a few", w)
	}
}

// hscanAll walks the hash at key with HSCAN from cursor 0 to the end, each
// call with extra arguments, between calls running between; it returns
// every field seen (with the values, checked against want if not nil) and
// the number of calls.
func hscanAll(t *testing.T, ver int, key string, between func(call int), extra ...string) (map[string]int, int) {
	t.Helper()
	seen := map[string]int{}
	cursor := "0"
	for calls := 1; ; calls++ {
		n, rest := parseReply(t, respRunVer(t, ver, append([]string{"HSCAN", key, cursor}, extra...)...))
		if rest != "" || len(n.elems) != 2 || n.elems[0].kind != '$' || len(n.elems[1].elems)%2 != 0 {
			t.Fatalf("HSCAN %s %s: %+v is not a cursor and pairs", key, cursor, n)
		}
		cursor = n.elems[0].text
		kv := n.elems[1].strs()
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] != "v"+kv[i] {
				t.Fatalf("HSCAN: field %q with %q", kv[i], kv[i+1])
			}
			seen[kv[i]]++
		}
		if cursor == "0" {
			return seen, calls
		}
		if calls > 100_000 {
			t.Fatalf("HSCAN did not end")
		}
		if between != nil {
			between(calls)
		}
	}
}

// TestRESPHScan: a small hash in one call whatever COUNT; a large one in
// steps of COUNT places, each field once when nothing changes; MATCH;
// the errors in Redis's order.
func TestRESPHScan(t *testing.T) {
	resetData(t)
	for i := range 100 {
		respRun(t, "HSET", "small", fmt.Sprint("f", i), fmt.Sprint("vf", i))
	}
	for i := range 1000 {
		respRun(t, "HSET", "big", fmt.Sprint("f", i), fmt.Sprint("vf", i))
	}
	seen, calls := hscanAll(t, resp.RESP2, "small", nil, "COUNT", "1")
	if len(seen) != 100 || calls != 1 {
		t.Errorf("HSCAN small: %d fields in %d calls, want 100 in 1", len(seen), calls)
	}
	for _, ver := range []int{resp.RESP2, resp.RESP3} {
		seen, calls = hscanAll(t, ver, "big", nil, "COUNT", "7")
		if len(seen) != 1000 || calls != 143 {
			t.Errorf("RESP%d HSCAN big COUNT 7: %d fields in %d calls, want 1000 in 143", ver, len(seen), calls)
		}
		for f, n := range seen {
			if n != 1 {
				t.Errorf("HSCAN big: %q seen %d times, nothing changing", f, n)
			}
		}
	}
	seen, _ = hscanAll(t, resp.RESP2, "big", nil, "MATCH", "f1?", "COUNT", "100")
	if len(seen) != 10 || seen["f15"] != 1 {
		t.Errorf("HSCAN big MATCH f1?: %v, want f10 to f19", seen)
	}
	respSteps(t,
		"HSCAN nokey 0 => *2|$1|0|*0|",
		"HSCAN nokey 0 COUNT x => *2|$1|0|*0|",
		"HSCAN nokey x => -ERR invalid cursor|",
		"HSCAN small 18446744073709551616 => -ERR invalid cursor|",
		"HSCAN small 0 COUNT 0 => -ERR syntax error|",
		"HSCAN small 0 COUNT -1 => -ERR syntax error|",
		"HSCAN small 0 COUNT x => -ERR value is not an integer or out of range|",
		"HSCAN small 0 MATCH => -ERR syntax error|",
		"HSCAN small 0 TYPE hash => -ERR syntax error|",
		"HSCAN small 0 NOVALUES => -ERR syntax error|",
		"SET s v => +OK|",
		"HSCAN s 0 => "+wrongType,
		"HSCAN s x => -ERR invalid cursor|",
		"HSCAN s 0 COUNT x => "+wrongType,
	)
}

// TestRESPHScanThroughChanges: the server's HSCAN keeps Redis's promise
// while the hash grows through several resizes of its table and shrinks
// again between calls: a field present from the first call to the last
// is returned at least once, and no field is returned that was not there.
func TestRESPHScanThroughChanges(t *testing.T) {
	resetData(t)
	for i := range 300 {
		respRun(t, "HSET", "h", fmt.Sprint("keep", i), fmt.Sprint("vkeep", i))
	}
	added := 0
	seen, calls := hscanAll(t, resp.RESP2, "h", func(call int) {
		for range 40 { // the hash goes past 2,000 fields
			respRun(t, "HSET", "h", fmt.Sprint("new", added), fmt.Sprint("vnew", added))
			added++
		}
		for i := range 30 {
			respRun(t, "HDEL", "h", fmt.Sprint("new", (call*37+i*11)%max(1, added)))
		}
	}, "COUNT", "5")
	for i := range 300 {
		if seen[fmt.Sprint("keep", i)] == 0 {
			t.Errorf("keep%d, present throughout, never returned in %d calls", i, calls)
		}
	}
	for f := range seen {
		if !strings.HasPrefix(f, "keep") && !strings.HasPrefix(f, "new") {
			t.Errorf("HSCAN returned %q, never stored", f)
		}
	}
	t.Logf("%d calls, %d fields added, %d distinct returned", calls, added, len(seen))
}

// TestRESPHScanWork: one HSCAN's work is bounded by its COUNT (and the
// largest COUNT), not by the hash's size.
func TestRESPHScanWork(t *testing.T) {
	resetData(t)
	args := []string{"HSET", "h"}
	for i := range 50_000 {
		args = append(args, strconv.Itoa(i), "v")
	}
	respRun(t, args...)
	for _, c := range []struct {
		count string
		most  int
	}{{"10", 10 * kHashSmall}, {"1000", 10 * 1000}, {"100000000", kScanMaxWork + 4*kScanMaxCount}} {
		before := workDone
		n, _ := parseReply(t, respRun(t, "HSCAN", "h", "0", "COUNT", c.count))
		w := workDone - before
		t.Logf("HSCAN COUNT %s: %d fields, %d units of work", c.count, len(n.elems[1].elems)/2, w)
		if w > c.most {
			t.Errorf("HSCAN COUNT %s: %d units of work, want at most %d", c.count, w, c.most)
		}
	}
}

// TestRESPHIncrByFloatWork: a number of thousands of digits is charged by
// the square of its length, as reading and writing it costs, not by its
// bytes alone.
func TestRESPHIncrByFloatWork(t *testing.T) {
	resetData(t)
	long := strings.Repeat("1", 4900) // within a long double's range
	before := workDone
	respRun(t, "HINCRBYFLOAT", "h", "f", long)
	first := workDone - before
	before = workDone
	respRun(t, "HINCRBYFLOAT", "h", "f", "1")
	second := workDone - before
	t.Logf("HINCRBYFLOAT of 4,900 digits: %d units; of 1 to a value of 4,900 digits: %d units", first, second)
	if want := longDoubleWork(4900) + longDoubleWork(4900); first < want {
		t.Errorf("HINCRBYFLOAT of 4,900 digits charged %d units, want at least %d", first, want)
	}
	if want := 2 * longDoubleWork(4900); second < want {
		t.Errorf("HINCRBYFLOAT on a value of 4,900 digits charged %d units, want at least %d", second, want)
	}
}
