package client

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/proto"
)

func TestOnResponsePrints(t *testing.T) {
	nested := proto.OutArr(nil, 3)
	nested = proto.OutInt(nested, -7)
	nested = proto.OutArr(nested, 1)
	nested = proto.OutStr(nested, "inner")
	nested = proto.OutNil(nested)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"nil", proto.OutNil(nil), "(nil)\n"},
		{"err", proto.OutErr(nil, proto.CodeUnknown, "Unknown cmd"), "(err) 1 Unknown cmd\n"},
		{"str", proto.OutStr(nil, "v"), "(str) v\n"},
		{"empty str", proto.OutStr(nil, ""), "(str) \n"},
		{"int", proto.OutInt(nil, 1), "(int) 1\n"},
		{"dbl", proto.OutDbl(nil, 1.1), "(dbl) 1.1\n"},
		{"whole dbl", proto.OutDbl(nil, 2), "(dbl) 2\n"},
		{"empty arr", proto.OutArr(nil, 0), "(arr) len=0\n(arr) end\n"},
		{"nested arr", nested, "(arr) len=3\n(int) -7\n(arr) len=1\n(str) inner\n(arr) end\n(nil)\n(arr) end\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			n, err := onResponse(tt.data, &out)
			if err != nil || n != len(tt.data) {
				t.Fatalf("onResponse = %d, %v; want %d, nil", n, err, len(tt.data))
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormatG checks the float format against what C's printf("%g")
// prints for the same values.
func TestFormatG(t *testing.T) {
	for v, want := range map[float64]string{
		1.1:          "1.1",
		2:            "2",
		-0.5:         "-0.5",
		123456789:    "1.23457e+08",
		100000:       "100000",
		1e6:          "1e+06",
		0.0001:       "0.0001",
		0.00001:      "1e-05",
		1.0 / 3:      "0.333333",
		math.Inf(1):  "inf",
		math.Inf(-1): "-inf",
	} {
		if got := formatG(v); got != want {
			t.Errorf("formatG(%v) = %q, want %q", v, got, want)
		}
	}
}

// Lengths of 2^31 or more are here for 32-bit builds (GOARCH=386, arm),
// where such a length read as an int turns negative: it must still be
// refused, not passed on to a slice expression that panics. On a 64-bit
// machine these cases pass with or without that care; run them with
// GOARCH=386 to see it.
func TestOnResponseRejectsMalformed(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"unknown tag", []byte{9}},
		{"short err header", []byte{proto.SerErr, 1, 0, 0, 0, 3}},
		{"err message cut", []byte{proto.SerErr, 1, 0, 0, 0, 3, 0, 0, 0, 'a'}},
		{"err message length 2^31", []byte{proto.SerErr, 1, 0, 0, 0, 0, 0, 0, 0x80, 'a'}},
		{"err message length 2^32-1", []byte{proto.SerErr, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 'a'}},
		{"short str length", []byte{proto.SerStr, 1, 0}},
		{"str cut", []byte{proto.SerStr, 5, 0, 0, 0, 'a'}},
		{"str length 2^31", []byte{proto.SerStr, 0, 0, 0, 0x80, 'a'}},
		{"str length near 2^32", []byte{proto.SerStr, 0xff, 0xff, 0xff, 0xff, 'a'}},
		{"short int", []byte{proto.SerInt, 1, 2, 3}},
		{"short dbl", []byte{proto.SerDbl, 1, 2, 3}},
		{"short arr count", []byte{proto.SerArr, 1}},
		{"arr missing elements", proto.OutNil(proto.OutArr(nil, 2))},
		{"arr count near 2^32", proto.OutArr(nil, 0xffffffff)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := onResponse(tt.data, &bytes.Buffer{}); !errors.Is(err, errBadResponse) {
				t.Fatalf("onResponse(%x) = %v, want bad response", tt.data, err)
			}
		})
	}
}

// TestReadResTrailingBytes: a reply with bytes after its value is bad,
// even though the value itself decodes.
func TestReadResTrailingBytes(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	for _, tt := range []struct {
		body []byte
		want error
	}{
		{proto.OutNil(nil), nil},
		{append(proto.OutNil(nil), 0), errBadResponse},
	} {
		if err := proto.WriteMsg(fds[0], tt.body); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := readRes(fds[1], &out); !errors.Is(err, tt.want) {
			t.Errorf("readRes(%x) = %v, want %v", tt.body, err, tt.want)
		}
	}
}

// FuzzOnResponse: no input may crash the decoder or make it claim more
// bytes than it was given, and whatever it accepts it prints as at least
// one line per value.
func FuzzOnResponse(f *testing.F) {
	f.Add(proto.OutStr(proto.OutArr(nil, 1), "k"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		n, err := onResponse(data, &out)
		if err != nil {
			return
		}
		if n < 1 || n > len(data) {
			t.Fatalf("onResponse(%x) used %d bytes", data, n)
		}
		if !strings.HasSuffix(out.String(), "\n") {
			t.Fatalf("onResponse(%x) printed %q", data, out.String())
		}
	})
}
