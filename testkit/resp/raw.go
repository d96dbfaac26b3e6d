package resp

import (
	"bufio"
	"fmt"
	"io"
)

// MaxDepth bounds how deeply ReadRaw follows nested aggregates.
const MaxDepth = 32

// ReadRaw reads one whole reply of RESP2 or RESP3, whatever its type
// (aggregates included, with everything in them), and returns its bytes
// exactly as they came, appended to dst. Blob lengths and aggregate sizes
// above max are an error, so a broken peer cannot make it allocate
// without bound. It is for testers that compare replies byte for byte.
func ReadRaw(r *bufio.Reader, dst []byte, max int) ([]byte, error) {
	return readRaw(r, dst, max, 0)
}

func readRaw(r *bufio.Reader, dst []byte, max, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return dst, fmt.Errorf("%w: aggregates nested too deeply", ErrProtocol)
	}
	line, err := readLine(r)
	if err != nil {
		if depth > 0 && err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return dst, err
	}
	dst = append(append(dst, line...), '\r', '\n')
	if len(line) == 0 {
		return dst, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	// line aliases r's buffer, which the reads below refill: keep what
	// is needed of it.
	kind := line[0]
	n, nerr := parseInt(line[1:])
	switch kind {
	case '+', '-', ':', '_', ',', '#', '(':
		return dst, nil
	case '$', '!', '=': // blob string, blob error, verbatim string
		if nerr != nil {
			return dst, nerr
		}
		if n == -1 && kind == '$' {
			return dst, nil // RESP2's null bulk string
		}
		if n < 0 || n > int64(max) {
			return dst, fmt.Errorf("%w: blob length %d", ErrProtocol, n)
		}
		start := len(dst)
		dst = append(dst, make([]byte, n+2)...)
		if _, err := io.ReadFull(r, dst[start:]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return dst[:start], err
		}
		if dst[len(dst)-2] != '\r' || dst[len(dst)-1] != '\n' {
			return dst, fmt.Errorf("%w: blob not ended by CRLF", ErrProtocol)
		}
		return dst, nil
	case '*', '~', '>', '%', '|': // array, set, push, map, attribute
		if nerr != nil {
			return dst, nerr
		}
		if n == -1 && kind == '*' {
			return dst, nil // RESP2's null array
		}
		if n < 0 || n > int64(max) {
			return dst, fmt.Errorf("%w: aggregate of %d", ErrProtocol, n)
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		for range n {
			var err error
			if dst, err = readRaw(r, dst, max, depth+1); err != nil {
				return dst, err
			}
		}
		if kind == '|' {
			// Attributes come before the reply they describe.
			return readRaw(r, dst, max, depth)
		}
		return dst, nil
	}
	return dst, fmt.Errorf("%w: unknown reply type %q", ErrProtocol, kind)
}
