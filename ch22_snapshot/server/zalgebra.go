package server

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"example.com/byor/ch22_snapshot/resp"
	"example.com/byor/ch22_snapshot/zset"
)

// The set algebra: ZUNION, ZINTER and ZDIFF, their STORE forms, and
// ZINTERCARD. Each is a merge over the members: the members of one input
// are walked in order, each looked up by name in the others (or in the
// result so far, for a union). The result is a list of (member, score)
// pairs: a reply sorts it and lists it, as ZRANGE would a sorted set of
// them, without building one; the STORE forms build the sorted set and
// put it at their key. A key that does not exist is an empty set; inputs that
// are plain sets (SADD's) are out of reach: this server has none.

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
		ent, ok := respZSet(w, key)
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

// zalgBound bounds the members of the result: the sum of the inputs' for
// a union, the smallest input's for an intersection, the first one's for
// a difference.
func zalgBound(op zalgOp, sets []*zset.ZSet) int {
	n := 0
	for i, z := range sets {
		switch {
		case op == zalgUnion:
			n += zalgLen(z)
		case op == zalgDiff && i > 0:
		case op == zalgDiff, i == 0:
			n = zalgLen(z)
		default:
			n = min(n, zalgLen(z))
		}
	}
	return n
}

// zalgWeighted is a score times its input's weight; a product that is not
// a number (0 times an infinity) counts as 0, as in Redis.
func zalgWeighted(score, weight float64) float64 {
	if v := score * weight; !math.IsNaN(v) {
		return v
	}
	return 0
}

// zalgCombine combines a member's score so far with its score in another
// input, as Redis does: a sum that is not a number (inf plus -inf) counts
// as 0, and MIN and MAX keep the score so far unless v is below (above)
// it, so a v that is not a number never wins.
func zalgCombine(acc, v float64, agg zalgAgg) float64 {
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
	if s := acc + v; !math.IsNaN(s) {
		return s
	}
	return 0
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

// kZPairBytes is what a zpair holds (a string's header and a score);
// kZSlotBytes, about what a union's index takes a member: a slot of the
// map (its name's header and an index), its control byte, and room for
// the map's load factor and its doubling.
const (
	kZPairBytes = 24
	kZSlotBytes = 64
)

// zalgHeld is the bytes zalgPairs may hold for a result of at most bound
// members: the pairs, and for a union its index of them.
func zalgHeld(op zalgOp, bound int) int {
	if op == zalgUnion {
		return bound * (kZPairBytes + kZSlotBytes)
	}
	return bound * kZPairBytes
}

// zalgPairs merges the inputs into the members of the result with their
// scores, in no particular order but a difference's, which keeps its
// first input's order, charging the work as it goes: each member walked
// (kVisitWork), each looked up by name in another input or in the union
// so far (kMemberWork). bound bounds the members (zalgBound).
//
// A union finds the members it has so far in a Go map keyed by their
// names: the names are clients', but Go seeds each map's hash afresh, so
// a client cannot choose names that collide in it.
func zalgPairs(op zalgOp, sets []*zset.ZSet, a *zalgArgs, bound int) []zpair {
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
		// new in the result is added, one already there combined.
		at := make(map[string]int, bound)
		for _, i := range order {
			zalgWalk(sets[i], func(node *zset.ZNode) bool {
				v := zalgWeighted(node.Score(), weight(i))
				chargeMembers(1) // looked up in the result
				if j, ok := at[node.Name()]; ok {
					out[j].score = zalgCombine(out[j].score, v, a.agg)
				} else {
					at[node.Name()] = len(out)
					out = append(out, zpair{node.Name(), v})
				}
				return true
			})
		}
	case zalgInter:
		// The members of the smallest input that every other one has.
		first := order[0]
		zalgWalk(sets[first], func(node *zset.ZNode) bool {
			v := zalgWeighted(node.Score(), weight(first))
			// As in Redis, only the walked input's weighted score counts
			// a NaN as 0; the others' are combined as they are, so that a
			// NaN makes a sum 0 and loses to any score under MIN or MAX.
			for _, j := range order[1:] {
				score := node.Score()
				if sets[j] != sets[first] { // the same key again: no lookup
					chargeMembers(1)
					other := sets[j].Lookup(node.Name())
					if other == nil {
						return true
					}
					score = other.Score()
				}
				v = zalgCombine(v, score*weight(j), a.agg)
			}
			out = append(out, zpair{node.Name(), v})
			return true
		})
	case zalgDiff:
		// The members of the first input that no other one has, with
		// their scores there.
		zalgWalk(sets[0], func(node *zset.ZNode) bool {
			for _, other := range sets[1:] {
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
// limit), without building the intersection.
func zalgInterCard(sets []*zset.ZSet, limit int64) int64 {
	order := zalgOrder(zalgInter, sets)
	n := int64(0)
	zalgWalk(sets[order[0]], func(node *zset.ZNode) bool {
		for _, j := range order[1:] {
			chargeMembers(1)
			if sets[j].Lookup(node.Name()) == nil {
				return true
			}
		}
		n++
		return limit == 0 || n < limit
	})
	return n
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
		keys, rest, errText := zalgKeys(args, at, running.name)
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
		// The pairs are held while the command runs: they count in the
		// clients' budget, reserved before they are made.
		bound := zalgBound(op, sets)
		held := zalgHeld(op, bound)
		if !budgetMake(w.conn, held) {
			w.err(errReplyMemory)
			return
		}
		inputHeld += held
		defer func() { inputHeld -= held }()
		pairs := zalgPairs(op, sets, &a, bound)
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
	keys, rest, errText := zalgKeys(args, 1, running.name)
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
	w.outInt(zalgInterCard(sets, a.limit))
}

// respZMScore: ZMSCORE key member [member ...] replies each member's
// score, null for one the set does not have (every one, if there is no
// set).
func respZMScore(st *respState, w *respWriter, args [][]byte) {
	ent, ok := respZSet(w, args[1])
	if !ok {
		return
	}
	w.outArr(len(args) - 2)
	for _, m := range args[2:] {
		chargeMembers(1)
		var node *zset.ZNode
		if ent != nil {
			node = ent.obj.zset.LookupBytes(m)
		}
		if node == nil {
			w.outNil()
		} else {
			w.outDbl(node.Score())
		}
	}
}

// costZAlgebra returns the cost function of a command of the set algebra:
// a union walks every input's members and looks each up in the result so
// far; an intersection or a difference walks one input and looks each
// member up in every other; that bounds the result, which is sorted
// (zalgSortWork, under a lookup a member) and walked for the reply. A
// STORE may replace its destination, and adds the result there (a lookup
// a member, where a reply's sort is). Keys are read where numkeys says; a malformed command
// costs its arguments.
func costZAlgebra(op zalgOp, store bool) func(p *execPlan, args [][]byte) int {
	return func(p *execPlan, args [][]byte) int {
		at := 1
		if store {
			at = 2
		}
		if len(args) <= at {
			return 0
		}
		n, ok := respInt(args[at])
		if !ok || n < 1 || n > int64(len(args)-at-1) {
			return 0
		}
		keys := args[at+1 : at+1+int(n)]
		sum, least, first := 0, -1, 0
		for i, key := range keys {
			m := p.itemLen(key)
			sum += m
			if least < 0 || m < least {
				least = m
			}
			if i == 0 {
				first = m
			}
		}
		var bound, work int
		switch op {
		case zalgUnion:
			bound = sum
			work = sum * (kVisitWork + 2*kMemberWork)
		case zalgInter:
			bound = least
			work = least * (kVisitWork + len(keys)*kMemberWork)
		case zalgDiff:
			bound = first
			work = first * (kVisitWork + len(keys)*kMemberWork)
		}
		work += bound * kVisitWork // the reply's walk
		if store {
			work += p.dropBound(args[1])
			p.addItems(args[1], bound)
		}
		return work + len(keys)
	}
}
