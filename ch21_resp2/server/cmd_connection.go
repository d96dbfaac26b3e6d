package server

import (
	"math"
)

// The commands about the connection itself: PING, ECHO, SELECT and QUIT.

func respPing(st *respState, w *respWriter, args [][]byte) {
	switch len(args) {
	case 1:
		w.simple("PONG")
	case 2:
		w.outBulk(args[1])
	default:
		w.err(errArity("ping"))
	}
}

func respEcho(st *respState, w *respWriter, args [][]byte) { w.outBulk(args[1]) }

func respQuit(st *respState, w *respWriter, args [][]byte) { w.simple("OK") }

// respSelect: SELECT 0. There is one database, as in Redis Cluster; the
// others Redis has (1 to 15) are out of range here.
func respSelect(st *respState, w *respWriter, args [][]byte) {
	n, ok := respInt(args[1])
	switch {
	case !ok:
		w.err(errNotInt)
	case n < math.MinInt32 || n > math.MaxInt32:
		w.err("ERR value is out of range, value must between -2147483648 and 2147483647")
	case n != 0:
		w.err("ERR DB index is out of range")
	default:
		w.simple("OK")
	}
}
