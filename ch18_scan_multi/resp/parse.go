// Package resp is Redis's wire protocol, RESP: the requests clients send
// (arrays of bulk strings, or inline commands typed by hand) and the
// replies of RESP2 and RESP3.
//
// Unlike the book's protocol, which says how long a message is before the
// message, RESP marks where each line ends with CRLF: the parser looks for
// the end of every header line, and only the bulk strings inside carry a
// length.
package resp

import (
	"bytes"
	"errors"
)

// The limits on one request, Redis 7.0's. What a request as a whole may
// make the server hold is not the parser's to bound: the server counts
// the buffer a request arrives in within its budget of memory.
const (
	// MaxBulkLen is the longest bulk string accepted in a request: Redis's
	// proto-max-bulk-len, 512 MB.
	MaxBulkLen = 512 << 20
	// MaxArgs is the most arguments (command name included) in an array
	// request: Redis takes any count that fits in a C int.
	MaxArgs = 1<<31 - 1
	// MaxInline is the longest inline command line, as in Redis (64 KiB).
	// It also bounds each header line ("*3", "$5") of an array request.
	MaxInline = 64 << 10
)

// ErrIncomplete says the request at the front of the buffer is not all
// there yet: read more and parse again.
var ErrIncomplete = errors.New("incomplete request")

// ProtocolError is a request that cannot be parsed. Redis answers it with
// "-ERR Protocol error: ..." and closes the connection, since it can no
// longer tell where the next request starts.
type ProtocolError struct {
	Msg string
}

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

func protoErr(msg string) error { return &ProtocolError{Msg: msg} }

// ParseRequest parses the request at the front of data. It returns the
// arguments, appended to args[:0] so the caller can reuse the array, and
// the number of bytes the request took. The arguments of an array request
// are slices of data (the caller must not keep them past its buffer's
// next change); an inline request with quotes is unescaped into new
// memory. An empty request (a blank line, or an array of zero elements)
// returns no arguments and a positive count: skip it, as Redis does.
//
// The error is ErrIncomplete when more bytes are needed, or a
// *ProtocolError when the request is malformed or over a limit. With
// ErrIncomplete the count is how long data must be, at least, before the
// request can be whole: a bulk string's announced end, or one byte more.
// A caller reading the request in pieces need not parse it again before
// then (a 1 MB value arriving 16 KiB at a time would be parsed from its
// start 64 times).
func ParseRequest(data []byte, args [][]byte) ([][]byte, int, error) {
	return ParseRequestFrom(data, args, nil)
}

// Progress is how far ParseRequestFrom got into an array request that is
// not all there yet: the elements before Pos (Done of them) are whole and
// well formed. The zero Progress is the start of a request.
type Progress struct {
	Pos  int
	Done int64
}

// ParseRequestFrom is ParseRequest for a request read in pieces: with p,
// it checks an incomplete array request from where the last call on the
// same request stopped, rather than from its start (an array of thousands
// of small arguments, arriving 1 KiB at a time, would be walked from its
// start once for each piece), and records in p where this call stopped.
// Once the request is whole, or wrong, it is parsed from its start in one
// pass, so the result is ParseRequest's, and p is reset. The caller
// resets p (to Progress{}) when the request at the front of data changes
// otherwise.
func ParseRequestFrom(data []byte, args [][]byte, p *Progress) ([][]byte, int, error) {
	if p == nil {
		return parseRequest(data, args, nil)
	}
	if p.Done > 0 {
		if need, incomplete := checkFrom(data, p); incomplete {
			return args[:0], need, ErrIncomplete
		}
		// Whole, or wrong: parse it all, for its arguments or its error.
		*p = Progress{}
	}
	args, n, err := parseRequest(data, args, p)
	if err != ErrIncomplete {
		*p = Progress{}
	}
	return args, n, err
}

// parseRequest is ParseRequestFrom from the start of the request,
// recording in p, if not nil, how far it got.
func parseRequest(data []byte, args [][]byte, p *Progress) ([][]byte, int, error) {
	args = args[:0]
	if len(data) == 0 {
		return args, 1, ErrIncomplete
	}
	if data[0] != '*' {
		return parseInline(data, args)
	}
	count, pos, err := headerLine(data, 0, "multibulk count")
	if err == ErrIncomplete {
		return args, len(data) + 1, err
	}
	if err != nil {
		return args, 0, err
	}
	if count > MaxArgs {
		return args, 0, protoErr("invalid multibulk length")
	}
	for i := int64(0); i < count; i++ {
		if p != nil {
			p.Pos, p.Done = pos, i
		}
		if pos >= len(data) {
			return args, pos + 1, ErrIncomplete
		}
		if data[pos] != '$' {
			return args, 0, protoErr("expected '$', got '" + printable(data[pos]) + "'")
		}
		n, next, err := headerLine(data, pos, "bulk count")
		if err == ErrIncomplete {
			return args, len(data) + 1, err
		}
		if err != nil {
			return args, 0, err
		}
		if n < 0 || n > MaxBulkLen {
			return args, 0, protoErr("invalid bulk length")
		}
		end := next + int(n)
		if end+2 > len(data) {
			return args, end + 2, ErrIncomplete
		}
		if data[end] != '\r' || data[end+1] != '\n' {
			return args, 0, protoErr("expected CRLF after a bulk string")
		}
		args = append(args, data[next:end:end])
		pos = end + 2
	}
	return args, pos, nil
}

// checkFrom checks the array request at the front of data from the
// element at p.Pos on (p.Done elements come before it), updating p as it
// goes. If the request is still incomplete it reports so, with the length
// data needs, as ParseRequest would; if it is whole or wrong, the caller
// parses it from its start.
func checkFrom(data []byte, p *Progress) (need int, incomplete bool) {
	count, _, err := headerLine(data, 0, "multibulk count")
	if err != nil {
		return 0, false
	}
	for ; p.Done < count; p.Done++ {
		pos := p.Pos
		if pos >= len(data) {
			return pos + 1, true
		}
		if data[pos] != '$' {
			return 0, false
		}
		n, next, err := headerLine(data, pos, "bulk count")
		if err == ErrIncomplete {
			return len(data) + 1, true
		}
		if err != nil || n < 0 || n > MaxBulkLen {
			return 0, false
		}
		end := next + int(n)
		if end+2 > len(data) {
			return end + 2, true
		}
		if data[end] != '\r' || data[end+1] != '\n' {
			return 0, false
		}
		p.Pos = end + 2
	}
	return 0, false
}

// headerLine reads the line at data[pos:] made of one type byte and a
// decimal number ("*3", "$-1"), and returns the number and where the next
// line starts. Negative counts are returned as they are: an array of -1
// elements is an empty request, a bulk string of -1 bytes is an error.
func headerLine(data []byte, pos int, what string) (int64, int, error) {
	eol := bytes.IndexByte(data[pos:], '\n')
	if eol < 0 {
		if len(data)-pos > MaxInline {
			return 0, 0, protoErr("too big " + what + " string")
		}
		return 0, 0, ErrIncomplete
	}
	line := data[pos+1 : pos+eol]
	if len(line) == 0 || line[len(line)-1] != '\r' {
		return 0, 0, protoErr("invalid " + lengthWord(what))
	}
	n, ok := parseInt(line[:len(line)-1])
	if !ok {
		return 0, 0, protoErr("invalid " + lengthWord(what))
	}
	return n, pos + eol + 1, nil
}

// lengthWord names, as Redis's error texts do, the length a header gives.
func lengthWord(what string) string {
	if what == "multibulk count" {
		return "multibulk length"
	}
	return "bulk length"
}

// parseInt parses an optionally negative decimal number of at most 18
// digits (no overflow possible), with no sign-only or empty input.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// printable shows a byte in an error message as Redis does for printable
// characters, and as an escape otherwise so the reply stays one line.
func printable(c byte) string {
	if c >= ' ' && c <= '~' {
		return string(c)
	}
	const hex = "0123456789abcdef"
	return `\x` + string(hex[c>>4]) + string(hex[c&15])
}

// parseInline parses a command typed by hand: one line, arguments split on
// spaces and tabs, with Redis's quoting ("a b", 'a b', and in double
// quotes the escapes \n \r \t \b \a \\ \" \xHH).
func parseInline(data []byte, args [][]byte) ([][]byte, int, error) {
	eol := bytes.IndexByte(data, '\n')
	if eol < 0 {
		if len(data) > MaxInline {
			return args, 0, protoErr("too big inline request")
		}
		return args, len(data) + 1, ErrIncomplete
	}
	if eol > MaxInline {
		return args, 0, protoErr("too big inline request")
	}
	line := data[:eol]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := splitArgs(line, args)
	if !ok {
		return args[:0], 0, protoErr("unbalanced quotes in request")
	}
	return args, eol + 1, nil
}

// splitArgs splits an inline command line into arguments. Arguments
// without quotes are slices of line; quoted ones are copied, unescaped.
func splitArgs(line []byte, args [][]byte) ([][]byte, bool) {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, true
		}
		start := i
		var arg []byte // nil until a quote makes a copy necessary
		for i < len(line) && !isSpace(line[i]) {
			c := line[i]
			if c != '"' && c != '\'' {
				if arg != nil {
					arg = append(arg, c)
				}
				i++
				continue
			}
			if arg == nil {
				arg = append([]byte{}, line[start:i]...)
			}
			var ok bool
			if arg, i, ok = quoted(line, i, arg); !ok {
				return args, false
			}
		}
		if arg == nil {
			arg = line[start:i:i]
		}
		args = append(args, arg)
	}
}

// quoted appends to arg the quoted string that starts at line[i], and
// returns the index after its closing quote. As in Redis, the closing
// quote must be followed by a space or the end of the line.
func quoted(line []byte, i int, arg []byte) ([]byte, int, bool) {
	q := line[i]
	for i++; i < len(line); i++ {
		c := line[i]
		switch {
		case c == q:
			if i+1 < len(line) && !isSpace(line[i+1]) {
				return arg, 0, false
			}
			return arg, i + 1, true
		case c == '\\' && i+1 < len(line) && q == '\'' && line[i+1] == '\'':
			arg = append(arg, '\'')
			i++
		case c == '\\' && i+1 < len(line) && q == '"':
			if i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]) {
				arg = append(arg, unhex(line[i+2])<<4|unhex(line[i+3]))
				i += 3
				break
			}
			i++
			switch e := line[i]; e {
			case 'n':
				arg = append(arg, '\n')
			case 'r':
				arg = append(arg, '\r')
			case 't':
				arg = append(arg, '\t')
			case 'b':
				arg = append(arg, '\b')
			case 'a':
				arg = append(arg, '\a')
			default:
				arg = append(arg, e)
			}
		default:
			arg = append(arg, c)
		}
	}
	return arg, 0, false // no closing quote
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
