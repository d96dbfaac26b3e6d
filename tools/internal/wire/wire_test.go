package wire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// le32 spells out a little-endian u32, to build expected bytes by hand.
func le32(n uint32) []byte { return []byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)} }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestAppendRequest(t *testing.T) {
	got, err := AppendRequest([]byte("prefix"), "set", "k", "")
	if err != nil {
		t.Fatal(err)
	}
	// body: nstr=3, then "set", "k", "" each behind its length
	body := cat(le32(3), le32(3), []byte("set"), le32(1), []byte("k"), le32(0))
	want := cat([]byte("prefix"), le32(uint32(len(body))), body)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AppendRequest (-want +got):\n%s", diff)
	}

	// []byte arguments encode the same as strings.
	got2, err := AppendRequest(nil, []byte("set"), []byte("k"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[len("prefix"):], got2); diff != "" {
		t.Errorf("AppendRequest([]byte) (-want +got):\n%s", diff)
	}

	// Round trip through the server-side parser.
	args, err := ParseRequest(got2[4:])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"set", "k", ""}, args); diff != "" {
		t.Errorf("ParseRequest (-want +got):\n%s", diff)
	}
}

func TestAppendRequestLimits(t *testing.T) {
	// The largest single argument that fits: 4 (nstr) + 4 (len) + x = MaxMsg.
	fits := strings.Repeat("v", MaxMsg-8)
	if _, err := AppendRequest(nil, fits); err != nil {
		t.Errorf("request of exactly MaxMsg bytes refused: %v", err)
	}
	dst := []byte("keep")
	out, err := AppendRequest(dst, fits+"v")
	if !errors.Is(err, ErrTooBig) {
		t.Errorf("oversized request: err = %v, want ErrTooBig", err)
	}
	if string(out) != "keep" {
		t.Errorf("oversized request changed dst to %q", out)
	}
	if _, err := AppendRequest(nil, make([]string, MaxArgs+1)...); !errors.Is(err, ErrTooMany) {
		t.Errorf("too many args: err = %v, want ErrTooMany", err)
	}
}

func TestParseRequestMalformed(t *testing.T) {
	cases := map[string][]byte{
		"empty":           nil,
		"short nstr":      {1, 0},
		"missing string":  le32(1),
		"short len":       cat(le32(1), []byte{3, 0}),
		"string past end": cat(le32(1), le32(5), []byte("abc")),
		"trailing":        cat(le32(1), le32(1), []byte("ab")),
		"too many args":   le32(MaxArgs + 1),
	}
	for name, body := range cases {
		if args, err := ParseRequest(body); err == nil {
			t.Errorf("%s: ParseRequest(%v) = %q, want an error", name, body, args)
		}
	}
}

func TestDecodeEveryType(t *testing.T) {
	f64 := math.Float64bits(-2.5)
	cases := []struct {
		name string
		in   []byte
		want Value
	}{
		{"nil", []byte{0}, Value{Tag: TagNil}},
		{"err", cat([]byte{1}, le32(uint32(0xffffffff)), le32(11), []byte("Unknown cmd")),
			Value{Tag: TagErr, Code: -1, Str: []byte("Unknown cmd")}},
		{"str", cat([]byte{2}, le32(3), []byte("abc")), Value{Tag: TagStr, Str: []byte("abc")}},
		{"empty str", cat([]byte{2}, le32(0)), Value{Tag: TagStr, Str: []byte{}}},
		{"int", []byte{3, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, Value{Tag: TagInt, Int: -2}},
		{"dbl", cat([]byte{4}, le32(uint32(f64)), le32(uint32(f64>>32))), Value{Tag: TagDbl, Dbl: -2.5}},
		{"empty arr", cat([]byte{5}, le32(0)), Value{Tag: TagArr, Arr: []Value{}}},
		{"nested arr", cat([]byte{5}, le32(3),
			[]byte{0},
			cat([]byte{5}, le32(2), cat([]byte{2}, le32(1), []byte("x")), []byte{3, 7, 0, 0, 0, 0, 0, 0, 0}),
			cat([]byte{5}, le32(0))),
			Value{Tag: TagArr, Arr: []Value{
				{Tag: TagNil},
				{Tag: TagArr, Arr: []Value{{Tag: TagStr, Str: []byte("x")}, {Tag: TagInt, Int: 7}}},
				{Tag: TagArr, Arr: []Value{}},
			}}},
	}
	for _, c := range cases {
		got, err := DecodeReply(c.in)
		if err != nil {
			t.Errorf("%s: DecodeReply: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
		// Re-encoding reproduces the input exactly.
		if diff := cmp.Diff(c.in, AppendValue(nil, got)); diff != "" {
			t.Errorf("%s: re-encoded (-want +got):\n%s", c.name, diff)
		}
		// Every strict prefix is truncated, and must say so.
		for i := range len(c.in) {
			if _, _, err := Decode(c.in[:i]); !errors.Is(err, ErrTruncated) {
				t.Errorf("%s: Decode of %d-byte prefix: err = %v, want ErrTruncated", c.name, i, err)
			}
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	deep := bytes.Repeat(cat([]byte{5}, le32(1)), MaxDepth+1)
	deep = append(deep, 0)
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"unknown tag", []byte{6}, ErrBadTag},
		{"chapter 09 tag numbering is not dbl", []byte{4, 1}, ErrTruncated},
		{"str length past end", cat([]byte{2}, le32(10), []byte("abc")), ErrTruncated},
		{"str length huge", cat([]byte{2}, le32(0xffffffff)), ErrTruncated},
		{"err message past end", cat([]byte{1}, le32(1), le32(5), []byte("ab")), ErrTruncated},
		{"arr count huge", cat([]byte{5}, le32(0xffffffff), []byte{0, 0}), ErrTruncated},
		{"arr element missing", cat([]byte{5}, le32(2), []byte{0}), ErrTruncated},
		{"arr bad element", cat([]byte{5}, le32(2), []byte{0, 9}), ErrBadTag},
		{"trailing bytes", []byte{0, 0}, ErrTrailing},
		{"too deep", deep, ErrTooDeep},
	}
	for _, c := range cases {
		v, err := DecodeReply(c.in)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: DecodeReply = %v, %v; want error %v", c.name, v, err, c.want)
		}
	}
	// Nesting right at the limit is still accepted.
	ok := bytes.Repeat(cat([]byte{5}, le32(1)), MaxDepth)
	ok = append(ok, 0)
	if _, err := DecodeReply(ok); err != nil {
		t.Errorf("nesting of depth %d refused: %v", MaxDepth, err)
	}
}

func TestDecodePrefix(t *testing.T) {
	in := cat([]byte{3, 1, 0, 0, 0, 0, 0, 0, 0}, []byte{0})
	v, n, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	if n != 9 || v.Tag != TagInt || v.Int != 1 {
		t.Errorf("Decode = %v, %d; want (int) 1, 9", v, n)
	}
}

func TestReadFrame(t *testing.T) {
	var stream []byte
	stream = AppendFrame(stream, AppendStr(nil, "hello"))
	stream = AppendFrame(stream, nil)
	r := bytes.NewReader(stream)
	buf := make([]byte, MaxMsg)
	body, err := ReadFrame(r, buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(AppendStr(nil, "hello"), body); diff != "" {
		t.Errorf("first frame (-want +got):\n%s", diff)
	}
	if body, err = ReadFrame(r, buf); err != nil || len(body) != 0 {
		t.Errorf("empty frame = %v, %v", body, err)
	}
	if _, err = ReadFrame(r, buf); err != io.EOF {
		t.Errorf("at end of stream: err = %v, want io.EOF", err)
	}

	if _, err := ReadFrame(bytes.NewReader(le32(MaxMsg+1)), buf); !errors.Is(err, ErrTooBig) {
		t.Errorf("oversized frame: err = %v, want ErrTooBig", err)
	}
	if _, err := ReadFrame(bytes.NewReader(cat(le32(4), []byte("ab"))), buf); err != io.ErrUnexpectedEOF {
		t.Errorf("short body: err = %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := ReadFrame(bytes.NewReader([]byte{1, 0}), buf); err != io.ErrUnexpectedEOF {
		t.Errorf("short header: err = %v, want io.ErrUnexpectedEOF", err)
	}
}

// FuzzDecode checks that Decode never panics, never claims more bytes than
// it was given, and that whatever it accepts re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0})
	f.Add(AppendErr(nil, 1, "Unknown cmd"))
	f.Add(AppendArr(AppendStr(AppendArr(nil, 2), "a"), 0))
	f.Fuzz(func(t *testing.T, in []byte) {
		v, n, err := Decode(in)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if n < 1 || n > len(in) {
			t.Fatalf("n = %d for %d bytes of input", n, len(in))
		}
		if got := AppendValue(nil, v); !bytes.Equal(got, in[:n]) {
			t.Fatalf("re-encoded %x, decoded from %x", got, in[:n])
		}
	})
}

// TestTags09: under chapter 09's numbering 4 is an array and 5 is no tag,
// and encoding writes the same bytes back.
func TestTags09(t *testing.T) {
	in := []byte{4, 1, 0, 0, 0, 3, 7, 0, 0, 0, 0, 0, 0, 0}
	v, n, err := Tags09.Decode(in)
	if err != nil || n != len(in) || v.Tag != TagArr || len(v.Arr) != 1 || v.Arr[0].Int != 7 {
		t.Fatalf("Tags09.Decode = %v, %d, %v", v, n, err)
	}
	if got := Tags09.AppendValue(nil, v); string(got) != string(in) {
		t.Fatalf("Tags09.AppendValue = %x, want %x", got, in)
	}
	if _, _, err := Tags09.Decode([]byte{5, 0, 0, 0, 0}); !errors.Is(err, ErrBadTag) {
		t.Fatalf("tag 5 under Tags09: %v, want ErrBadTag", err)
	}
	if v, _, err := Decode(in); err != nil || v.Tag != TagDbl {
		t.Fatalf("the same bytes under Tags11 = %v, %v; want a double", v, err)
	}
}
