// The path of a request to its command's handler: the row found by its
// name, the arguments counted, and the handler run.

package server

import (
	"strings"

	"example.com/byor/ch21_resp2/proto"
)

// respDo runs one request of a RESP connection, writing its reply to the
// connection's respWriter.
func respDo(conn *conn, st *respState, args [][]byte) {
	w := &st.w
	c := respLookup(args[0])
	switch {
	case c == nil:
		w.err(unknownCommand(args))
	case !arityOK(c.arity, len(args)):
		w.err(errArity(c.name))
	default:
		c.resp(st, w, args)
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

// bookRequest runs one of the book's commands, writing its reply to w: the
// command table's row of that name, if it has a book handler and the
// number of arguments suits it.
func bookRequest(cmd [][]byte, w replyWriter) {
	var c *command
	if len(cmd) > 0 {
		c = lookupCommand(cmd[0])
	}
	if c == nil || c.book == nil || len(cmd) < c.bookMin || c.bookMax > 0 && len(cmd) > c.bookMax {
		// An unknown name, a known one with the wrong number of
		// arguments, or no name at all.
		w.outErr(proto.CodeUnknown, "Unknown cmd")
		return
	}
	c.book(cmd, w)
}
