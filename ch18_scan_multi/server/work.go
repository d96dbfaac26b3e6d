package server

// The work meter. workDone (conn.go) counts the work requests do, in
// units of about one item visited: an argument, a key, a member, a field,
// a row of the command table. The code that does the work charges it as
// it goes, and serveRequests ends a connection's turn once the turn's
// share passes kMaxTurnWork. Bytes count too, kWorkBytes to a unit:
// those a request brings (its arguments, copied into the key space) and
// those its reply takes (a value copied into the write buffer, INFO's or
// COMMAND's text), so that a request that moves many bytes, a large GET
// or APPEND, weighs what it costs.

// kWorkBytes is how many bytes copied count as one unit of work: about
// what copying them (allocating and filling a buffer, a string) costs
// beside visiting one item, some 50 to 100 ns. One turn (kMaxTurnWork)
// may so copy 4 MiB.
const kWorkBytes = 64

// chargeBytes counts n bytes copied in workDone.
func chargeBytes(n int) { workDone += n / kWorkBytes }

// argBytes returns the bytes of a request's arguments.
func argBytes(args [][]byte) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}

// containerLen returns the members or fields the entry's value holds, 0
// for a string: the items tearing it down visits.
func containerLen(ent *entry) int {
	switch ent.typ() {
	case tZSet:
		return ent.obj.zset.Len()
	case tHash:
		return ent.obj.hash.StoredLen()
	}
	return 0
}
