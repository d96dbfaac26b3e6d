package server

import (
	"math"
	"strconv"

	"example.com/byor/ch38_blocking/glob"
	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/zset"
)

// ZSCAN key cursor [MATCH pattern] [COUNT count] walks a sorted set in its
// own order, (score, member), a stretch at a time. The cursor says where
// the next stretch starts by score, not by a bucket of the member hash
// table, so no resize of that table moves it: its top 40 bits are those of
// a score's bits put in the order of the scores (zScoreKey), a block of
// scores within a few parts in 10^9 of one another; its low 24 bits, how
// many members of that block the scan has already returned. A member
// present from the first call to the last, with the same score, is
// returned exactly once, however many members come and go: a member
// added behind the cursor is not seen, one removed is not missed. A walk
// past COUNT goes on to the end of its block if that comes within
// kZScanTieRun members, so that the cursor is a block's start; only in a
// block of more members than that (members tied on one score, or scores
// agreeing to nine digits) does a cursor count members inside it, and
// there a member of that block removed before the cursor makes the scan
// skip one. Cursor 0 starts the scan, and 0 comes back when it is done.

const (
	// kZScanOffsetBits are the cursor's bits for the place in its block.
	kZScanOffsetBits = 24
	kZScanOffsetMax  = 1<<kZScanOffsetBits - 1
	// kZScanTieRun is how far past COUNT a walk goes to end with a block.
	kZScanTieRun = 1024
)

// zScoreKey maps a score to a 64-bit key in the same order: a positive
// score with its sign bit set, a negative one with every bit flipped; -0
// is 0, which the tree does not tell apart. Every score's key is above
// 2^52, so a cursor made of one is never 0.
func zScoreKey(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// zScoreOfKey is zScoreKey's inverse: NaN for a key no score has (below
// -inf's, or above +inf's).
func zScoreOfKey(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// zBlock is the block of a score: the top bits of its key.
func zBlock(f float64) uint64 { return zScoreKey(f) >> kZScanOffsetBits }

// zSeekBlock returns the first member whose block is block or later, or
// nil if there is none: a seek to the least score of the block, O(log n).
func zSeekBlock(z *zset.ZSet, block uint64) *zset.ZNode {
	if block >= 1<<(64-kZScanOffsetBits) {
		return nil
	}
	lowest := zScoreOfKey(block << kZScanOffsetBits)
	switch {
	case block<<kZScanOffsetBits <= zScoreKey(math.Inf(-1)):
		return z.First() // -inf's block, or below it
	case math.IsNaN(lowest):
		return nil // past +inf's
	}
	return z.SeekGE(lowest, "")
}

// zScanStart returns the member a cursor points at, or nil if the scan is
// past the end: the first of its block, and off places on if the block
// still has them, or else the first of a later block. O(log n) whatever
// the cursor, one the client made up too.
func zScanStart(z *zset.ZSet, cursor uint64) *zset.ZNode {
	if cursor == 0 {
		return z.First()
	}
	block, off := cursor>>kZScanOffsetBits, int64(cursor&kZScanOffsetMax)
	node := zSeekBlock(z, block)
	chargeMembers(1)
	if node == nil || off == 0 || zBlock(node.Score()) != block {
		return node
	}
	if at := z.Offset(node, off); at != nil && zBlock(at.Score()) == block {
		return at
	}
	return zSeekBlock(z, block+1)
}

// zScanWalk walks from the member the cursor points at, visiting up to
// count members and calling keep on each, and returns the next cursor.
// The walk stops early once the members kept would take more than limit
// bytes of the reply, or once the work passes budget; but past count or
// budget it goes on to the end of a block within kZScanTieRun members,
// and to the end of a block of which the next cursor could not count the
// members already returned.
func zScanWalk(z *zset.ZSet, cursor uint64, count int, keep func(*zset.ZNode) int, limit, budget int) uint64 {
	node := zScanStart(z, cursor)
	// block and off: the block of the walk's last member, and how many of
	// that block the scan has returned (those before the cursor's too).
	block, off := uint64(0), 0
	if node != nil && cursor != 0 && zBlock(node.Score()) == cursor>>kZScanOffsetBits {
		block, off = cursor>>kZScanOffsetBits, int(cursor&kZScanOffsetMax)
	}
	seen, size, work, extra := 0, 0, 0, 0
	for node != nil {
		b := zBlock(node.Score())
		inBlock := b == block && off > 0
		if seen >= count || size > limit || work >= budget {
			// Past COUNT, the walk ends where a block does if one ends
			// within kZScanTieRun members: a cursor at a block's start
			// needs no count of members, which members removed before it
			// would throw off.
			stop := !inBlock || size > limit || extra >= kZScanTieRun
			if stop && (!inBlock || off < kZScanOffsetMax) {
				break
			}
			extra++
		}
		if !inBlock {
			block, off = b, 0
		}
		seen++
		off++
		work += kVisitWork
		size += keep(node)
		node = z.Next(node)
	}
	workDone += work
	if node == nil {
		return 0
	}
	if b := zBlock(node.Score()); b != block {
		block, off = b, 0
	}
	return block<<kZScanOffsetBits | uint64(off)
}

// respZScan: ZSCAN key cursor [MATCH pattern] [COUNT count], with Redis
// 7.0's replies and errors: the cursor is checked first, then the key (an
// empty scan for none, whatever the options), then the options. The
// reply is the next cursor and the members kept, each with its score as a
// bulk string in both protocols, as Redis sends it.
func respZScan(st *respState, w *respWriter, args [][]byte) {
	ent, cursor, count, pattern := keyScanStart(w, args, zsetOf)
	if ent == nil {
		return
	}
	if z := ent.obj.zset; zScanSmall(z) {
		// Redis keeps such a set in its compact encoding and answers it
		// whole, with cursor 0, whatever the cursor and COUNT: so here.
		cursor, count = 0, max(count, z.Len())
	}
	usePattern := pattern != "*"
	// MATCH's steps are bounded as SCAN's are (kMatchMaxSteps) and
	// counted in the work; the members kept are listed after the walk.
	steps := 0
	var kept []*zset.ZNode
	keep := func(node *zset.ZNode) int {
		if usePattern {
			if steps > kMatchMaxSteps {
				return 0
			}
			ok, n, _ := glob.MatchLimit(pattern, node.Name(), kMatchMaxSteps-steps)
			steps += n
			if !ok {
				return 0
			}
		}
		kept = append(kept, node)
		return len(node.Name()) + 2*respHeaderMax + 24
	}
	next := zScanWalk(ent.obj.zset, cursor, count, keep, w.left()/2, min(10*count*kVisitWork, kScanMaxWork))
	workDone += steps / kMatchStepsPerItem
	if steps > kMatchMaxSteps {
		w.err(errMatchTooCostly)
		return
	}
	w.outArr(2)
	w.outStr(strconv.FormatUint(next, 10))
	w.outArr(2 * len(kept))
	for _, node := range kept {
		w.outStr(node.Name())
		w.outDblBulk(node.Score())
	}
}

// kZSetSmall and kZSetSmallMember are the most members, and the longest
// member, of a sorted set that Redis keeps in its compact encoding
// (zset-max-listpack-entries and zset-max-listpack-value).
const (
	kZSetSmall       = 128
	kZSetSmallMember = 64
)

// zScanSmall reports whether ZSCAN answers z whole: a set of at most
// kZSetSmall members, none longer than kZSetSmallMember bytes. Redis
// stays in its larger encoding once a set has left the compact one, until
// it is rewritten; this looks at the set as it is now.
func zScanSmall(z *zset.ZSet) bool {
	if z.Len() > kZSetSmall {
		return false
	}
	n := 0
	defer func() { workDone += n * kVisitWork }()
	for node := z.First(); node != nil; node = z.Next(node) {
		n++
		if len(node.Name()) > kZSetSmallMember {
			return false
		}
	}
	return true
}

// outDblBulk writes a score as a bulk string in either protocol, as
// Redis's ZSCAN does.
func (w *respWriter) outDblBulk(f float64) {
	if w.room(respHeaderMax + 24) {
		w.buf = resp.AppendDouble(w.buf, f, resp.RESP2)
	}
}

// costZScan: ZSCAN's walk is bounded as SCAN's is (kScanMaxWork), but for
// the rest of a block it cannot leave (at most kZScanOffsetMax members),
// and its matching by kMatchMaxSteps.
func costZScan(p *execPlan, args [][]byte) int {
	return 4*kScanMaxWork + (kZScanTieRun+min(p.itemLen(args[1]), kZScanOffsetMax))*kVisitWork + kMemberWork +
		kMatchMaxSteps/kMatchStepsPerItem + 1
}
