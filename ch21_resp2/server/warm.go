package server

import (
	"encoding/binary"

	"example.com/byor/ch21_resp2/keytable"
	"example.com/byor/ch21_resp2/proto"
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

// warm is warmKeys for a RESP connection: nothing, in this chapter (a
// RESP request's end is found only by parsing it).
func (st *respState) warm(conn *conn) {}
