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
// arguments, and the number of bytes the request took. The arguments go
// in args's array if it has room for them all (the caller can reuse the
// array); a request of more is checked whole first, then given an array
// of exactly its count, never one grown by doubling. The arguments of an
// array request are slices of data (the caller must not keep them past
// its buffer's next change); an inline request with quotes is unescaped
// into new memory. An empty request (a blank line, or an array of zero
// elements) returns no arguments and a positive count: skip it, as Redis
// does.
//
// The error is ErrIncomplete when more bytes are needed, or a
// *ProtocolError when the request is malformed or over a limit. With
// ErrIncomplete the count is how long data must be, at least, before the
// request can be whole: a bulk string's announced end, or one byte more.
// A caller reading the request in pieces need not parse it again before
// then (a 1 MB value arriving 16 KiB at a time would be parsed from its
// start 64 times).
func ParseRequest(data []byte, args [][]byte) ([][]byte, int, error) {
	args, n, argc, err := ParseRequestFrom(data, args, nil)
	if err == nil && len(args) < argc {
		args, n, _, err = ParseRequestFrom(data, make([][]byte, 0, argc), nil)
	}
	return args, n, err
}

// Progress is how far ParseRequestFrom got into an array request that is
// not all there yet: the elements before Pos (Done of them) are whole and
// well formed. The zero Progress is the start of a request.
type Progress struct {
	Pos  int
	Done int64
}

// ParseRequestFrom is ParseRequest for a server that counts what a
// request makes it hold, and reads requests in pieces. It never allocates
// an array for the arguments: it builds them in args[:argc] only if args
// has room for all argc of them, and otherwise (args nil, say) only checks
// the request, returning no arguments but its count, argc, so that the
// caller can make room for exactly that many (counted in its memory) and
// call again. A request's arguments cost a slice header each, 24 bytes,
// where an empty bulk string takes 6 bytes of the request.
//
// With p, it checks an incomplete array request from where the last call
// on the same request stopped, rather than from its start (an array of
// thousands of small arguments, arriving 1 KiB at a time, would be walked
// from its start once for each piece), and records in p where this call
// stopped. Once the request is whole, p is reset; it is walked from its
// start again only to build its arguments, or to find its error. The
// caller resets p (to Progress{}) when the request at the front of data
// changes otherwise.
func ParseRequestFrom(data []byte, args [][]byte, p *Progress) (out [][]byte, n, argc int, err error) {
	if p == nil {
		return parseRequest(data, args, nil)
	}
	if p.Done > 0 {
		n, argc, state := checkFrom(data, p)
		switch {
		case state == checkIncomplete:
			return args[:0], n, 0, ErrIncomplete
		case state == checkWhole && argc > cap(args):
			*p = Progress{}
			return args[:0], n, argc, nil
		}
		// Whole with room for its arguments, or wrong: parse it all, for
		// its arguments or its error.
		*p = Progress{}
	}
	out, n, argc, err = parseRequest(data, args, p)
	if err != ErrIncomplete {
		*p = Progress{}
	}
	return out, n, argc, err
}

// parseRequest is ParseRequestFrom from the start of the request,
// recording in p, if not nil, how far it got.
func parseRequest(data []byte, args [][]byte, p *Progress) ([][]byte, int, int, error) {
	// exercise: ch21-resp-parse
	args = args[:0]
	if len(data) == 0 {
		return args, 1, 0, ErrIncomplete
	}
	if data[0] != '*' {
		return parseInline(data, args)
	}
	count, pos, err := headerLine(data, 0, "multibulk count")
	if err == ErrIncomplete {
		return args, len(data) + 1, 0, err
	}
	if err != nil {
		return args, 0, 0, err
	}
	if count > MaxArgs {
		return args, 0, 0, protoErr("invalid multibulk length")
	}
	// Build the arguments only where they all fit: a count the client
	// announced is not a reason to allocate.
	build := count <= int64(cap(args))
	for i := int64(0); i < count; i++ {
		if p != nil {
			p.Pos, p.Done = pos, i
		}
		if pos >= len(data) {
			return dropArgs(args), pos + 1, 0, ErrIncomplete
		}
		if data[pos] != '$' {
			return dropArgs(args), 0, 0, protoErr("expected '$', got '" + printable(data[pos]) + "'")
		}
		n, next, err := headerLine(data, pos, "bulk count")
		if err == ErrIncomplete {
			return dropArgs(args), len(data) + 1, 0, err
		}
		if err != nil {
			return dropArgs(args), 0, 0, err
		}
		if n < 0 || n > MaxBulkLen {
			return dropArgs(args), 0, 0, protoErr("invalid bulk length")
		}
		end := next + int(n)
		if end+2 > len(data) {
			return dropArgs(args), end + 2, 0, ErrIncomplete
		}
		if data[end] != '\r' || data[end+1] != '\n' {
			return dropArgs(args), 0, 0, protoErr("expected CRLF after a bulk string")
		}
		if build {
			args = append(args, data[next:end:end])
		}
		pos = end + 2
	}
	return args, pos, int(max(count, 0)), nil
	// end exercise: ch21-resp-parse
}

// dropArgs returns args emptied, its slots cleared: they pointed into the
// caller's buffer, which the array must not keep alive.
func dropArgs(args [][]byte) [][]byte {
	clear(args)
	return args[:0]
}

// What checkFrom found.
const (
	checkIncomplete = iota
	checkWhole
	checkWrong
)

// checkFrom checks the array request at the front of data from the
// element at p.Pos on (p.Done elements come before it), updating p as it
// goes. If the request is still incomplete it reports so, with the length
// data needs, as ParseRequest would; if it is whole, with its length and
// its argument count; if it is wrong, the caller parses it from its start
// for the error.
func checkFrom(data []byte, p *Progress) (n, argc, state int) {
	count, _, err := headerLine(data, 0, "multibulk count")
	if err != nil {
		return 0, 0, checkWrong
	}
	for ; p.Done < count; p.Done++ {
		pos := p.Pos
		if pos >= len(data) {
			return pos + 1, 0, checkIncomplete
		}
		if data[pos] != '$' {
			return 0, 0, checkWrong
		}
		n, next, err := headerLine(data, pos, "bulk count")
		if err == ErrIncomplete {
			return len(data) + 1, 0, checkIncomplete
		}
		if err != nil || n < 0 || n > MaxBulkLen {
			return 0, 0, checkWrong
		}
		end := next + int(n)
		if end+2 > len(data) {
			return end + 2, 0, checkIncomplete
		}
		if data[end] != '\r' || data[end+1] != '\n' {
			return 0, 0, checkWrong
		}
		p.Pos = end + 2
	}
	return p.Pos, int(count), checkWhole
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
// quotes the escapes \n \r \t \b \a \\ \" \xHH). As for an array, the
// arguments are built only if args has room for them all.
func parseInline(data []byte, args [][]byte) ([][]byte, int, int, error) {
	eol := bytes.IndexByte(data, '\n')
	if eol < 0 {
		if len(data) > MaxInline {
			return args, 0, 0, protoErr("too big inline request")
		}
		return args, len(data) + 1, 0, ErrIncomplete
	}
	if eol > MaxInline {
		return args, 0, 0, protoErr("too big inline request")
	}
	line := data[:eol]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, argc, ok := splitArgs(line, args)
	if !ok {
		return dropArgs(args), 0, 0, protoErr("unbalanced quotes in request")
	}
	if argc > cap(args) {
		args = dropArgs(args)
	}
	return args, eol + 1, argc, nil
}

// splitArgs splits an inline command line into arguments, and counts
// them. Arguments without quotes are slices of line; quoted ones are
// copied, unescaped. Once the count passes what args has room for, the
// rest are only checked and counted, not built.
func splitArgs(line []byte, args [][]byte) ([][]byte, int, bool) {
	i, argc := 0, 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, argc, true
		}
		keep := argc < cap(args)
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
			if arg == nil && keep {
				arg = append([]byte{}, line[start:i]...)
			}
			var ok bool
			if arg, i, ok = quoted(line, i, arg, keep); !ok {
				return args, argc, false
			}
		}
		if arg == nil {
			arg = line[start:i:i]
		}
		if keep {
			args = append(args, arg)
		}
		argc++
	}
}

// quoted appends to arg (if keep: otherwise it only checks) the quoted
// string that starts at line[i], and returns the index after its closing
// quote. As in Redis, the closing quote must be followed by a space or the
// end of the line.
func quoted(line []byte, i int, arg []byte, keep bool) ([]byte, int, bool) {
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
			c = '\''
			i++
		case c == '\\' && i+1 < len(line) && q == '"':
			if i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]) {
				c = unhex(line[i+2])<<4 | unhex(line[i+3])
				i += 3
				break
			}
			i++
			c = unescape(line[i])
		}
		if keep {
			arg = append(arg, c)
		}
	}
	return arg, 0, false // no closing quote
}

// unescape is the byte a backslash escape stands for inside double quotes:
// \n \r \t \b \a, and any other byte for itself.
func unescape(e byte) byte {
	switch e {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return e
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
