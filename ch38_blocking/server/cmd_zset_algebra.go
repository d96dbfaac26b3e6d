package server

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/zset"
)

// The set algebra: ZUNION, ZINTER and ZDIFF, their STORE forms, and
// ZINTERCARD. Each is a merge over the members: the members of one input
// are walked in order, each looked up by name in the others (or in the
// result so far, for a union). The result is a list of (member, score)
// pairs: a reply sorts it and lists it, as ZRANGE would a sorted set of
// them, without building one; the STORE forms build the sorted set and
// put it at their key. A key that does not exist is an empty set; inputs that
// are plain sets (SADD's) are out of reach: this server has none.
//
// A key named more than once is one set: each of its members is found in
// it once, whatever the times it is named (zalgDistinct), and only the
// scores are combined again for each naming, in Redis's order, so that
// they come out as Redis's do. A lone command whose work could pass what
// a transaction may do is refused before it runs (zalgRefused).

// zalgOp is which operation a command does.
type zalgOp int

const (
	zalgUnion zalgOp = iota
	zalgInter
	zalgDiff
)

// zalgAgg is how a union or an intersection combines the scores a member
// has in several inputs (AGGREGATE).
type zalgAgg int

const (
	zaggSum zalgAgg = iota
	zaggMin
	zaggMax
)

// zalgArgs is what a command of the set algebra asks for.
type zalgArgs struct {
	keys       [][]byte
	weights    []float64 // one per key; nil for all 1
	agg        zalgAgg
	withScores bool
	limit      int64 // ZINTERCARD's LIMIT, 0 for none
}

// zalgKeys parses numkeys at args[at] and returns the keys after it and
// the arguments after those, or Redis's error.
func zalgKeys(args [][]byte, at int, name string) (keys, rest [][]byte, errText string) {
	n, ok := respInt(args[at])
	switch {
	case !ok:
		return nil, nil, errNotInt
	case n < 1:
		return nil, nil, "ERR at least 1 input key is needed for '" + name + "' command"
	case n > int64(len(args)-at-1):
		return nil, nil, errSyntax
	}
	return args[at+1 : at+1+int(n)], args[at+1+int(n):], ""
}

// zalgOptions parses the options after the keys: WEIGHTS and AGGREGATE
// for a union or an intersection, WITHSCORES unless the result is stored,
// LIMIT for ZINTERCARD (card). The last of each kind counts, as in Redis.
func zalgOptions(a *zalgArgs, rest [][]byte, op zalgOp, store, card bool) string {
	// exercise: ch32-weights-aggregate
	for i := 0; i < len(rest); i++ {
		left := len(rest) - i - 1
		switch opt := rest[i]; {
		case card && cmdIs(opt, "limit") && left >= 1:
			n, ok := respInt(rest[i+1])
			if !ok || n < 0 {
				return "ERR LIMIT can't be negative"
			}
			a.limit = n
			i++
		case !card && op != zalgDiff && cmdIs(opt, "weights") && left >= len(a.keys):
			a.weights = make([]float64, len(a.keys))
			for j := range a.weights {
				f, ok := respFloat(rest[i+1+j])
				if !ok {
					return "ERR weight value is not a float"
				}
				a.weights[j] = f
			}
			i += len(a.keys)
		case !card && op != zalgDiff && cmdIs(opt, "aggregate") && left >= 1:
			switch agg := rest[i+1]; {
			case cmdIs(agg, "sum"):
				a.agg = zaggSum
			case cmdIs(agg, "min"):
				a.agg = zaggMin
			case cmdIs(agg, "max"):
				a.agg = zaggMax
			default:
				return errSyntax
			}
			i++
		case !card && !store && cmdIs(opt, "withscores"):
			a.withScores = true
		default:
			return errSyntax
		}
	}
	return ""
	// end exercise: ch32-weights-aggregate
}

// zalgParse parses a whole command of the set algebra (the STORE forms
// with their destination first), types of the keys apart: the handlers
// look the keys up between the keys and the options, as Redis does, so a
// key of another type is WRONGTYPE before an option is a syntax error.
// It is here whole for the fuzz test.
func zalgParse(args [][]byte, op zalgOp, store, card bool) (zalgArgs, string) {
	at := 1
	if store {
		at = 2
	}
	var a zalgArgs
	keys, rest, errText := zalgKeys(args, at, string(args[0]))
	if errText != "" {
		return a, errText
	}
	a.keys = keys
	return a, zalgOptions(&a, rest, op, store, card)
}

// zalgInputs looks up the keys: nil for a key that does not exist. A key
// of another type answers WRONGTYPE and reports false.
func zalgInputs(w *respWriter, keys [][]byte) ([]*zset.ZSet, bool) {
	sets := make([]*zset.ZSet, len(keys))
	for i, key := range keys {
		workDone++ // each key looked up
		ent, ok := zsetOf(w, key)
		if !ok {
			return nil, false
		}
		if ent != nil {
			sets[i] = ent.obj.zset
		}
	}
	return sets, true
}

// zalgLen is the members of an input, 0 for a key that does not exist.
func zalgLen(z *zset.ZSet) int {
	if z == nil {
		return 0
	}
	return z.Len()
}

// zalgDistinct numbers the inputs' sets: ids[i] is the same for two keys
// that hold the same set (one key named twice, or two keys that do not
// exist), and uniq[d] is where set d is named first: len(uniq) sets are
// different.
func zalgDistinct(sets []*zset.ZSet) (ids []int, uniq []int) {
	ids = make([]int, len(sets))
	seen := make(map[*zset.ZSet]int, len(sets))
	for i, z := range sets {
		d, ok := seen[z]
		if !ok {
			d = len(uniq)
			seen[z] = d
			uniq = append(uniq, i)
		}
		ids[i] = d
	}
	return ids, uniq
}

// zalgNamedAgain reports whether the first input is named again among the
// others: a difference is then empty.
func zalgNamedAgain(ids []int) bool { return slices.Contains(ids[1:], ids[0]) }

// zalgBound bounds the members of the result: the sum of the different
// inputs' for a union, the smallest input's for an intersection, the
// first one's for a difference (none if it is named again).
func zalgBound(op zalgOp, sets []*zset.ZSet, ids, uniq []int) int {
	n := 0
	switch op {
	case zalgUnion:
		for _, i := range uniq {
			n += zalgLen(sets[i])
		}
	case zalgInter:
		n = zalgLen(sets[0])
		for _, z := range sets {
			n = min(n, zalgLen(z))
		}
	case zalgDiff:
		if !zalgNamedAgain(ids) {
			n = zalgLen(sets[0])
		}
	}
	return n
}

// zalgWeighted is a score times its input's weight; a product that is not
// a number (0 times an infinity) counts as 0, as in Redis.
func zalgWeighted(score, weight float64) float64 {
	// exercise: ch32-weights-aggregate
	if v := float64(score * weight); !math.IsNaN(v) {
		return v
	}
	return 0
	// end exercise: ch32-weights-aggregate
}

// zalgCombine combines a member's score so far with its score in another
// input, as Redis does: a sum that is not a number (inf plus -inf) counts
// as 0, and MIN and MAX keep the score so far unless v is below (above)
// it, so a v that is not a number never wins.
func zalgCombine(acc, v float64, agg zalgAgg) float64 {
	// exercise: ch32-weights-aggregate
	switch agg {
	case zaggMin:
		if v < acc {
			return v
		}
		return acc
	case zaggMax:
		if v > acc {
			return v
		}
		return acc
	}
	// The conversions round the product and the sum each on its own, as
	// Redis does: without them Go may fuse them into one operation.
	if s := float64(acc + float64(v)); !math.IsNaN(s) {
		return s
	}
	return 0
	// end exercise: ch32-weights-aggregate
}

// zalgOrder returns the inputs' indexes as Redis visits them: a union and
// an intersection from the smallest input to the largest (inputs of the
// same size in the order given), a difference in the order given, its
// first input being the one the others are taken from.
func zalgOrder(op zalgOp, sets []*zset.ZSet) []int {
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	if op != zalgDiff {
		slices.SortStableFunc(order, func(i, j int) int { return zalgLen(sets[i]) - zalgLen(sets[j]) })
	}
	return order
}

// zalgWalk calls fn for every member of z in order, nothing for nil,
// charging each visit; it stops when fn returns false.
func zalgWalk(z *zset.ZSet, fn func(node *zset.ZNode) bool) {
	if z == nil {
		return
	}
	for node := z.First(); node != nil; node = z.Next(node) {
		workDone += kVisitWork
		if !fn(node) {
			return
		}
	}
}

// zpair is a member of a result with its score. Its name is the input
// member's own string, shared, not copied.
type zpair struct {
	name  string
	score float64
}

// zseen is, for a union, a member of an input named again: where it is in
// the result and its score in the input.
type zseen struct {
	at    int
	score float64
}

// kZPairBytes is what a zpair holds (a string's header and a score);
// kZSlotBytes, about what a union's index takes a member: a slot of the
// map (its name's header and an index), its control byte, and room for
// the map's load factor and its doubling; kZSeenBytes, what a zseen holds.
const (
	kZPairBytes = 24
	kZSlotBytes = 64
	kZSeenBytes = 16
)

// zalgHeld is the bytes zalgPairs may hold for a result of at most bound
// members: the pairs, and for a union its index of them and the members
// of each input named more than once (zseen).
func zalgHeld(op zalgOp, sets []*zset.ZSet, ids, uniq []int, bound int) int {
	if op != zalgUnion {
		return bound * kZPairBytes
	}
	seen := 0
	for d, i := range uniq {
		if slices.Contains(ids[i+1:], d) {
			seen += zalgLen(sets[i])
		}
	}
	return bound*(kZPairBytes+kZSlotBytes) + seen*kZSeenBytes
}

// kProbeWork is what a union pays to find a member in its result so far,
// a Go map of the names: a quarter of kMemberWork, which pays for a
// sorted set's tree too (measured, walk included: 0.1 to 0.9 us a member
// in a map of 10,000 to a million, where adding to a sorted set took 0.3
// to 3.2 us).
const kProbeWork = kMemberWork / 4

// kFoldsPerUnit is how many scores of a member, found once in a set named
// several times, are combined for a unit of work: each is a product, a
// test and a sum or a comparison on what is at hand, a few nanoseconds.
const kFoldsPerUnit = 16

// zalgFoldWork is what the combining of a walked member's scores in n
// inputs after the first is charged (kFoldsPerUnit), rounded up.
func zalgFoldWork(n int) int { return (n + kFoldsPerUnit - 1) / kFoldsPerUnit }

// zalgPairs merges the inputs into the members of the result with their
// scores, in no particular order but a difference's, which keeps its first
// input's order, charging the work as it goes: each member walked
// (kVisitWork), each looked up by name in another input (kMemberWork) or
// in the union so far (kProbeWork), and the scores of a set named again
// combined without either (kFoldsPerUnit, or a unit each for a union's).
// ids and uniq are zalgDistinct's; bound bounds the members (zalgBound).
//
// A union finds the members it has so far in a Go map keyed by their
// names: the names are clients', but Go seeds each map's hash afresh, so
// a client cannot choose names that collide in it.
func zalgPairs(op zalgOp, sets []*zset.ZSet, ids, uniq []int, a *zalgArgs, bound int) []zpair {
	weight := func(i int) float64 {
		if a.weights == nil {
			return 1
		}
		return a.weights[i]
	}
	out := make([]zpair, 0, bound)
	order := zalgOrder(op, sets)
	switch op {
	case zalgUnion:
		// Every member of every input, from the smallest input on: one
		// new in the result is added, one already there combined. A set
		// named again is not walked again: its members' places in the
		// result and their scores, kept from its first walk, are.
		// Redis combines each member's scores in the order the inputs
		// are visited, and so does this, each naming in its turn.
		at := make(map[string]int, bound)
		walked := make([]bool, len(uniq))
		again := make([][]zseen, len(uniq))
		for _, i := range order {
			d := ids[i]
			if walked[d] {
				for _, m := range again[d] {
					workDone++
					v := zalgWeighted(m.score, weight(i))
					out[m.at].score = zalgCombine(out[m.at].score, v, a.agg)
				}
				continue
			}
			walked[d] = true
			keep := slices.Contains(ids[i+1:], d)
			if keep {
				again[d] = make([]zseen, 0, zalgLen(sets[i]))
			}
			zalgWalk(sets[i], func(node *zset.ZNode) bool {
				v := zalgWeighted(node.Score(), weight(i))
				workDone += kProbeWork // looked up in the result
				j, ok := at[node.Name()]
				if ok {
					out[j].score = zalgCombine(out[j].score, v, a.agg)
				} else {
					j = len(out)
					at[node.Name()] = j
					out = append(out, zpair{node.Name(), v})
				}
				if keep {
					again[d] = append(again[d], zseen{j, node.Score()})
				}
				return true
			})
		}
	case zalgInter:
		// The members of the smallest input that every other one has,
		// each looked up once in each other set, however many times it
		// is named: its score there is kept for the namings after.
		first := order[0]
		found := make([]float64, len(uniq)) // by set: the walked member's score there
		stamp := make([]int, len(uniq))     // by set: the walked member found holds
		folds := zalgFoldWork(len(ids) - len(uniq))
		n := 0
		zalgWalk(sets[first], func(node *zset.ZNode) bool {
			n++
			workDone += folds
			v := zalgWeighted(node.Score(), weight(first))
			// As in Redis, only the walked input's weighted score counts
			// a NaN as 0; the others' are combined as they are, so that a
			// NaN makes a sum 0 and loses to any score under MIN or MAX.
			for _, j := range order[1:] {
				score := node.Score()
				if d := ids[j]; d != ids[first] { // the walked set again: no lookup
					if stamp[d] != n {
						chargeMembers(1)
						other := sets[j].Lookup(node.Name())
						if other == nil {
							return true
						}
						found[d], stamp[d] = other.Score(), n
					}
					score = found[d]
				}
				v = zalgCombine(v, float64(score*weight(j)), a.agg)
			}
			out = append(out, zpair{node.Name(), v})
			return true
		})
	case zalgDiff:
		// The members of the first input that no other one has, with
		// their scores there: none if it is named again. Each other set
		// is looked in once, however many times it is named.
		if zalgNamedAgain(ids) {
			return out
		}
		others := zalgOthers(sets, ids, 0)
		zalgWalk(sets[0], func(node *zset.ZNode) bool {
			for _, other := range others {
				chargeMembers(1)
				if other != nil && other.Lookup(node.Name()) != nil {
					return true
				}
			}
			out = append(out, zpair{node.Name(), node.Score()})
			return true
		})
	}
	return out
}

// zalgOthers is the sets other than the one at input i, each once.
func zalgOthers(sets []*zset.ZSet, ids []int, i int) []*zset.ZSet {
	var out []*zset.ZSet
	taken := make([]bool, len(ids)) // by set
	taken[ids[i]] = true
	for j, d := range ids {
		if !taken[d] {
			taken[d] = true
			out = append(out, sets[j])
		}
	}
	return out
}

// zalgSortWork is what sorting n pairs is charged: about log2(n)
// comparisons a pair, a few to a unit.
func zalgSortWork(n int) int {
	return n * (bits.Len(uint(n))/4 + 1)
}

// zalgSort puts pairs in a sorted set's order, by score and then by name
// as bytes (-0 and 0 being the same score), charging the sort. A
// difference's pairs are in order already.
func zalgSort(op zalgOp, pairs []zpair) {
	if op == zalgDiff {
		return
	}
	workDone += zalgSortWork(len(pairs))
	slices.SortFunc(pairs, func(x, y zpair) int {
		switch {
		case x.score < y.score:
			return -1
		case x.score > y.score:
			return 1
		}
		return strings.Compare(x.name, y.name)
	})
}

// zalgInterCard counts the members every input has, up to limit (0 for no
// limit), without building the intersection. Every member counts when
// one set is named every time: its size is the answer, with no walk.
func zalgInterCard(sets []*zset.ZSet, limit int64) int64 {
	ids, _ := zalgDistinct(sets)
	walked := zalgOrder(zalgInter, sets)[0]
	others := zalgOthers(sets, ids, walked)
	n := int64(0)
	if len(others) == 0 {
		n = int64(zalgLen(sets[walked]))
		if limit > 0 {
			n = min(n, limit)
		}
		return n
	}
	zalgWalk(sets[walked], func(node *zset.ZNode) bool {
		for _, other := range others {
			chargeMembers(1)
			if other.Lookup(node.Name()) == nil {
				return true
			}
		}
		n++
		return limit == 0 || n < limit
	})
	return n
}

// zalgRefused refuses a lone command whose work could pass what a whole
// transaction may do, weighed as EXEC weighs it (its row's cost), and
// reports whether it did: it would hold every other client for as long,
// and its work cannot be split without breaking its atomicity. The
// weighing looks each key up again, as zalgInputs did (and charged).
func zalgRefused(w *respWriter, args [][]byte) bool {
	var plan execPlan
	if e := plan.estimate(w.cmd, args); e > kMaxExecWork {
		w.err(respWorkRefusal(e))
		return true
	}
	return false
}

// respZAlgebraOf returns the handler of ZUNION, ZINTER or ZDIFF (store
// false) or of their STORE forms: numkeys key [key ...] [WEIGHTS weight
// ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES], ZDIFF without WEIGHTS and
// AGGREGATE, the STORE forms without WITHSCORES and with the destination
// first. The result is a list of pairs, which the reply sorts and lists,
// or from which a STORE builds its sorted set.
func respZAlgebraOf(op zalgOp, store bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		at := 1
		if store {
			at = 2
		}
		var a zalgArgs
		keys, rest, errText := zalgKeys(args, at, w.cmd.name)
		if errText != "" {
			w.err(errText)
			return
		}
		a.keys = keys
		sets, ok := zalgInputs(w, keys)
		if !ok {
			return
		}
		if errText := zalgOptions(&a, rest, op, store, false); errText != "" {
			w.err(errText)
			return
		}
		if zalgRefused(w, args) {
			return
		}
		// The pairs are held while the command runs: they count in the
		// clients' budget, reserved before they are made.
		ids, uniq := zalgDistinct(sets)
		bound := zalgBound(op, sets, ids, uniq)
		held := zalgHeld(op, sets, ids, uniq, bound)
		if !budgetMake(w.conn, held) {
			w.err(errReplyMemory)
			return
		}
		inputHeld += held
		defer func() { inputHeld -= held }()
		pairs := zalgPairs(op, sets, ids, uniq, &a, bound)
		if store {
			zalgStore(w, args[1], pairs)
			return
		}
		zalgSort(op, pairs)
		zalgReply(w, pairs, a.withScores)
	}
}

// zalgReply writes the pairs, in order, with their scores if withScores:
// as ZRANGE key 0 -1 would.
func zalgReply(w *respWriter, pairs []zpair, withScores bool) {
	n := len(pairs)
	// Each member takes at least 6 bytes of the reply ("$0\r\n\r\n"): a
	// reply that cannot fit is refused before it is written.
	if 6*n > w.left() {
		w.err(errReplyMemory)
		return
	}
	kv := withScores && w.ver == resp.RESP3
	if withScores && !kv {
		w.outArr(2 * n)
	} else {
		w.outArr(n)
	}
	for _, p := range pairs {
		workDone += kVisitWork
		if kv {
			w.outArr(2)
		}
		w.outStr(p.name)
		if withScores {
			w.outDbl(p.score)
		}
		if w.over {
			return
		}
	}
}

// zalgStore puts the pairs at dest as a sorted set, replacing whatever
// dest held (a value of any type), or deletes dest if there are none; it
// replies their count. As Redis stores them, a score of -0 is 0.
func zalgStore(w *respWriter, dest []byte, pairs []zpair) {
	if old := lookupEntry(dest); old != nil {
		removeEntry(old)
		entryDel(old) // touches dest
	}
	if len(pairs) > 0 {
		out := &zset.ZSet{}
		for _, p := range pairs {
			chargeMembers(1)
			out.Add(p.name, p.score+0)
		}
		ent := newEntry(dest, nil)
		ent.obj = &object{zset: out}
		insertEntry(ent) // touches dest
	}
	w.outInt(int64(len(pairs)))
}

// respZInterCard: ZINTERCARD numkeys key [key ...] [LIMIT limit] counts
// the members of the intersection, stopping at limit (0 for none).
func respZInterCard(st *respState, w *respWriter, args [][]byte) {
	keys, rest, errText := zalgKeys(args, 1, w.cmd.name)
	if errText != "" {
		w.err(errText)
		return
	}
	a := zalgArgs{keys: keys}
	sets, ok := zalgInputs(w, keys)
	if !ok {
		return
	}
	if errText := zalgOptions(&a, rest, zalgInter, false, true); errText != "" {
		w.err(errText)
		return
	}
	if zalgRefused(w, args) {
		return
	}
	w.outInt(zalgInterCard(sets, a.limit))
}

// zalgKeyStats is what the cost functions read of the keys of a command
// of the set algebra, from the data EXEC expects (execPlan): the members
// of the different keys together (sum), of the smallest key and the first,
// those of the keys named again (again), how many keys are different, and
// whether the first is named again.
type zalgKeyStats struct {
	sum, least, first, again, distinct int
	firstAgain                         bool
}

func zalgStatsOf(p *execPlan, keys [][]byte) zalgKeyStats {
	var k zalgKeyStats
	named := make(map[string]bool, len(keys))
	for i, key := range keys {
		m := p.itemLen(key)
		if i == 0 || m < k.least {
			k.least = m
		}
		if i == 0 {
			k.first = m
		}
		if named[string(key)] {
			k.again += m
			k.firstAgain = k.firstAgain || string(key) == string(keys[0])
			continue
		}
		named[string(key)] = true
		k.distinct++
		k.sum += m
	}
	return k
}

// zalgCostKeys returns the keys of a command of the set algebra, read
// where numkeys says, or false for a malformed command (which costs its
// arguments).
func zalgCostKeys(args [][]byte, at int) ([][]byte, bool) {
	if len(args) <= at {
		return nil, false
	}
	n, ok := respInt(args[at])
	if !ok || n < 1 || n > int64(len(args)-at-1) {
		return nil, false
	}
	return args[at+1 : at+1+int(n)], true
}

// costZAlgebra returns the cost function of a command of the set algebra:
// a union walks every different input's members and looks each up in the
// result so far (kProbeWork), and combines the scores of a set named again
// (a unit a member); an intersection or a difference walks one input and
// looks each member up in every other different one, an intersection
// combining the scores of those named again (zalgFoldWork), a difference
// whose first input is named again doing nothing. That bounds the result,
// which is sorted (zalgSortWork, under a lookup a member) and walked for
// the reply. A STORE may replace its destination, and adds the result
// there (a lookup a member, where a reply's sort is).
func costZAlgebra(op zalgOp, store bool) func(p *execPlan, args [][]byte) int {
	return func(p *execPlan, args [][]byte) int {
		at := 1
		if store {
			at = 2
		}
		keys, ok := zalgCostKeys(args, at)
		if !ok {
			return 0
		}
		k := zalgStatsOf(p, keys)
		var bound, work int
		switch op {
		case zalgUnion:
			bound = k.sum
			work = k.sum*(kVisitWork+kProbeWork+kMemberWork) + k.again
		case zalgInter:
			bound = k.least
			work = k.least * (kVisitWork + k.distinct*kMemberWork + zalgFoldWork(len(keys)-k.distinct))
		case zalgDiff:
			if !k.firstAgain {
				bound = k.first
			}
			work = bound * (kVisitWork + k.distinct*kMemberWork)
		}
		work += bound * kVisitWork // the reply's walk
		if store {
			work += p.dropBound(args[1])
			p.addItems(args[1], bound)
		}
		return work + len(keys)
	}
}

// costZInterCard: ZINTERCARD walks its smallest input and looks each
// member up in every other different one; one set named every time it
// counts without a walk. LIMIT does not lower that bound: the members
// the walk passes before it finds the limit's are not bounded by it.
func costZInterCard(p *execPlan, args [][]byte) int {
	keys, ok := zalgCostKeys(args, 1)
	if !ok {
		return 0
	}
	k := zalgStatsOf(p, keys)
	if k.distinct == 1 {
		return len(keys)
	}
	return k.least*(kVisitWork+(k.distinct-1)*kMemberWork) + len(keys)
}
