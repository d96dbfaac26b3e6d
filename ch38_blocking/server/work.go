package server

// The work meter. workDone (conn.go) counts the work requests do, in
// units of about one item visited: an argument, a key, a row of the
// command table; a member or a field weighs more (kMemberWork,
// kVisitWork). The code that does the work charges it as
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

// kMemberWork is what a command pays for each member of a sorted set or
// field of a hash it finds by name, to insert, update, remove or read it:
// a probe of the hash table and, in a sorted set, a walk down the tree
// and its rebalancing, with a node allocated or freed. That is far more
// than copying its bytes: BenchmarkMemberWork measures 0.2 to 1.5 us a
// member in a set or a hash of a thousand, 2 to 5 us in one of a million,
// where cache misses take most of it, not the tree's depth. The weight is
// the large figure over the unit's 50 to 100 ns, the same for every size,
// so that a bound weighed in advance (EXEC's) holds whatever the sizes
// are when the command runs.
const kMemberWork = 64

// kVisitWork is what a command pays for each member or field it walks to
// in order and copies out (ZRANGE's next member, HGETALL's next field),
// its reply's bytes apart: 80 to 250 ns (BenchmarkMemberWork).
const kVisitWork = 3

// chargeMembers counts n members or fields found by name in workDone.
func chargeMembers(n int) { workDone += n * kMemberWork }

// argBytes returns the bytes of a request's arguments.
func argBytes(args [][]byte) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}

// containerLen returns the members, fields or elements the entry's value
// holds, 0 for a string: the items tearing it down visits, at most.
func containerLen(ent *entry) int {
	switch ent.typ() {
	case tZSet:
		return ent.obj.zset.Len()
	case tHash:
		return ent.obj.hash.StoredLen()
	case tList:
		return ent.obj.list.Len()
	}
	return 0
}
