package server

import (
	"math"
	"slices"

	"example.com/byor/ch22_snapshot/resp"
	"example.com/byor/ch22_snapshot/zset"
)

// The set algebra: ZUNION, ZINTER and ZDIFF, their STORE forms, and
// ZINTERCARD. Each is a merge over the members: the members of one input
// are walked in order, each looked up by name in the others (or in the
// result, for a union), and the result is a sorted set like any other,
// which the reply walks in order as ZRANGE does, or which the STORE forms
// put at their key. A key that does not exist is an empty set; inputs that
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
	// store: the result goes to a key, where, as Redis stores it, a
	// score of -0 is 0; a reply shows -0.
	store bool
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

// stored is the score a result holds for v: -0 is 0 in a stored one.
func (a *zalgArgs) stored(v float64) float64 {
	if a.store {
		return v + 0
	}
	return v
}

// zalgCompute merges the inputs into a new sorted set, charging the work
// as it goes: each member walked (kVisitWork), each looked up by name in
// another input or in the result, each added to the result (kMemberWork).
func zalgCompute(op zalgOp, sets []*zset.ZSet, a *zalgArgs) *zset.ZSet {
	weight := func(i int) float64 {
		if a.weights == nil {
			return 1
		}
		return a.weights[i]
	}
	out := &zset.ZSet{}
	order := zalgOrder(op, sets)
	switch op {
	case zalgUnion:
		// Every member of every input, from the smallest input on: one
		// new in the result is added, one already there combined.
		for _, i := range order {
			zalgWalk(sets[i], func(node *zset.ZNode) bool {
				v := zalgWeighted(node.Score(), weight(i))
				chargeMembers(2) // looked up in the result, then added or updated
				v = a.stored(v)
				if have := out.Lookup(node.Name()); have != nil {
					v = a.stored(zalgCombine(have.Score(), v, a.agg))
					if v == 0 && math.Signbit(v) != math.Signbit(have.Score()) {
						// Add keeps a score equal to the new one, and -0
						// equals 0: the member goes, to come back with v.
						out.Pop(node.Name())
					}
				}
				out.Add(node.Name(), v)
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
			chargeMembers(1)
			out.Add(node.Name(), a.stored(v))
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
			chargeMembers(1)
			out.Add(node.Name(), a.stored(node.Score()))
			return true
		})
	}
	return out
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

// kZMemberBytes is about what a member of a sorted set holds besides its
// name: its node in the tree and in the hash table, its score (object.go's
// kZNodeBytes), and its share of the hash table's array. The result of
// ZUNION, ZINTER or ZDIFF is held while its reply is written, in the
// clients' budget.
const kZMemberBytes = kZNodeBytes + 32

// respZAlgebraOf returns the handler of ZUNION, ZINTER or ZDIFF (store
// false) or of their STORE forms: numkeys key [key ...] [WEIGHTS weight
// ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES], ZDIFF without WEIGHTS and
// AGGREGATE, the STORE forms without WITHSCORES and with the destination
// first.
func respZAlgebraOf(op zalgOp, store bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		at := 1
		if store {
			at = 2
		}
		a := zalgArgs{store: store}
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
		if store {
			zalgStore(w, args[1], zalgCompute(op, sets, &a))
			return
		}
		// The result is held while the reply is written: its members
		// count in the clients' budget, reserved before it is built.
		held := zalgBound(op, sets) * kZMemberBytes
		if !budgetMake(w.conn, held) {
			w.err(errReplyMemory)
			return
		}
		inputHeld += held
		defer func() { inputHeld -= held }()
		out := zalgCompute(op, sets, &a)
		zalgReply(w, out, a.withScores)
	}
}

// zalgReply writes the members of out in order, with their scores if
// withScores: as ZRANGE key 0 -1 would.
func zalgReply(w *respWriter, out *zset.ZSet, withScores bool) {
	n := out.Len()
	// Each member takes at least 6 bytes of the reply ("$0\r\n\r\n"): a
	// reply that cannot fit is refused before it is written.
	if 6*n > w.left() {
		w.err(errReplyMemory)
		return
	}
	pairs := withScores && w.ver == resp.RESP3
	if withScores && !pairs {
		w.outArr(2 * n)
	} else {
		w.outArr(n)
	}
	zalgWalk(out, func(node *zset.ZNode) bool {
		if pairs {
			w.outArr(2)
		}
		w.outStr(node.Name())
		if withScores {
			w.outDbl(node.Score())
		}
		return !w.over
	})
}

// zalgStore puts out at dest, replacing whatever dest held (a value of
// any type), or deletes dest if out is empty; it replies out's size.
func zalgStore(w *respWriter, dest []byte, out *zset.ZSet) {
	if old := lookupEntry(dest); old != nil {
		removeEntry(old)
		entryDel(old) // touches dest
	}
	if out.Len() > 0 {
		ent := newEntry(dest, nil)
		ent.obj = &object{zset: out}
		insertEntry(ent) // touches dest
	}
	w.outInt(int64(out.Len()))
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
// a union walks every input's members, looks each up in the result and
// adds or updates it there; an intersection or a difference walks one
// input and looks each member up in every other; and the result is walked
// again for the reply. A STORE may replace its destination, and adds the
// result there. Keys are read where numkeys says; a malformed command
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
