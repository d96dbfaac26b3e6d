package server

import (
	"math/bits"
	"strconv"

	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/zset"
)

// The ranges of a sorted set, one implementation for every command that
// takes one: ZRANGE in all its forms (by rank, BYSCORE, BYLEX, REV,
// LIMIT, WITHSCORES), the older ZREVRANGE, ZRANGEBYSCORE,
// ZREVRANGEBYSCORE, ZRANGEBYLEX and ZREVRANGEBYLEX, which are ZRANGE with
// some options fixed by their names, ZRANGESTORE, ZCOUNT and ZLEXCOUNT,
// and ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX.
//
// A range is found by a seek down the tree (O(log n): ByRank, SeekScore,
// SeekLex and their reverses in package zset) and walked one member at a
// time from there (Next or Prev, O(1) a step on average), each step
// charged to the work meter as it is taken. A count is the difference of
// the ranks of the range's two ends, O(log n) however many it holds.

// zrangeBy is the kind of a range: of ranks, of scores or of names.
type zrangeBy uint8

const (
	zByAuto  zrangeBy = iota // not fixed by the name: ZRANGE's options choose
	zByRank                  // start and stop, counted from 0, negative from the end
	zByScore                 // min and max scores, "(" for exclusive
	zByLex                   // min and max names: "[a", "(a", "-", "+"
)

// zrangeForm is what a command's name fixes about its range.
type zrangeForm struct {
	by    zrangeBy
	rev   bool // the name says REV: the ends come max first, and REV is refused
	store bool // ZRANGESTORE: a destination before the key, no WITHSCORES
}

// zrangeSpec is a parsed range: its kind, its ends and its options.
type zrangeSpec struct {
	by          zrangeBy
	rev         bool
	start, stop int64 // by rank
	min, max    float64
	minEx       bool // by score
	maxEx       bool
	lmin, lmax  zset.LexBound // by lex
	// offset and limit are LIMIT's: members skipped, then at most limit
	// taken, all of them for a negative limit.
	offset, limit int64
	withScores    bool
}

// Redis's texts for a range's errors.
const (
	errScoreRange = "ERR min or max is not a float"
	errLexRange   = "ERR min or max not valid string range item"
)

// parseZRange reads the range arguments args of a command of form: the
// key, the two ends, then the options. As Redis does, the options are read
// first (a bad LIMIT number is the first error), then checked against each
// other, then the ends are parsed by the kind of range chosen; the key is
// not looked at. It returns the error to answer, "" for none.
func parseZRange(args [][]byte, form zrangeForm) (r zrangeSpec, errText string) {
	r.by, r.rev, r.limit = form.by, form.rev, -1
	for i := 3; i < len(args); i++ {
		switch opt := args[i]; {
		case !form.store && cmdIs(opt, "withscores"):
			r.withScores = true
		case cmdIs(opt, "limit") && i+2 < len(args):
			var ok1, ok2 bool
			if r.offset, ok1 = respInt(args[i+1]); !ok1 {
				return r, errNotInt
			}
			if r.limit, ok2 = respInt(args[i+2]); !ok2 {
				return r, errNotInt
			}
			i += 2
		case form.by == zByAuto && !r.rev && cmdIs(opt, "rev"):
			r.rev = true
		case r.by == zByAuto && cmdIs(opt, "bylex"):
			r.by = zByLex
		case r.by == zByAuto && cmdIs(opt, "byscore"):
			r.by = zByScore
		default:
			return r, errSyntax
		}
	}
	if r.by == zByAuto {
		r.by = zByRank
	}
	switch {
	case r.limit != -1 && r.by == zByRank:
		return r, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	case r.withScores && r.by == zByLex:
		return r, "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	}
	lo, hi := args[1], args[2]
	if r.rev && r.by != zByRank {
		lo, hi = hi, lo // by score or lex, REV's range is given max first
	}
	var ok1, ok2 bool
	switch r.by {
	case zByRank:
		r.start, ok1 = respInt(lo)
		r.stop, ok2 = respInt(hi)
		if !ok1 || !ok2 {
			return r, errNotInt
		}
	case zByScore:
		r.min, r.minEx, ok1 = respBound(lo)
		r.max, r.maxEx, ok2 = respBound(hi)
		if !ok1 || !ok2 {
			return r, errScoreRange
		}
	case zByLex:
		r.lmin, ok1 = parseLexBound(lo)
		r.lmax, ok2 = parseLexBound(hi)
		if !ok1 || !ok2 {
			return r, errLexRange
		}
	}
	return r, ""
}

// parseLexBound reads one end of a range of names as Redis does: "[" or
// "(" and a name (inclusive or exclusive), or "-" or "+" alone. Redis
// reads the argument as a C string there, so a "-" or "+" followed by a
// NUL byte counts as alone.
func parseLexBound(b []byte) (zset.LexBound, bool) {
	if len(b) == 0 {
		return zset.LexBound{}, false
	}
	switch b[0] {
	case '-', '+':
		if len(b) > 1 && b[1] != 0 {
			return zset.LexBound{}, false
		}
		inf := int8(-1)
		if b[0] == '+' {
			inf = +1
		}
		return zset.LexBound{Inf: inf, Exclusive: true}, true
	case '(', '[':
		return zset.LexBound{Name: string(b[1:]), Exclusive: b[0] == '('}, true
	}
	return zset.LexBound{}, false
}

// lexWork is what comparing a name with the range's ends costs, besides
// the step: their bytes, kWorkBytes to a unit.
func (r *zrangeSpec) lexWork() int {
	if r.by != zByLex {
		return 0
	}
	return (len(r.lmin.Name) + len(r.lmax.Name)) / kWorkBytes
}

// kSeekWork is what a descent of the tree to a range's end costs: the
// walk down of a member found by name (kMemberWork) without its hash
// probe, allocation or rebalancing, about a quarter of it.
const kSeekWork = kMemberWork / 4

// chargeSeek charges a descent of z's tree, and the names compared with
// the range's ends on the way down.
func (r *zrangeSpec) chargeSeek(z *zset.ZSet) {
	workDone += kSeekWork + z.Height()*r.lexWork()
}

// inMin and inMax report whether node is within the range's low and high
// end, by score or by name.
func (r *zrangeSpec) inMin(node *zset.ZNode) bool {
	if r.by == zByLex {
		return r.lmin.AtLeast(node.Name())
	}
	return node.Score() > r.min || !r.minEx && node.Score() == r.min
}

func (r *zrangeSpec) inMax(node *zset.ZNode) bool {
	if r.by == zByLex {
		return r.lmax.AtMost(node.Name())
	}
	return node.Score() < r.max || !r.maxEx && node.Score() == r.max
}

// empty reports whether the range, by score or by name, holds nothing
// in any set: its max is below its min.
func (r *zrangeSpec) empty() bool {
	if r.by == zByLex {
		return zset.Empty(r.lmin, r.lmax)
	}
	return zset.ScoreEmpty(r.min, r.minEx, r.max, r.maxEx)
}

// first returns the lowest member of a range by score or by name, nil if
// it holds none; last, the highest. As Redis does, before seeking they
// check that the range reaches the set's ends, which for a range of names
// over mixed scores (where names are not in order) decides some answers.
func (r *zrangeSpec) first(z *zset.ZSet) *zset.ZNode { return r.seek(z, false) }

func (r *zrangeSpec) last(z *zset.ZSet) *zset.ZNode { return r.seek(z, true) }

// seek is first, or last if rev.
func (r *zrangeSpec) seek(z *zset.ZSet, rev bool) *zset.ZNode {
	// exercise: ch31-zrange-walk
	if r.empty() || z.Len() == 0 || !r.inMin(z.Last()) || !r.inMax(z.First()) {
		return nil
	}
	r.chargeSeek(z)
	var node *zset.ZNode
	switch {
	case r.by == zByLex && rev:
		node = z.SeekLexRev(r.lmax)
	case r.by == zByLex:
		node = z.SeekLex(r.lmin)
	case rev:
		node = z.SeekScoreRev(r.max, r.maxEx)
	default:
		node = z.SeekScore(r.min, r.minEx)
	}
	if node == nil || rev && !r.inMin(node) || !rev && !r.inMax(node) {
		return nil // past the range's other end
	}
	return node
	// end exercise: ch31-zrange-walk
}

// rankSpan turns a range by rank into the ranks it covers in a set of n
// members, from lo to hi counted from the first (REV counts from the
// last), as Redis does: negative ranks count from the end, and ranks past
// it are cut. ok is false for an empty span.
func (r *zrangeSpec) rankSpan(n int64) (lo, hi int64, ok bool) {
	start, stop := r.start, r.stop
	if start < 0 {
		start = max(n+start, 0)
	}
	if stop < 0 {
		stop = n + stop
	}
	if start > stop || start >= n {
		return 0, 0, false
	}
	stop = min(stop, n-1)
	if r.rev {
		start, stop = n-1-stop, n-1-start
	}
	return start, stop, true
}

// walk calls visit for each member of the range in the range's order
// (highest first for REV), after LIMIT's offset and up to its limit, until
// visit returns false. Each step is charged as it is taken.
func (r *zrangeSpec) walk(z *zset.ZSet, visit func(node *zset.ZNode) bool) {
	step := z.Next
	if r.rev {
		step = z.Prev
	}
	if r.by == zByRank {
		lo, hi, ok := r.rankSpan(int64(z.Len()))
		if !ok {
			return
		}
		r.chargeSeek(z)
		first := lo
		if r.rev {
			first = hi
		}
		node, n := z.ByRank(first), hi-lo+1
		for ; node != nil && n > 0; n-- {
			workDone += kVisitWork
			if !visit(node) {
				return
			}
			node = step(node)
		}
		return
	}
	// exercise: ch31-zrange-walk
	// As in Redis, a negative offset skips past every member, and a
	// negative limit takes all.
	if r.offset < 0 || r.offset > 0 && r.offset >= int64(z.Len()) {
		return
	}
	var node *zset.ZNode
	if r.rev {
		node = r.last(z)
	} else {
		node = r.first(z)
	}
	if node != nil && r.offset > 0 {
		// Redis steps over the offset's members one by one, whether or
		// not they are in the range; the subtree counts jump there.
		workDone += kSeekWork
		if r.rev {
			node = z.Offset(node, -r.offset)
		} else {
			node = z.Offset(node, r.offset)
		}
	}
	in := r.inMax
	if r.rev {
		in = r.inMin
	}
	for limit := r.limit; node != nil && limit != 0; limit-- {
		workDone += kVisitWork + r.lexWork()
		if !in(node) || !visit(node) {
			return
		}
		node = step(node)
	}
	// end exercise: ch31-zrange-walk
}

// count returns how many members the range by score or by name holds:
// the difference of its ends' ranks, plus one.
func (r *zrangeSpec) count(z *zset.ZSet) int64 {
	first := r.first(z)
	if first == nil {
		return 0
	}
	last := r.last(z)
	if last == nil {
		return 0
	}
	workDone += kSeekWork // the ranks: a climb to the root each
	return max(0, z.Rank(last)-z.Rank(first)+1)
}

// size returns how many members the walk of the range would visit, from
// the ranks of its ends: O(log n). (Over mixed scores a range of names
// may walk fewer; never more.)
func (r *zrangeSpec) size(z *zset.ZSet) int64 {
	if r.by == zByRank {
		lo, hi, ok := r.rankSpan(int64(z.Len()))
		if !ok {
			return 0
		}
		return hi - lo + 1
	}
	if r.offset < 0 {
		return 0
	}
	n := max(0, r.count(z)-r.offset)
	if r.limit >= 0 {
		n = min(n, r.limit)
	}
	return n
}

// kZRangeMaxChange bounds the members one ZRANGESTORE may store, or one
// ZREMRANGEBY* remove from a set it does not empty. Each is a member put
// into (or taken out of) a tree and a hash table, 1 to 4 us in a large
// set, and a command runs whole: a million of them would hold the event
// loop for seconds. Past it the command is refused before it changes
// anything (the range's size is known from its ends' ranks, in O(log n)),
// as KEYS is past kKeysMaxScan; Redis has no such limit. A removal that
// empties the set deletes the key instead, which hands a large set to the
// thread pool as DEL does.
const kZRangeMaxChange = 1 << 16

// errZRangeTooBig is the refusal of a range past kZRangeMaxChange.
func errZRangeTooBig(n int64) string {
	return "ERR the range holds " + strconv.FormatInt(n, 10) + " members, more than one command may store or remove (" +
		strconv.Itoa(kZRangeMaxChange) + ")"
}

// respZRangeOf returns the handler of a range command of form: ZRANGE,
// ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX,
// ZREVRANGEBYLEX (which reply the members) and ZRANGESTORE (which stores
// them).
func respZRangeOf(form zrangeForm) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		src := args[1:]
		if form.store {
			src = args[2:]
		}
		r, errText := parseZRange(src, form)
		if errText != "" {
			w.err(errText)
			return
		}
		ent, ok := zsetOf(w, src[0])
		if !ok {
			return
		}
		if form.store {
			zrangeStore(w, args[1], ent, &r)
			return
		}
		respZRangeReply(w, ent, &r)
	}
}

// respZRangeReply writes the members of the range, with their scores if
// asked: in RESP3 as [member, score] pairs, in RESP2 one after the other.
// The members are written as they are found, and the array's length put
// before them at the end; a reply that grows past what the budget can
// hold stops the walk (see respWriter), and the caller answers an error.
func respZRangeReply(w *respWriter, ent *entry, r *zrangeSpec) {
	if ent == nil {
		w.outArr(0)
		return
	}
	pairs := r.withScores && w.ver == resp.RESP3
	n := 0
	at := w.beginArr()
	r.walk(ent.obj.zset, func(node *zset.ZNode) bool {
		if pairs {
			w.outArr(2)
		}
		w.outStr(node.Name())
		if r.withScores {
			w.outDbl(node.Score())
		}
		n++
		return !w.over
	})
	if r.withScores && !pairs {
		n *= 2
	}
	w.endArr(at, n)
}

// zrangeStore stores the range of the set ent (nil for none) at dst as a
// new sorted set, replacing whatever dst held, and replies its length. An
// empty range deletes dst, as Redis does. The new set is built whole
// before dst is touched, so dst may be the source itself.
func zrangeStore(w *respWriter, dst []byte, ent *entry, r *zrangeSpec) {
	out := &zset.ZSet{}
	if ent != nil {
		if n := r.size(ent.obj.zset); n > kZRangeMaxChange {
			w.err(errZRangeTooBig(n))
			return
		}
		r.walk(ent.obj.zset, func(node *zset.ZNode) bool {
			chargeMembers(1)
			out.Add(node.Name(), node.Score())
			return true
		})
	}
	if out.Len() == 0 {
		deleteKey(dst)
		w.outInt(0)
		return
	}
	if old := lookupEntry(dst); old != nil {
		removeEntry(old)
		entryDel(old)
	}
	stored := newEntry(dst, nil)
	stored.obj = &object{zset: out}
	insertEntry(stored)
	w.outInt(int64(out.Len()))
}

// zrangeFor reads the range of a command that counts or removes one (key
// min max), then finds the sorted set as zsetFor does. A range that does
// not parse is answered first, then a key of another type, then a missing
// key (0, for the counts and the removals alike): a nil entry.
func zrangeFor(w *respWriter, args [][]byte, by zrangeBy) (*entry, zrangeSpec) {
	r, errText := parseZRange(args[1:], zrangeForm{by: by})
	if errText != "" {
		w.err(errText)
		return nil, r
	}
	return zsetFor(w, args[1], replyZero), r
}

// respZCountBy returns ZCOUNT key min max (by score) or ZLEXCOUNT key min
// max (by name): how many members the range holds, in O(log n).
func respZCountBy(by zrangeBy) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		if ent, r := zrangeFor(w, args, by); ent != nil {
			w.outInt(r.count(ent.obj.zset))
		}
	}
}

// respZRemRangeBy returns ZREMRANGEBYRANK, ZREMRANGEBYSCORE or
// ZREMRANGEBYLEX key min max: removes the range's members and replies how
// many, deleting the key once its last member goes.
func respZRemRangeBy(by zrangeBy) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		ent, r := zrangeFor(w, args, by)
		if ent == nil {
			return
		}
		z := ent.obj.zset
		switch n := r.size(z); {
		case n == int64(z.Len()) && n > 0 && (r.by != zByLex || z.First().Score() == z.Last().Score()):
			// All of it: the key goes, torn down as DEL tears it down.
			// (A range of names over mixed scores, whose walk may stop
			// early, is walked.)
			removeEntry(ent)
			entryDel(ent)
			w.outInt(n)
			return
		case n > kZRangeMaxChange:
			w.err(errZRangeTooBig(n))
			return
		}
		removed := int64(0)
		var doomed *zset.ZNode // removed once the walk has stepped past it
		r.walk(z, func(node *zset.ZNode) bool {
			if doomed != nil {
				z.Delete(doomed)
			}
			chargeMembers(1)
			doomed = node
			removed++
			return true
		})
		if doomed != nil {
			z.Delete(doomed)
		}
		if removed > 0 {
			touchKey(args[1])
		}
		if z.Len() == 0 {
			removeEntry(ent)
			entryDel(ent)
		}
		w.outInt(removed)
	}
}

// zrangeBound bounds, for EXEC, the members a range command's walk may
// visit in a set of n: its rank span or LIMIT's count, at most the set.
func zrangeBound(r *zrangeSpec, n int) int {
	if r.by == zByRank {
		if lo, hi, ok := r.rankSpan(int64(n)); ok {
			return int(hi - lo + 1)
		}
		return 0
	}
	if r.limit >= 0 {
		return int(min(int64(n), r.limit))
	}
	return n
}

// What a range command does with its range, for its cost.
const (
	zcostReply  = iota // replies the members
	zcostStore         // stores them (ZRANGESTORE)
	zcostRemove        // removes them
	zcostCount         // counts them from two seeks
)

// zrangeCost is the cost function of a range command of form (by:
// zByAuto for ZRANGE's options) doing what with its range: its seeks, and
// each member its walk may visit, and for ZRANGESTORE and the removals
// each member stored or removed. A range that does not parse costs
// nothing: it is refused before any work.
func zrangeCost(form zrangeForm, what int) func(p *execPlan, args [][]byte) int {
	return func(p *execPlan, args [][]byte) int {
		src := args[1:]
		if form.store {
			src = args[2:]
		}
		r, errText := parseZRange(src, form)
		if errText != "" {
			return 0
		}
		size := p.itemLen(src[0])
		height := 2*bits.Len(uint(size)) + 2 // an AVL tree's is under 1.45 log2(n+2)
		// Two seeks (a count: and a climb for the ranks).
		work := 2 * (kSeekWork + height*r.lexWork())
		n := zrangeBound(&r, size)
		if what == zcostCount {
			work += kSeekWork
		} else {
			work += n * (kVisitWork + r.lexWork())
		}
		switch what {
		case zcostStore:
			work += n*kMemberWork + p.dropBound(args[1])
			p.addItems(args[1], n)
		case zcostRemove:
			work += n*kMemberWork + p.dropBound(src[0])
		}
		return work
	}
}

// zrangeRow is the row of a command that replies a sorted set's range
// (cmd_zset_range.go): its one key is the first argument.
func zrangeRow(name string, arity int, flags cmdFlags, form zrangeForm) *command {
	return &command{name: name, arity: arity, flags: flags, first: 1, last: 1, step: 1,
		resp: respZRangeOf(form), cost: zrangeCost(form, zcostReply)}
}
