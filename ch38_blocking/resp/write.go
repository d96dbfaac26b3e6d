package resp

import (
	"math"
	"strconv"
)

// The protocol versions a connection can speak. Every connection starts
// with RESP2; the command HELLO 3 switches it to RESP3, which has types of
// its own for maps, doubles and null.
const (
	RESP2 = 2
	RESP3 = 3
)

// Each Append function appends one reply, or the header of an aggregate
// one, to out and returns the extended slice, like strconv.AppendInt: the
// server builds its replies straight into a connection's write buffer.

// AppendSimple appends a simple string, "+OK". s must not hold CR or LF.
func AppendSimple(out []byte, s string) []byte {
	out = append(out, '+')
	out = append(out, s...)
	return append(out, '\r', '\n')
}

// AppendError appends an error, "-ERR message". The first word is the
// error's kind (ERR, WRONGTYPE, ...), which clients may look at. Line ends
// in msg become spaces: an error is a single line.
func AppendError(out []byte, msg string) []byte {
	out = append(out, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		out = append(out, c)
	}
	return append(out, '\r', '\n')
}

// AppendInt appends an integer, ":42".
func AppendInt(out []byte, n int64) []byte {
	out = append(out, ':')
	out = strconv.AppendInt(out, n, 10)
	return append(out, '\r', '\n')
}

// AppendBulk appends a bulk string, "$5\r\nhello": binary-safe, since its
// length comes first.
func AppendBulk[S ~string | ~[]byte](out []byte, s S) []byte {
	out = append(out, '$')
	out = strconv.AppendInt(out, int64(len(s)), 10)
	out = append(out, '\r', '\n')
	out = append(out, s...)
	return append(out, '\r', '\n')
}

// AppendNull appends "no value": RESP3 has a type for it; RESP2 uses a bulk
// string of length -1.
func AppendNull(out []byte, ver int) []byte {
	if ver == RESP3 {
		return append(out, '_', '\r', '\n')
	}
	return append(out, "$-1\r\n"...)
}

// AppendArray appends the header of an array of n elements; the elements
// follow.
func AppendArray(out []byte, n int) []byte {
	out = append(out, '*')
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, '\r', '\n')
}

// AppendMap appends the header of a map of n key-value pairs; keys and
// values follow, alternating. RESP2 has no maps: there it is a flat array
// of 2n elements, as Redis sends HGETALL.
func AppendMap(out []byte, n int, ver int) []byte {
	if ver != RESP3 {
		return AppendArray(out, 2*n)
	}
	out = append(out, '%')
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, '\r', '\n')
}

// AppendDouble appends a floating-point number: a RESP3 double, ",1.5", or
// in RESP2, which has none, the same text as a bulk string. The text is
// Redis 7.0's, printf's %.17g: 17 significant digits, so 0.1 is
// "0.10000000000000001" and 1e21 is "1e+21" (Redis 7.2 writes the
// shortest text that reads back as the same number instead); infinities
// are "inf" and "-inf".
func AppendDouble(out []byte, f float64, ver int) []byte {
	var buf [32]byte
	var text []byte
	switch {
	case math.IsInf(f, 1):
		text = append(buf[:0], "inf"...)
	case math.IsInf(f, -1):
		text = append(buf[:0], "-inf"...)
	default:
		// Go's %g with a precision chooses digits and form as C's does.
		text = strconv.AppendFloat(buf[:0], f, 'g', 17, 64)
	}
	if ver != RESP3 {
		return AppendBulk(out, text)
	}
	out = append(out, ',')
	out = append(out, text...)
	return append(out, '\r', '\n')
}

// AppendRequest appends a request as clients send it: an array of bulk
// strings. The server does not send requests; tests and tools do.
func AppendRequest[S ~string | ~[]byte](out []byte, args ...S) []byte {
	out = AppendArray(out, len(args))
	for _, a := range args {
		out = AppendBulk(out, a)
	}
	return out
}
