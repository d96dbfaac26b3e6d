package proto

import (
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// socketPair returns two connected stream sockets, closed when the test ends.
func socketPair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func header(n uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, n)
}

func TestRoundTrip(t *testing.T) {
	for _, body := range [][]byte{{}, []byte("hello1"), make([]byte, KMaxMsg)} {
		a, b := socketPair(t)
		if err := WriteMsg(a, body); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMsg(b, make([]byte, KMaxMsg))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(body, got); diff != "" {
			t.Errorf("body of %d bytes changed in transit (-sent +received):\n%s", len(body), diff)
		}
	}
}

func TestWriteMsgRefusesOversizedBody(t *testing.T) {
	a, _ := socketPair(t)
	if err := WriteMsg(a, make([]byte, KMaxMsg+1)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("WriteMsg(%d bytes) = %v, want ErrTooLong", KMaxMsg+1, err)
	}
}

// TestReadMsgErrors sends raw bytes, closes the sending side and checks
// how ReadMsg reports what it got.
func TestReadMsgErrors(t *testing.T) {
	tests := []struct {
		name string
		sent []byte
		want error
	}{
		{"nothing", nil, io.EOF},
		{"half a header", []byte{5, 0}, io.ErrUnexpectedEOF},
		{"truncated body", append(header(10), "abc"...), io.ErrUnexpectedEOF},
		{"header only", header(3), io.ErrUnexpectedEOF},
		{"length above k_max_msg", header(KMaxMsg + 1), ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := socketPair(t)
			if _, err := unix.Write(a, tt.sent); err != nil {
				t.Fatal(err)
			}
			unix.Shutdown(a, unix.SHUT_WR)
			_, err := ReadMsg(b, make([]byte, KMaxMsg))
			if !errors.Is(err, tt.want) {
				t.Fatalf("ReadMsg = %v, want %v", err, tt.want)
			}
		})
	}
}
