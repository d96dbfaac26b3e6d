// The path of a request to its command's handler: the row found by its
// name, the arguments counted, and the handler run.

package server

import (
	"strings"

	"example.com/byor/ch38_blocking/proto"
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
		cmdRefused(nil, unknown)
		st.multiFailed()
	case !arityOK(c.arity, len(args)):
		cmdRefused(c, errArity(c.name))
		if c.refused != nil {
			c.refused(st, w, errArity(c.name))
			break
		}
		w.err(errArity(c.name))
		st.multiFailed()
	case st.inMulti && c.flags&flagNoMulti != 0:
		w.err(errNoMulti)
		cmdRefused(c, errNoMulti)
		st.multiFailed()
	case st.inMulti && c.flags&flagNoQueue == 0:
		// Inside MULTI, commands are queued for EXEC (see cmd_multi.go);
		// those that end or nest a transaction, WATCH and QUIT run now.
		// A write the log could not take now is refused, as it would be
		// outside, and fails the transaction.
		if refusal := aofRefusal(c); refusal != "" {
			w.err(refusal)
			cmdRefused(c, refusal)
			st.multiFailed()
			break
		}
		st.queueCommand(w, c, args)
	default:
		start := len(w.buf)
		c.run(st, w, args)
		chargeBytes(max(0, len(w.buf)-start)) // the reply's bytes
		if c.flags&flagQuit != 0 {
			stopReading(conn) // once the OK is sent
		}
	}
}

// respResolve finds the row that runs the RESP request args: its
// command's, or its subcommand's for a container given one. It returns
// nil and the error to answer for an unknown command or subcommand.
func respResolve(args [][]byte) (*command, string) {
	c := respLookup(args[0])
	switch {
	case c == nil:
		return nil, unknownCommand(args)
	case c.subs != nil && len(args) > 1:
		if sub := c.lookupSubcommand(args[1]); sub != nil {
			return sub, ""
		}
		return nil, errSubcommand(c, args[1])
	}
	return c, ""
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

// run runs the RESP command c with args. Its caller charges the work
// meter its arguments and its reply's bytes (see work.go).
func (c *command) run(st *respState, w *respWriter, args [][]byte) {
	w.cmd = c
	at, start := len(w.buf), getMonotonicUsec()
	if refusal := call(c, w.conn, args, false, func() {
		c.resp(st, w, args)
		cmdRan(c, w, at, start) // for INFO's commandstats
	}); refusal != "" {
		w.err(refusal)
	}
}

// call runs handler, c's with args from either listener (book says which)
// or EXEC, within the hooks of every request: the log's refusals (conn's
// budget makes a record's room), the snapshot's copy of what changes,
// then the change's record (aof.go).
func call(c *command, conn *conn, args [][]byte, book bool, handler func()) string {
	refusal := aofRefusal(c)
	if refusal == "" && !book && c.flags&flagWrite != 0 && aofDepth == 0 {
		refusal = aofRoom(conn, args)
	}
	if refusal != "" {
		return refusal
	}
	snapshotBeforeWrite(c, args) // the snapshot keeps what the command changes
	mark := aofBegin(c, args)
	handler()
	aofEnd(c, args, mark, book)
	return ""
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
	if refusal := call(c, nil, cmd, true, func() { c.book(cmd, w) }); refusal != "" {
		w.outErr(codeMisconf, refusal)
	}
}
