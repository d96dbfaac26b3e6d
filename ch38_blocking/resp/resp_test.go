package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func strs(args [][]byte) []string {
	out := []string{}
	for _, a := range args {
		out = append(out, string(a))
	}
	return out
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		n    int
	}{
		{"*1\r\n$4\r\nPING\r\n", []string{"PING"}, 14},
		{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n*1", []string{"SET", "k", ""}, 26},
		{"*2\r\n$3\r\nGET\r\n$4\r\na\r\nb\r\n", []string{"GET", "a\r\nb"}, 23},
		{"*0\r\n", []string{}, 4},
		{"*-1\r\n", []string{}, 5},
		{"PING\r\n", []string{"PING"}, 6},
		{"set k v\n", []string{"set", "k", "v"}, 8},
		{"  get \t k  \r\nnext", []string{"get", "k"}, 13},
		{"\r\n", []string{}, 2},
		{`set k "a b\x41\n\"" ` + "\r\n", []string{"set", "k", "a bA\n\""}, 22},
		{`set 'it\'s' x` + "\n", []string{"set", "it's", "x"}, 14},
		{`set a"b c"d` + "\n", nil, 0}, // closing quote must end the argument
	}
	for _, tt := range tests {
		args, n, err := ParseRequest([]byte(tt.in), nil)
		if tt.want == nil {
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("ParseRequest(%q): err %v, want a protocol error", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRequest(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, strs(args)); diff != "" || n != tt.n {
			t.Errorf("ParseRequest(%q): n=%d want %d, args (-want +got):\n%s", tt.in, n, tt.n, diff)
		}
	}
}

func TestParseRequestIncomplete(t *testing.T) {
	for _, in := range []string{"", "*", "*2\r", "*2\r\n$3\r\nGET\r\n", "*2\r\n$3\r\nGET\r\n$1\r\nk", "*1\r\n$1\r\nk\r", "PING"} {
		if _, _, err := ParseRequest([]byte(in), nil); err != ErrIncomplete {
			t.Errorf("ParseRequest(%q): err %v, want ErrIncomplete", in, err)
		}
	}
	// How long the input must grow before the request can be whole: past
	// a bulk string's announced end, or else by a byte.
	for _, tt := range []struct {
		in   string
		need int
	}{
		{"", 1},
		{"*2\r", 4},
		{"*2\r\n$3\r\nGET\r\n", 14},
		{"*2\r\n$3\r\nGET\r\n$100000\r\nab", 13 + 9 + 100000 + 2},
		{"PING", 5},
	} {
		if _, need, err := ParseRequest([]byte(tt.in), nil); err != ErrIncomplete || need != tt.need {
			t.Errorf("ParseRequest(%q): needs %d, %v; want %d", tt.in, need, err, tt.need)
		}
	}
}

func TestParseRequestErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"*x\r\n", "Protocol error: invalid multibulk length"},
		{"*2\n", "Protocol error: invalid multibulk length"},
		{"*2147483648\r\n", "Protocol error: invalid multibulk length"}, // past a C int, as Redis
		{"*9999999999999999999\r\n", "Protocol error: invalid multibulk length"},
		{"*1\r\n+PING\r\n", "Protocol error: expected '$', got '+'"},
		{"*1\r\n\x01", `Protocol error: expected '$', got '\x01'`},
		{"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
		{"*1\r\n$536870913\r\n", "Protocol error: invalid bulk length"}, // 512 MB and one byte: past proto-max-bulk-len
		{"*1\r\n$1\r\nab\r\n", "Protocol error: expected CRLF after a bulk string"},
		{"set \"k\n", "Protocol error: unbalanced quotes in request"},
		{strings.Repeat("a", MaxInline+1), "Protocol error: too big inline request"},
		{"*1" + strings.Repeat("0", MaxInline), "Protocol error: too big multibulk count string"},
	}
	for _, tt := range tests {
		_, _, err := ParseRequest([]byte(tt.in), nil)
		if err == nil || err.Error() != tt.msg {
			t.Errorf("ParseRequest(%.40q): err %v, want %q", tt.in, err, tt.msg)
		}
	}
}

// TestParseRequestAliases: array arguments are slices of the input itself,
// capped at their own ends, and a reused array costs no allocation.
// TestParseRequestRedisSizes: what Redis 7.0 takes, this parser takes: a
// bulk string of 512 MB announced (still incomplete, it asks for all of
// it), 1 MB whole, an array of 2^31-1 elements announced, 20,003
// arguments whole (an MSET of 10,001 pairs), and an inline line of 64 KiB.
func TestParseRequestRedisSizes(t *testing.T) {
	hdr := "*1\r\n$536870912\r\n"
	if _, need, err := ParseRequest([]byte(hdr), nil); err != ErrIncomplete || need != len(hdr)+536870912+2 {
		t.Errorf("a bulk string of 512 MB announced: need %d, %v", need, err)
	}
	if _, _, err := ParseRequest([]byte("*2147483647\r\n"), nil); err != ErrIncomplete {
		t.Errorf("an array of 2^31-1 elements announced: %v", err)
	}
	big := strings.Repeat("v", 1<<20)
	if got, _, err := ParseRequest(AppendRequest(nil, "SET", "k", big), nil); err != nil || len(got) != 3 || string(got[2]) != big {
		t.Errorf("SET of 1 MB: %d args, %v", len(got), err)
	}
	mset := []string{"MSET"}
	for i := range 10_001 {
		mset = append(mset, "k"+strconv.Itoa(i), "v")
	}
	if got, _, err := ParseRequest(AppendRequest(nil, mset...), nil); err != nil || len(got) != len(mset) {
		t.Errorf("MSET of 10,001 pairs: %d args, %v", len(got), err)
	}
	line := "ECHO " + strings.Repeat("x", MaxInline-7) + "\r\n"
	if got, _, err := ParseRequest([]byte(line), nil); err != nil || len(got) != 2 {
		t.Errorf("an inline line of 64 KiB: %d args, %v", len(got), err)
	}
}

func TestParseRequestAliases(t *testing.T) {
	data := AppendRequest(nil, "set", "key", "value")
	args, _, err := ParseRequest(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if &args[1][0] != &data[bytes.Index(data, []byte("key"))] || cap(args[1]) != 3 {
		t.Fatalf("args[1] is not the slice of the input holding it")
	}
	allocs := testing.AllocsPerRun(100, func() {
		args, _, _ = ParseRequest(data, args)
	})
	if allocs != 0 {
		t.Fatalf("ParseRequest with a reused array: %v allocations, want 0", allocs)
	}
}

func TestAppend(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{string(AppendSimple(nil, "OK")), "+OK\r\n"},
		{string(AppendError(nil, "ERR bad\r\nthing")), "-ERR bad  thing\r\n"},
		{string(AppendInt(nil, -42)), ":-42\r\n"},
		{string(AppendBulk(nil, "a\r\nb")), "$4\r\na\r\nb\r\n"},
		{string(AppendBulk(nil, []byte{})), "$0\r\n\r\n"},
		{string(AppendNull(nil, RESP2)), "$-1\r\n"},
		{string(AppendNull(nil, RESP3)), "_\r\n"},
		{string(AppendArray(nil, 3)), "*3\r\n"},
		{string(AppendMap(nil, 2, RESP2)), "*4\r\n"},
		{string(AppendMap(nil, 2, RESP3)), "%2\r\n"},
		{string(AppendDouble(nil, 1.5, RESP2)), "$3\r\n1.5\r\n"},
		{string(AppendDouble(nil, 1.5, RESP3)), ",1.5\r\n"},
		{string(AppendDouble(nil, 1e8, RESP3)), ",100000000\r\n"},
		{string(AppendDouble(nil, 1e21, RESP3)), ",1e+21\r\n"},
		{string(AppendDouble(nil, -0.1, RESP3)), ",-0.10000000000000001\r\n"}, // %.17g, as Redis 7.0
		{string(AppendDouble(nil, math.Inf(-1), RESP2)), "$4\r\n-inf\r\n"},
		{string(AppendRequest(nil, "GET", "k")), "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// FuzzParseRESP: whatever the bytes, ParseRequest must not panic; a
// request it accepts must stay within the limits, must re-encode to a
// request that parses to the same arguments, and every shorter prefix of
// it must be reported incomplete, never parsed as something else (the
// server parses requests from partial reads).
func FuzzParseRESP(f *testing.F) {
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"))
	f.Add([]byte("set k \"a\\x41b\"\r\n"))
	f.Add([]byte("*1\r\n$-1\r\n"))
	f.Add([]byte("PING\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPieces(t, data)
		args, n, err := ParseRequest(data, nil)
		if err != nil {
			var pe *ProtocolError
			if err != ErrIncomplete && !errors.As(err, &pe) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		if n <= 0 || n > len(data) {
			t.Fatalf("consumed %d of %d bytes", n, len(data))
		}
		if len(args) > MaxArgs {
			t.Fatalf("accepted %d arguments, above the limit", len(args))
		}
		again, m, err := ParseRequest(AppendRequest(nil, args...), nil)
		if err != nil && len(args) > 0 {
			t.Fatalf("re-encoded %q does not parse: %v", strs(args), err)
		}
		if err == nil && (!cmp.Equal(strs(args), strs(again)) || m == 0) {
			t.Fatalf("%q parsed as %q, re-encoded as %q", data[:n], strs(args), strs(again))
		}
		for i := 0; i < n; i++ {
			_, need, err := ParseRequest(data[:i], nil)
			if err != ErrIncomplete {
				t.Fatalf("prefix %q of %q: err %v, want ErrIncomplete", data[:i], data[:n], err)
			}
			// The bytes it says it needs at least: more than it has, no
			// more than the whole request.
			if need <= i || need > n {
				t.Fatalf("prefix %q of %q (%d bytes): needs %d bytes, want %d < need <= %d", data[:i], data[:n], n, need, i, n)
			}
		}
	})
}

// checkPieces feeds data to ParseRequestFrom a byte more at a time, with
// one Progress, as a connection reading it in pieces would, first with no
// room for the arguments (a check) and then, once it is whole, with room
// for exactly its count: up to the first prefix that is not incomplete,
// every answer must be ParseRequest's on the same prefix, and the check
// must have built nothing.
func checkPieces(t *testing.T, data []byte) {
	t.Helper()
	var p Progress
	for i := 0; i <= min(len(data), 4096); i++ {
		args, n, argc, err := ParseRequestFrom(data[:i], nil, &p)
		wantArgs, wantN, wantErr := ParseRequest(data[:i], nil)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || n != wantN || len(args) != 0 || err == nil && argc != len(wantArgs) {
			t.Fatalf("prefix %q in pieces: %d args built, %d counted, %d, %v; whole: %q, %d, %v", data[:i], len(args), argc, n, err, strs(wantArgs), wantN, wantErr)
		}
		if err != ErrIncomplete {
			if p != (Progress{}) {
				t.Fatalf("prefix %q: progress %+v left after %v", data[:i], p, err)
			}
			if err != nil {
				return
			}
			args, m, argc, err := ParseRequestFrom(data[:i], make([][]byte, 0, argc), &p)
			if err != nil || m != n || argc != len(args) || cap(args) != argc || !cmp.Equal(strs(args), strs(wantArgs)) {
				t.Fatalf("prefix %q with room for %d: %q (room for %d), %d, %v; want %q, %d", data[:i], argc, strs(args), cap(args), m, err, strs(wantArgs), n)
			}
			return
		}
	}
}

// TestParseRequestFromResumes: an array of many small arguments read in
// pieces is checked from where the last piece stopped, not from its start.
func TestParseRequestFromResumes(t *testing.T) {
	args := make([]string, 10_001)
	for i := range args {
		args[i] = "a"
	}
	data := AppendRequest(nil, args...)
	var p Progress
	for i := 1024; i < len(data); i += 1024 {
		if _, _, _, err := ParseRequestFrom(data[:i], nil, &p); err != ErrIncomplete {
			t.Fatalf("prefix of %d bytes: %v", i, err)
		}
		if done := int64(i-16) / 7; p.Done < done-1 {
			t.Fatalf("prefix of %d bytes: %d elements checked, want about %d", i, p.Done, done)
		}
	}
	got, n, argc, err := ParseRequestFrom(data, nil, &p)
	if err != nil || n != len(data) || len(got) != 0 || argc != len(args) || p != (Progress{}) {
		t.Fatalf("whole: %d args built, %d counted, %d of %d bytes, %v, progress %+v", len(got), argc, n, len(data), err, p)
	}
}

// TestParseRequestNoRoom: a request of more arguments than the array has
// room for is checked, not built: ParseRequestFrom returns its count and
// length and allocates nothing (an inline request's quoted arguments,
// copied as they are split, aside), whatever count a header announces;
// with room for that count it builds them in the array given.
func TestParseRequestNoRoom(t *testing.T) {
	reqs := [][]byte{
		AppendRequest(nil, "EXISTS", "", "", ""),
		[]byte("EXISTS a b c\r\n"),
	}
	for _, data := range reqs {
		small := make([][]byte, 0, 3)
		var args [][]byte
		var n, argc int
		var err error
		allocs := testing.AllocsPerRun(10, func() {
			args, n, argc, err = ParseRequestFrom(data, small, nil)
		})
		if allocs != 0 || err != nil || len(args) != 0 || argc != 4 || n != len(data) {
			t.Errorf("%q with room for 3: %d built, count %d, %d of %d bytes, %v, %v allocations", data, len(args), argc, n, len(data), err, allocs)
		}
		room := make([][]byte, 0, argc)
		if args, _, _, err = ParseRequestFrom(data, room, nil); err != nil || len(args) != 4 || &args[:1][0] != &room[:1][0] {
			t.Errorf("%q with room for 4: %q, %v", data, strs(args), err)
		}
	}
	// An announced count allocates nothing before the arguments are there.
	hdr := []byte("*2147483647\r\n$0\r\n\r\n")
	if allocs := testing.AllocsPerRun(10, func() { _, _, _, err := ParseRequestFrom(hdr, nil, nil); _ = err }); allocs != 0 {
		t.Errorf("an array of 2^31-1 arguments announced: %v allocations", allocs)
	}
	// ParseRequest gives a request of more arguments than its array has
	// room for an array of exactly their count.
	data := AppendRequest(nil, strings.Split(strings.Repeat("a,", 1000), ",")...)
	args, _, err := ParseRequest(data, make([][]byte, 0, 10))
	if err != nil || len(args) != 1001 || cap(args) != 1001 {
		t.Errorf("1001 arguments, an array of 10: %d arguments in an array of %d, %v", len(args), cap(args), err)
	}
}
