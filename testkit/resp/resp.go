// Package resp speaks Redis's protocol for the tools and the chapters'
// tests: commands as arrays of bulk strings, and the replies to them.
// ReadReply decodes the RESP2 replies the load tools need, so that
// tools/loadgen drives a real Redis with exactly the requests it sends to
// the chapter servers; ReadRaw reads any whole reply of RESP2 or RESP3 as
// bytes, for the conformance runner and the chapters' comparisons with
// redis-server.
package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxBulk bounds the bulk strings ReadReply accepts, so a broken peer cannot
// make a reader allocate without limit.
const MaxBulk = 1 << 20

// AppendCommand appends one command: an array of bulk strings.
func AppendCommand[S ~string | ~[]byte](dst []byte, args ...S) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, "\r\n"...)
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, "\r\n"...)
		dst = append(dst, a...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// Kind is the type byte of a reply.
type Kind byte

// The reply types a command of the load tools can get.
const (
	Simple Kind = '+' // a status line such as OK
	Error  Kind = '-' // an error line
	Int    Kind = ':' // an integer
	Bulk   Kind = '$' // a bulk string, or the null bulk string
	Array  Kind = '*' // not expected by the tools; only its length is read
)

// Reply is one decoded reply. Str is the line of a Simple or Error reply,
// or the bytes of a Bulk one; it aliases the reader's buffer or the scratch
// slice passed to ReadReply, so it is valid until the next call.
type Reply struct {
	Kind Kind
	Null bool  // the null bulk string ($-1)
	Int  int64 // an Int reply, or an Array's length
	Str  []byte
}

func (r Reply) String() string {
	switch {
	case r.Null:
		return "(nil)"
	case r.Kind == Int:
		return "(integer) " + strconv.FormatInt(r.Int, 10)
	case r.Kind == Error:
		return "(error) " + string(r.Str)
	case r.Kind == Array:
		return fmt.Sprintf("(array of %d)", r.Int)
	}
	return strconv.Quote(string(r.Str))
}

// ErrProtocol is wrapped by every error about malformed input.
var ErrProtocol = errors.New("resp: protocol error")

// readLine returns the next line without its \r\n. It aliases r's buffer.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line too long", ErrProtocol)
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line not ended by CRLF", ErrProtocol)
	}
	return line[:len(line)-2], nil
}

// parseInt parses a decimal integer line strictly (no sign other than a
// leading minus, no spaces).
func parseInt(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || len(b) == 0 || b[0] == '+' {
		return 0, fmt.Errorf("%w: bad integer %q", ErrProtocol, b)
	}
	return n, nil
}

// ReadReply reads one reply. A bulk string is copied into scratch (grown
// if needed), so the result stays valid after further reads from r until
// scratch is reused. Arrays are not expected from the commands the tools
// send: their header is returned and their elements are left unread.
func ReadReply(r *bufio.Reader, scratch []byte) (Reply, error) {
	line, err := readLine(r)
	if err != nil {
		return Reply{}, err
	}
	if len(line) == 0 {
		return Reply{}, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	rep := Reply{Kind: Kind(line[0])}
	switch rep.Kind {
	case Simple, Error:
		rep.Str = append(scratch[:0], line[1:]...)
	case Int, Array:
		if rep.Int, err = parseInt(line[1:]); err != nil {
			return Reply{}, err
		}
	case Bulk:
		n, err := parseInt(line[1:])
		if err != nil {
			return Reply{}, err
		}
		if n == -1 {
			rep.Null = true
			return rep, nil
		}
		if n < 0 || n > MaxBulk {
			return Reply{}, fmt.Errorf("%w: bulk length %d", ErrProtocol, n)
		}
		buf := scratch[:0]
		if cap(buf) < int(n)+2 {
			buf = make([]byte, 0, n+2)
		}
		buf = buf[:n+2]
		if _, err := io.ReadFull(r, buf); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Reply{}, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return Reply{}, fmt.Errorf("%w: bulk string not ended by CRLF", ErrProtocol)
		}
		rep.Str = buf[:n]
	default:
		return Reply{}, fmt.Errorf("%w: unknown reply type %q", ErrProtocol, line[0])
	}
	return rep, nil
}
