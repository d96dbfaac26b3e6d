// The path of a request to its command's handler: the row found by its
// name, the arguments counted, and the handler run.

package server

import (
	"example.com/byor/ch20_cmdtable/proto"
)

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
