package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestAppendCommand(t *testing.T) {
	got := string(AppendCommand(nil, "SET", "key:000001", ""))
	want := "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$0\r\n\r\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadReply(t *testing.T) {
	in := "+OK\r\n$3\r\nxxx\r\n$-1\r\n:1\r\n:-2\r\n-ERR wrong\r\n*2\r\n$0\r\n\r\n"
	r := bufio.NewReader(strings.NewReader(in))
	want := []string{`"OK"`, `"xxx"`, "(nil)", "(integer) 1", "(integer) -2", "(error) ERR wrong", "(array of 2)", `""`}
	for i, w := range want {
		rep, err := ReadReply(r, nil)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if rep.String() != w {
			t.Errorf("reply %d: got %s, want %s", i, rep, w)
		}
	}
	if _, err := ReadReply(r, nil); err != io.EOF {
		t.Errorf("at the end: got %v, want EOF", err)
	}
}

func TestReadReplyMalformed(t *testing.T) {
	for _, in := range []string{
		"OK\r\n",         // no type byte
		"+OK\n",          // no CR
		"\r\n",           // empty
		":12a\r\n",       // not a number
		":+1\r\n",        // a plus sign
		"$-2\r\n",        // negative length
		"$2000000\r\n",   // over MaxBulk
		"$3\r\nxxxy\r\n", // bulk longer than said
		"$3\r\nxx",       // cut short
		"$x\r\n",         // bad length
	} {
		_, err := ReadReply(bufio.NewReader(strings.NewReader(in)), nil)
		if err == nil {
			t.Errorf("%q: no error", in)
		} else if !errors.Is(err, ErrProtocol) && err != io.ErrUnexpectedEOF {
			t.Errorf("%q: got %v, want a protocol error or unexpected EOF", in, err)
		}
	}
}

func TestReadReplyScratchReused(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("$3\r\nabc\r\n"))
	scratch := make([]byte, 0, 16)
	rep, err := ReadReply(r, scratch)
	if err != nil || string(rep.Str) != "abc" {
		t.Fatalf("got %v, %v", rep, err)
	}
	if &rep.Str[0] != &scratch[:1][0] {
		t.Error("a bulk string that fits was not read into scratch")
	}
}

func FuzzReadReply(f *testing.F) {
	f.Add("+OK\r\n")
	f.Add("$3\r\nxxx\r\n")
	f.Add(":-1\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := bufio.NewReader(strings.NewReader(in))
		for range 10 {
			if _, err := ReadReply(r, nil); err != nil {
				return
			}
		}
	})
}

func TestReadRaw(t *testing.T) {
	for _, in := range []string{
		"+OK\r\n", "-ERR x\r\n", ":-3\r\n", "$-1\r\n", "$0\r\n\r\n", "$5\r\na\r\nbc\r\n", "*-1\r\n", "_\r\n", ",1.5\r\n", "#t\r\n",
		"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", "%1\r\n+k\r\n,-inf\r\n", "~0\r\n", "|1\r\n+a\r\n+b\r\n:1\r\n", "=7\r\ntxt:abc\r\n",
	} {
		r := bufio.NewReader(strings.NewReader(in + "+next\r\n"))
		got, err := ReadRaw(r, nil, 1<<20)
		if err != nil || string(got) != in {
			t.Errorf("ReadRaw(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "*2\r\n:1\r\n", "$3\r\nab", "$3\r\nabcd\r\n", "?\r\n", "$99\r\n", "*x\r\n", "+no crlf\n"} {
		r := bufio.NewReader(strings.NewReader(in))
		if got, err := ReadRaw(r, nil, 10); err == nil {
			t.Errorf("ReadRaw(%q) = %q, want an error", in, got)
		}
	}
}

// TestReadRawSmallBuffer: the type of an aggregate must not be read again
// from the reader's buffer once reading its elements has refilled it.
// Here the 16-byte buffer holds exactly the lines up to "$5\r\n", so the
// bulk string's bytes refill it from its start with '|', the attribute
// type: read again, the array would take the next reply as one more
// element. (Redis's COMMAND reply, with names such as "config|get",
// did that now and then.)
func TestReadRawSmallBuffer(t *testing.T) {
	want := "*2\r\n+abcde\r\n$5\r\n|||||\r\n"
	r := bufio.NewReaderSize(strings.NewReader(want+"+next\r\n"), 16)
	got, err := ReadRaw(r, nil, 1<<20)
	if err != nil || string(got) != want {
		t.Fatalf("ReadRaw = %q, %v; want %q", got, err, want)
	}
	if rest, err := ReadRaw(r, nil, 10); err != nil || string(rest) != "+next\r\n" {
		t.Errorf("next reply %q, %v", rest, err)
	}
}

// FuzzReadRaw: whatever the bytes, ReadRaw does not panic, and what it
// returns is a prefix of them.
func FuzzReadRaw(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "*2\r\n$1\r\na\r\n%1\r\n:1\r\n_\r\n", "|1\r\n+a\r\n+b\r\n:1\r\n", "$-1\r\n", "*-1\r\n", "$3\r\nab"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(in), 16)
		got, _ := ReadRaw(r, nil, 1<<16)
		if !bytes.HasPrefix(in, got) {
			t.Fatalf("ReadRaw(%q) = %q, not a prefix", in, got)
		}
	})
}
