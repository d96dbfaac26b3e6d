package server

import (
	"encoding/binary"

	"example.com/byor/ch38_blocking/keytable"
	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/resp"
)

// kWarmRequests is the most requests warmKeys looks ahead at: as many as
// a pipelining client usually sends at once.
const kWarmRequests = 16

// warmKeys looks at the complete requests waiting in rbuf, before any is
// run, and has the key table bring the memory of their keys into the
// cache together (see keytable's Warm): the key is each request's second
// string, whatever the command. A lone request gains nothing from it, and
// a request whose second string is not a key (there are few) only warms
// a slot for nothing.
func warmKeys(conn *conn) {
	var hcodes [kWarmRequests]uint64
	n := 0
	avail := conn.rbuf[conn.rbufStart:conn.rbufEnd]
	for seen := 0; seen < kWarmRequests && len(avail) >= 4; seen++ {
		size := binary.LittleEndian.Uint32(avail)
		if size > proto.KMaxMsg || 4+int(size) > len(avail) {
			break
		}
		if key, ok := proto.Arg(avail[4:4+size], 1); ok {
			hcodes[n] = keytable.Hash(key)
			n++
		}
		avail = avail[4+size:]
	}
	if n > 1 {
		gData.db.Warm(hcodes[:n], (*entry).key)
	}
}

// kWarmBytes bounds the bytes of RESP requests warm parses ahead. Finding
// where a RESP request ends means parsing it, and those requests are
// parsed again when their turn comes: a bound keeps the look-ahead a small
// fixed cost per turn, whatever a client sends (requests of thousands of
// arguments, or turns cut short by their work, would otherwise be parsed
// ahead again on every turn). It holds 16 ordinary requests.
const kWarmBytes = 4 << 10

// warmParses counts the look-ahead's parses (for the tests).
var warmParses int

// warm is warmKeys for a RESP connection: its requests are parsed, within
// kWarmBytes, with the parser that will run them, into an array too short
// for more than a short command's arguments; a request of more is only
// checked, for its length. An inline request ends the look-ahead
// (unescaping one may allocate).
func (st *respState) warm(conn *conn) {
	// Only once the front request is whole: requestReady checks it from
	// where its last check stopped, while a look-ahead over a request that
	// arrives a few bytes at a time would parse its start again on every
	// read. (And it then runs in this turn, which is charged for it.)
	if !st.requestReady(conn) || st.ready == 0 {
		return
	}
	var hcodes [kWarmRequests]uint64
	var args [8][]byte
	n := 0
	data := st.buf[st.start:]
	data = data[:min(len(data), kWarmBytes)]
	if len(data) <= st.ready {
		// Nothing after the front request: a lone request has nothing to
		// overlap with, and at depth 1 parsing it ahead would only be
		// parsing it twice.
		return
	}
	for seen := 0; seen < kWarmRequests && len(data) > 0 && data[0] == '*'; seen++ {
		warmParses++
		cmd, size, _, err := resp.ParseRequestFrom(data, args[:0], nil)
		if err != nil {
			break
		}
		if len(cmd) > 1 {
			hcodes[n] = keytable.Hash(cmd[1])
			n++
		}
		data = data[size:]
	}
	clear(args[:]) // no pointers into the buffer kept
	if n > 1 {
		gData.db.Warm(hcodes[:n], (*entry).key)
	}
}
