package proto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeReqLayout(t *testing.T) {
	// 2 strings: "get" and "k", each length-prefixed.
	want := []byte{2, 0, 0, 0, 3, 0, 0, 0, 'g', 'e', 't', 1, 0, 0, 0, 'k'}
	if diff := cmp.Diff(want, EncodeReq([]string{"get", "k"})); diff != "" {
		t.Errorf("EncodeReq layout (-want +got):\n%s", diff)
	}
}

func TestParseReqRoundTrip(t *testing.T) {
	for _, cmd := range [][]string{
		{},
		{"get", "k"},
		{"set", "k", "a value with spaces"},
		{"", "", ""},
		{"bin\x00ary", strings.Repeat("x", 3000)},
		make([]string, KMaxArgs),
	} {
		got, err := ParseReq(EncodeReq(cmd))
		if err != nil {
			t.Errorf("ParseReq(EncodeReq(%d strings)): %v", len(cmd), err)
			continue
		}
		if diff := cmp.Diff(cmd, got); diff != "" {
			t.Errorf("round trip changed the command (-want +got):\n%s", diff)
		}
	}
}

func le32(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }

// Lengths of 2^31 or more are here for 32-bit builds (GOARCH=386, arm),
// where such a length read as an int turns negative: it must still be
// refused, not passed on to a slice expression that panics. On a 64-bit
// machine these cases pass with or without that care; run them with
// GOARCH=386 to see it.
func TestParseReqErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty body", nil, ErrTruncated},
		{"short nstr", []byte{1, 0}, ErrTruncated},
		{"nstr above k_max_args", le32(KMaxArgs + 1), ErrTooManyArgs},
		{"nstr 2^31", le32(1 << 31), ErrTooManyArgs},
		{"nstr huge", le32(0xffffffff), ErrTooManyArgs},
		{"missing string", le32(1), ErrTruncated},
		{"short length", append(le32(1), 3, 0), ErrTruncated},
		{"length past the end", bytes.Join([][]byte{le32(1), le32(4), []byte("abc")}, nil), ErrTruncated},
		{"length 2^31", bytes.Join([][]byte{le32(1), le32(1 << 31), []byte("abc")}, nil), ErrTruncated},
		{"length near 2^32", bytes.Join([][]byte{le32(1), le32(0xfffffffc), []byte("abc")}, nil), ErrTruncated},
		{"length 2^32-1", bytes.Join([][]byte{le32(1), le32(0xffffffff), []byte("abc")}, nil), ErrTruncated},
		{"trailing bytes", bytes.Join([][]byte{le32(1), le32(1), []byte("ab")}, nil), ErrTrailing},
		{"trailing after zero strings", append(le32(0), 'x'), ErrTrailing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReq(tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ParseReq = %q, %v; want error %v", got, err, tt.want)
			}
		})
	}
}

// FuzzParseReq: whatever the bytes, ParseReq must not panic, and anything
// it accepts must encode back to exactly the same bytes (so it neither
// drops nor invents data).
func FuzzParseReq(f *testing.F) {
	f.Add(EncodeReq([]string{"set", "k", "v"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd, err := ParseReq(data)
		if err != nil {
			return
		}
		if len(cmd) > KMaxArgs {
			t.Fatalf("accepted %d strings, above the limit", len(cmd))
		}
		if again := EncodeReq(cmd); !bytes.Equal(again, data) {
			t.Fatalf("accepted %q as %q, which encodes to %q", data, cmd, again)
		}
	})
}

// TestSplitReqAliasesAndReuses: SplitReq returns slices of the body
// itself, capped at their own ends, and reusing its result allocates
// nothing.
func TestSplitReqAliasesAndReuses(t *testing.T) {
	data := EncodeReq([]string{"set", "key", "value"})
	args, err := SplitReq(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range args {
		got = append(got, string(a))
	}
	if diff := cmp.Diff([]string{"set", "key", "value"}, got); diff != "" {
		t.Fatalf("SplitReq (-want +got):\n%s", diff)
	}
	// "key" starts 4+4+3+4 bytes in: the slice must point there, not at a copy.
	if &args[1][0] != &data[15] {
		t.Errorf("args[1] does not alias the body")
	}
	if cap(args[1]) != len("key") {
		t.Errorf("cap(args[1]) = %d, want %d: an append would overwrite the next string", cap(args[1]), len("key"))
	}
	allocs := testing.AllocsPerRun(100, func() {
		args, err = SplitReq(data, args)
	})
	if err != nil || allocs != 0 {
		t.Errorf("SplitReq reusing its args: %v allocations, err %v; want 0, nil", allocs, err)
	}
}

// TestArg: Arg finds the string at an index of a well-formed request, and
// reports false past the last string or where the data ends too soon.
func TestArg(t *testing.T) {
	req := EncodeReq([]string{"set", "key", ""})
	tests := []struct {
		name string
		data []byte
		i    int
		want string
		ok   bool
	}{
		{"first", req, 0, "set", true},
		{"second", req, 1, "key", true},
		{"empty last", req, 2, "", true},
		{"past the count", req, 3, "", false},
		{"cut inside the string", req[:14], 1, "", false},
		{"cut inside a length", req[:10], 1, "", false},
		{"no count", req[:3], 0, "", false},
		{"count above the strings", append(le32(5), req[4:]...), 3, "", false},
		// A 32-bit build must refuse these too (see TestParseReqErrors).
		{"length 2^31", append(le32(1), le32(1<<31)...), 0, "", false},
		{"length 2^32-1", append(le32(1), le32(0xffffffff)...), 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Arg(tt.data, tt.i)
			if ok != tt.ok || string(got) != tt.want {
				t.Fatalf("Arg(%q, %d) = %q, %v; want %q, %v", tt.data, tt.i, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// FuzzArg: whatever the bytes, Arg must not panic, and on a request that
// SplitReq accepts it must find the same strings, and nothing past them.
func FuzzArg(f *testing.F) {
	f.Add(EncodeReq([]string{"get", "k"}), 1)
	f.Fuzz(func(t *testing.T, data []byte, i int) {
		i = max(0, i%8)
		got, ok := Arg(data, i)
		args, err := SplitReq(data, nil)
		if err != nil {
			return
		}
		if i < len(args) != ok || ok && !bytes.Equal(got, args[i]) {
			t.Fatalf("Arg(%q, %d) = %q, %v; SplitReq gives %q", data, i, got, ok, args)
		}
	})
}
