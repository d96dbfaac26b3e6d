package server

import (
	"math"
	"strings"
)

// respDo runs one request of a RESP connection, writing its reply to the
// connection's respWriter.
func respDo(conn *conn, st *respState, args [][]byte) {
	w := &st.w
	chargeBytes(argBytes(args)) // parsed, and copied by many commands
	c, unknown := respResolve(args)
	switch {
	case c == nil:
		w.err(unknown)
		st.multiFailed()
	case !arityOK(c.arity, len(args)):
		w.err(errArity(c.name))
		st.multiFailed()
	case st.inMulti && c.flags&flagNoQueue == 0:
		// There are no transactions: refuse the command, and the EXEC
		// that ends them (see respMulti).
		w.err("ERR MULTI is not supported: '" + c.name + "' was not run, and EXEC will discard the transaction")
		st.multiFailed()
	default:
		start := len(w.buf)
		c.run(st, w, args)
		chargeBytes(max(0, len(w.buf)-start)) // the reply's bytes
		if c.flags&flagQuit != 0 {
			stopReading(conn) // once the OK is sent
		}
	}
}

// errArity is Redis's error for a command given too few or too many
// arguments.
func errArity(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// unknownCommand is Redis's error for a command it does not have, quoting
// the first arguments (up to about 128 bytes of them).
func unknownCommand(args [][]byte) string {
	var b strings.Builder
	b.WriteString("ERR unknown command '")
	b.Write(args[0][:min(len(args[0]), 128)])
	b.WriteString("', with args beginning with: ")
	quoted := 0
	for _, a := range args[1:] {
		if quoted >= 128 {
			break
		}
		a = a[:min(len(a), 128-quoted)]
		b.WriteString("'")
		b.Write(a)
		b.WriteString("' ")
		quoted += len(a) + 3
	}
	return b.String()
}

// respInt parses an integer argument as Redis does (string2ll): an
// optional minus sign and decimal digits, nothing else, no leading zero
// (but "0" itself), no "-0", and within int64. So " 1", "+5", "005", "-0"
// and "" are not integers, where the book's strtoll takes them all.
func respInt(b []byte) (int64, bool) {
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true // -v wraps to the right int64, MinInt64 too
	case !neg && v <= math.MaxInt64:
		return int64(v), true
	}
	return 0, false
}
