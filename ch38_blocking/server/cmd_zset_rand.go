package server

import (
	"math"
	"math/rand/v2"

	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/zset"
)

// ZRANDMEMBER key [count [WITHSCORES]]. A member is picked by rank: a
// random place in [0, n), and the subtree counts find it in O(log n).
// Without a count, one member (null if there is no set). A positive count
// is that many distinct members (the whole set if it has no more); a
// negative one, -count members picked independently, repeats allowed.

// kRandSnapshotShare: when a command picks at least a set's size over
// kRandSnapshotShare members, it first lists the set's members in an
// array (a walk in order, kVisitWork each) and picks from that, which is
// cheaper than as many seeks down the tree (kMemberWork each). The array
// holds each member's name and score, not its node: a pick lands anywhere
// in the set, and reading a node there would be one more cache miss a
// member than the walk in order pays.
const kRandSnapshotShare = 8

// zRandPicker picks members of z by rank, from a list of them in order if
// asked for enough picks (see kRandSnapshotShare).
type zRandPicker struct {
	z     *zset.ZSet
	first *zset.ZNode
	all   []zpair
}

// newZRandPicker returns a picker for picks members of z. Its list, if it
// makes one, is held in the clients' budget (kZPairBytes a member) until
// release: it returns false, holding nothing, if the budget cannot.
func newZRandPicker(w *respWriter, z *zset.ZSet, picks int64) (*zRandPicker, bool) {
	p := &zRandPicker{z: z, first: z.First()}
	n := z.Len()
	if picks < int64(n/kRandSnapshotShare) {
		return p, true
	}
	if !budgetMake(w.conn, kZPairBytes*n) {
		return nil, false
	}
	inputHeld += kZPairBytes * n
	p.all = make([]zpair, 0, n)
	for node := p.first; node != nil; node = z.Next(node) {
		workDone += kVisitWork
		p.all = append(p.all, zpair{node.Name(), node.Score()})
	}
	return p, true
}

// release gives the list's memory back to the budget.
func (p *zRandPicker) release() {
	if p.all != nil {
		inputHeld -= kZPairBytes * cap(p.all)
		p.all = nil
	}
}

// at returns the member of rank r.
func (p *zRandPicker) at(r int) zpair {
	if p.all != nil {
		workDone++
		return p.all[r]
	}
	chargeMembers(1) // a seek down the tree
	node := p.z.Offset(p.first, int64(r))
	return zpair{node.Name(), node.Score()}
}

// respZRandMember: ZRANDMEMBER key [count [WITHSCORES]], with Redis 7.0's
// range errors: a count of -2^63 has no positive twin, and with WITHSCORES
// one past half the range would double past it.
func respZRandMember(st *respState, w *respWriter, args [][]byte) {
	if len(args) == 2 {
		if ent := zsetFor(w, args[1], replyWriter.outNil); ent != nil {
			z := ent.obj.zset
			chargeMembers(1)
			w.outStr(z.ByRank(rand.Int64N(int64(z.Len()))).Name())
		}
		return
	}
	count, ok := respInt(args[2])
	switch {
	case !ok:
		w.err(errNotInt)
		return
	case count == math.MinInt64:
		w.err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return
	case len(args) > 4 || len(args) == 4 && !cmdIs(args[3], "withscores"):
		w.err(errSyntax)
		return
	}
	withScores := len(args) == 4
	if withScores && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		w.err("ERR value is out of range")
		return
	}
	ent := zsetForCount(w, args[1], count)
	if ent == nil {
		return
	}
	z := ent.obj.zset
	n := int64(z.Len())
	picks := count
	if count < 0 {
		picks = -count
	} else {
		picks = min(count, n)
	}
	// Each member takes at least 6 bytes of the reply ("$0\r\n\r\n"), 10
	// with its score: a reply that cannot fit is refused before any work,
	// however large the count.
	per := int64(6)
	if withScores {
		per = 10
	}
	if picks > int64(w.left())/per {
		w.err(errReplyMemory)
		return
	}
	// The picks run whole, in one request: if their work could pass what
	// a transaction may, the request is refused before any.
	if estimate := zRandWork(n, count) + picks*per/kWorkBytes; estimate > kMaxExecWork {
		w.err(respWorkRefusal(int(estimate)))
		return
	}
	// The whole set, by a walk in order, needs no list.
	listFor := picks
	if count > 0 && picks == n {
		listFor = 0
	}
	p, ok := newZRandPicker(w, z, listFor)
	if !ok {
		w.err(errReplyMemory)
		return
	}
	defer p.release()
	// Distinct picks without a list draw their ranks first: held in the
	// clients' budget while they are.
	if held := int(picks) * kRandRankBytes; count > 0 && picks < n && p.all == nil {
		if !budgetMake(w.conn, held) {
			w.err(errReplyMemory)
			return
		}
		inputHeld += held
		defer func() { inputHeld -= held }()
	}
	pairs := withScores && w.ver == resp.RESP3
	if withScores && !pairs {
		w.outArr(int(2 * picks))
	} else {
		w.outArr(int(picks))
	}
	emit := func(m zpair) bool {
		if pairs {
			w.outArr(2)
		}
		w.outStr(m.name)
		if withScores {
			w.outDbl(m.score)
		}
		return !w.over
	}
	switch {
	case count < 0:
		for range picks {
			if !emit(p.at(rand.IntN(int(n)))) {
				return
			}
		}
	case picks == n:
		for node := p.first; node != nil; node = z.Next(node) {
			workDone += kVisitWork
			if !emit(zpair{node.Name(), node.Score()}) {
				return
			}
		}
	default:
		zRandDistinct(p, int(n), int(picks), emit)
	}
}

// zRandWork is the work respZRandMember's picks from a set of n members
// do, as they charge it (newZRandPicker, zRandPicker.at, zRandDistinct):
// -count picks for a negative count, min(count, n) distinct ones for a
// positive one; a seek each (kMemberWork) while they are fewer than
// n/kRandSnapshotShare, a draw too for distinct ones; past that a walk
// listing the set (kVisitWork a member) and a unit a pick; the whole set
// by a walk alone. A count past 2^40 is weighed as 2^40, far past any
// bound, so that the products cannot overflow.
func zRandWork(n, count int64) int64 {
	picks := min(max(count, -count), 1<<40)
	switch {
	case count > 0 && picks >= n:
		return n * kVisitWork
	case picks < n/kRandSnapshotShare && count > 0:
		return picks * (kMemberWork + 1)
	case picks < n/kRandSnapshotShare:
		return picks * kMemberWork
	}
	return n*kVisitWork + picks
}

// kRandRankBytes is what a rank drawn for distinct picks holds: its place
// in the list of ranks and its slot in the map of those drawn.
const kRandRankBytes = 8 + 48

// zRandDistinct emits k distinct members of the n p picks from, in a
// random order: a partial shuffle of the list when p has one, or else
// Floyd's sampling of k distinct ranks, each then found in the tree.
func zRandDistinct(p *zRandPicker, n, k int, emit func(zpair) bool) {
	if p.all != nil {
		for i := range k {
			j := i + rand.IntN(n-i)
			p.all[i], p.all[j] = p.all[j], p.all[i]
			workDone++
			if !emit(p.all[i]) {
				return
			}
		}
		return
	}
	chosen := make(map[int]struct{}, k)
	ranks := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		workDone++ // a draw, and its place in the map
		r := rand.IntN(j + 1)
		if _, dup := chosen[r]; dup {
			r = j
		}
		chosen[r] = struct{}{}
		ranks = append(ranks, r)
	}
	rand.Shuffle(len(ranks), func(i, j int) { ranks[i], ranks[j] = ranks[j], ranks[i] })
	for _, r := range ranks {
		if !emit(p.at(r)) {
			return
		}
	}
}

// costZRandMember: a pick is a seek (kMemberWork, and a unit for a
// distinct one's draw), or, once there are enough picks, a walk of the
// set (kVisitWork a member) and a pick from the list (one unit); a count
// past the set's size takes the whole set by a walk.
func costZRandMember(p *execPlan, args [][]byte) int {
	n := int64(p.itemLen(args[1]))
	picks := int64(1)
	if len(args) > 2 {
		count, ok := respInt(args[2])
		if !ok || count == math.MinInt64 {
			return 0
		}
		picks = min(max(count, -count), 1<<40)
		if count > 0 {
			picks = min(picks, n)
		}
	}
	// Seeks only while there are fewer picks than n/kRandSnapshotShare.
	return int(n*kVisitWork + picks + min(picks, n/kRandSnapshotShare+1)*(kMemberWork+1))
}
