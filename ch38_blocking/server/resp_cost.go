package server

import "strconv"

// What EXEC knows of a transaction's work before it runs any of it.
//
// A transaction runs whole inside one request, whatever the turn's bounds,
// so its work is bounded as a whole (kMaxExecWork): one whose work could
// pass the bound is refused before anything runs. The work itself is
// charged to the meter as it is done, as every command's is (work.go);
// what is weighed beforehand is a bound on it, from each command's row:
// its arguments (counted as a request's are) and, for the commands that
// visit more than their arguments (a hash's fields, a sorted set's
// members, the key space's keys, a string copied whole), the row's cost
// function. That looks at the data as it is (the length of the hash, of
// the string, of the rank span) and allows for what the commands queued
// before it may have added (execPlan). Only lookups: weighing costs about
// what the arguments did when they were queued.

// execPlan is the data the queued commands will find, as far as EXEC can
// tell before running them: the key space as it is, and what the commands
// before may add.
type execPlan struct {
	// bytes and items hold, for each key written, what the commands
	// before may have added to it: bytes of a string, or members of a
	// sorted set or fields of a hash. newKeys bounds the keys they may
	// have created.
	bytes, items map[string]int
	newKeys      int
	// compacted is set once a command is weighed with the shrink of a
	// sparse key table (RANDOMKEY's), which the first one does for all.
	compacted bool
}

// strLen bounds the length of the string at key when the command runs.
func (p *execPlan) strLen(key []byte) int {
	n := p.bytes[string(key)]
	if ent := lookupEntry(key); ent != nil && ent.typ() == tStr {
		n += len(ent.val())
	}
	return n
}

// itemLen bounds the members or fields of the value at key when the
// command runs.
func (p *execPlan) itemLen(key []byte) int {
	n := p.items[string(key)]
	if ent := lookupEntry(key); ent != nil {
		n += containerLen(ent)
	}
	return n
}

// keys bounds the keys the key space will hold.
func (p *execPlan) keys() int { return gData.db.Len() + p.newKeys }

// addBytes notes that a command may create key and add n bytes to its
// string; addItems, n members or fields to its sorted set or hash.
func (p *execPlan) addBytes(key []byte, n int) { p.add(&p.bytes, key, n) }
func (p *execPlan) addItems(key []byte, n int) { p.add(&p.items, key, n) }

func (p *execPlan) add(m *map[string]int, key []byte, n int) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[string(key)] += n
	p.newKeys++
}

// estimate bounds the work of cmd, run after the commands p has seen, and
// adds what cmd may add to the data to p.
func (p *execPlan) estimate(c *command, cmd [][]byte) int {
	work := len(cmd) + argBytes(cmd)/kWorkBytes // charged as it runs (respExec)
	if c.cost != nil {
		keys := p.newKeys
		work += c.cost(p, cmd)
		work += (p.newKeys - keys) * kInsertWork
	}
	return work
}

// kInsertWork is what inserting a key may cost besides itself while the
// key table resizes: the key table moves kInsertMoves (16) slots of the
// old array with every insert, each a slot looked at and, for an entry
// moved, the slots its put walks and its key's bytes hashed again
// (insertEntry charges them to the command). Four units a slot is what
// the moves of short keys take with room to spare; the moves of long keys
// cost more, but only as often as the inserts that made the table grow
// paid for them.
const kInsertWork = 4 * 16

// dropBound bounds the items tearing down the value at key visits, if a
// command replaces or deletes it (entryDel): a large one goes to the
// thread pool.
func (p *execPlan) dropBound(key []byte) int {
	return min(p.itemLen(key), kLargeContainerSize)
}

// The cost functions of the rows: the work a command may do besides its
// arguments and its reply's bytes, from the data as it is (execPlan).

// costDel: DEL and UNLINK tear down what they delete.
func costDel(p *execPlan, args [][]byte) int {
	n := 0
	for _, k := range args[1:] {
		n += p.dropBound(k)
	}
	return n
}

// costSet: SET replaces a value of any type (tearing down a sorted set's
// or a hash's), and the string may grow by the value's bytes.
func costSet(p *execPlan, args [][]byte) int {
	n := p.dropBound(args[1])
	p.addBytes(args[1], len(args[2]))
	return n
}

// costMSet is costSet for each pair.
func costMSet(p *execPlan, args [][]byte) int {
	n := 0
	for i := 1; i+1 < len(args); i += 2 {
		n += p.dropBound(args[i])
		p.addBytes(args[i], len(args[i+1]))
	}
	return n
}

// costExpire: a time not in the future deletes the key.
func costExpire(p *execPlan, args [][]byte) int { return p.dropBound(args[1]) }

// costAppend: an APPEND that finds no room left copies the whole value,
// and the first one to a value its key too (entry.appendVal). Most find
// room and copy nothing but their argument, but which will cannot be told
// from here without following each write before: each is weighed as if
// it grew the value.
func costAppend(p *execPlan, args [][]byte) int {
	n := (len(args[1]) + p.strLen(args[1]) + len(args[2])) / kWorkBytes
	p.addBytes(args[1], len(args[2]))
	return n
}

// costIncr: the value becomes an integer of at most 20 bytes.
func costIncr(p *execPlan, args [][]byte) int {
	p.addBytes(args[1], 20)
	return 0
}

// costGrowBy returns the cost function of a command that adds to its key,
// or updates, up to one member or field per per of its arguments after
// the first skip, each found by name (kMemberWork).
func costGrowBy(skip, per int) func(p *execPlan, args [][]byte) int {
	return func(p *execPlan, args [][]byte) int {
		n := max(0, len(args)-skip) / per
		p.addItems(args[1], n)
		return n * kMemberWork
	}
}

// costMembers: the command finds each of its arguments after the key by
// name in the sorted set (ZREM, ZSCORE, ZRANK).
func costMembers(p *execPlan, args [][]byte) int { return (len(args) - 2) * kMemberWork }

// costWalk: the command may visit every field of its hash (HGETALL,
// HKEYS, HVALS), and then drop it (hashDone).
func costWalk(p *execPlan, args [][]byte) int {
	return p.itemLen(args[1])*kVisitWork + p.dropBound(args[1])
}

// costHash: a hash command finds fields by name, each of its arguments
// after the key at most twice (HSETEX's FNX and HGETEX look at every
// field before they write or answer), and drops the hash when it finds
// all its fields expired (hashDone).
func costHash(p *execPlan, args [][]byte) int {
	return 2*(len(args)-2)*kMemberWork + p.dropBound(args[1])
}

// costHashGrowBy is costGrowBy for a hash command that finds each field it
// adds once (HSET, HINCRBY), and may also drop the hash (hashDone).
func costHashGrowBy(skip, per int) func(p *execPlan, args [][]byte) int {
	grow := costGrowBy(skip, per)
	return func(p *execPlan, args [][]byte) int { return grow(p, args) + p.dropBound(args[1]) }
}

// costHSetEx: HSETEX finds its fields as any hash command may (costHash),
// and adds up to one per pair of arguments after the key.
func costHSetEx(p *execPlan, args [][]byte) int {
	p.addItems(args[1], (len(args)-2)/2)
	return costHash(p, args)
}

// costKeys: KEYS walks every key (up to kKeysMaxScan), and matches each
// within kMatchMaxSteps.
func costKeys(p *execPlan, args [][]byte) int {
	return min(p.keys(), kKeysMaxScan) + kMatchMaxSteps/kMatchStepsPerItem + 1
}

// costScan: SCAN's walk, its keys' bytes hashed and its matching share a
// budget of at most kScanMaxWork (see respScan), which the walk may pass
// by a run of full slots; four times that, and the matching's own bound,
// leave room to spare.
func costScan(p *execPlan, args [][]byte) int {
	return 4*kScanMaxWork + kMatchMaxSteps/kMatchStepsPerItem + 1
}

// costFlush: FLUSHALL marks the watchers of the keys it drops, walking
// the smaller of the keys and the keys watched (touchFlushed).
func costFlush(p *execPlan, args [][]byte) int { return min(p.keys(), len(watchers)) }

// costConfig: CONFIG GET matches each pattern against each parameter.
func costConfig(p *execPlan, args [][]byte) int {
	return configGetWork(args) + len(respConfigParams)*len(args)
}

// costCommand: COMMAND, COMMAND COUNT and COMMAND LIST walk the table.
func costCommand(p *execPlan, args [][]byte) int { return kCommandRowWork * len(commands) }

// costInfo: INFO's sections, each at its cost (respInfo).
func costInfo(p *execPlan, args [][]byte) int {
	return len(infoSections)*kInfoSectionWork + 4*(len(cmdStats)+kMaxErrorKinds)
}

// respExecRefusal is EXEC's error for a transaction whose work would pass
// kMaxExecWork, in the words of Redis's EXECABORT.
func respExecRefusal(estimate int) string {
	return "EXECABORT Transaction discarded because of: it could do " + strconv.Itoa(estimate) +
		" units of work, more than a transaction may (" + strconv.Itoa(kMaxExecWork) + ")"
}

// respWorkRefusal is the error for a lone command whose work could pass
// kMaxExecWork, what a whole transaction may do: it is refused before it
// runs, as EXEC refuses such a transaction, since every other client
// would wait for it. Redis runs it; this is a deliberate difference.
func respWorkRefusal(estimate int) string {
	return "ERR this command could do " + strconv.Itoa(estimate) +
		" units of work, more than one request may (" + strconv.Itoa(kMaxExecWork) + ")"
}
