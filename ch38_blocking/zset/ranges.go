package zset

import (
	"math"
	"strings"

	"example.com/byor/ch38_blocking/avl"
)

// The range queries: where a range starts (a seek down the tree, O(log n))
// and how to step from there (Next, Prev: O(1) a step on average). A
// range by rank starts at ByRank; one by score at SeekScore or
// SeekScoreRev; one by name ("lex") at SeekLex or SeekLexRev. How many
// members a range holds is the difference of its two ends' ranks.

// owner returns the member a tree node belongs to, nil for none.
func owner(node *avl.AVLNode[ZNode]) *ZNode {
	if node == nil {
		return nil
	}
	return node.Owner
}

// First returns the member with the lowest (score, name), nil if the set
// is empty.
func (z *ZSet) First() *ZNode { return owner(avl.Leftmost(z.tree)) }

// Last returns the member with the highest (score, name), nil if the set
// is empty.
func (z *ZSet) Last() *ZNode { return owner(avl.Rightmost(z.tree)) }

// Next returns the member after node in order, nil after the last. node
// must be a member of z.
func (z *ZSet) Next(node *ZNode) *ZNode { return owner(avl.Next(&node.tree)) }

// Prev returns the member before node in order, nil before the first.
func (z *ZSet) Prev(node *ZNode) *ZNode { return owner(avl.Prev(&node.tree)) }

// ByRank returns the member at rank (from 0), nil outside the set.
func (z *ZSet) ByRank(rank int64) *ZNode { return owner(avl.ByRank(z.tree, rank)) }

// Height is the tree's height: how many nodes a seek looks at, at most.
func (z *ZSet) Height() int {
	if z.tree == nil {
		return 0
	}
	return int(z.tree.Depth)
}

// Delete removes node, a member of z, from both indexes: Pop for a member
// already in hand.
func (z *ZSet) Delete(node *ZNode) {
	z.Pop(node.name)
}

// SeekScore returns the first member whose score is at least min (above
// min, if exclusive), nil if there is none. A NaN min matches nothing.
func (z *ZSet) SeekScore(min float64, exclusive bool) *ZNode {
	var found *avl.AVLNode[ZNode]
	for cur := z.tree; cur != nil; {
		if s := cur.Owner.score; s > min || !exclusive && s == min {
			found, cur = cur, cur.Left // a candidate; an earlier one may be left
		} else {
			cur = cur.Right
		}
	}
	return owner(found)
}

// SeekScoreRev returns the last member whose score is at most max (below
// max, if exclusive), nil if there is none: SeekScore from the other end.
func (z *ZSet) SeekScoreRev(max float64, exclusive bool) *ZNode {
	var found *avl.AVLNode[ZNode]
	for cur := z.tree; cur != nil; {
		if s := cur.Owner.score; s < max || !exclusive && s == max {
			found, cur = cur, cur.Right
		} else {
			cur = cur.Left
		}
	}
	return owner(found)
}

// LexBound is one end of a range of names, as Redis writes it: "[name"
// (inclusive), "(name" (exclusive), "-" (before every name) or "+" (after
// every name).
type LexBound struct {
	Name      string
	Exclusive bool
	Inf       int8 // -1 for "-", +1 for "+", 0 for a name
}

// cmpName compares name with the bound's own position: -1 if name sorts
// before it, 0 at it, +1 after it. An infinite bound is never equal.
func (b LexBound) cmpName(name string) int {
	switch {
	case b.Inf < 0:
		return +1
	case b.Inf > 0:
		return -1
	case name < b.Name:
		return -1
	case name > b.Name:
		return +1
	}
	return 0
}

// AtLeast reports whether name satisfies b as a lower bound.
func (b LexBound) AtLeast(name string) bool {
	c := b.cmpName(name)
	return c > 0 || c == 0 && !b.Exclusive
}

// AtMost reports whether name satisfies b as an upper bound.
func (b LexBound) AtMost(name string) bool {
	c := b.cmpName(name)
	return c < 0 || c == 0 && !b.Exclusive
}

// Empty reports whether no name lies between min and max: max sorts before
// min, or both are at the same place and either excludes it (an infinite
// bound always does).
func Empty(min, max LexBound) bool {
	c := 0
	switch {
	case min.Inf != max.Inf:
		c = int(min.Inf) - int(max.Inf)
	case min.Inf == 0:
		c = strings.Compare(min.Name, max.Name)
	}
	return c > 0 || c == 0 && (min.Exclusive || max.Exclusive || min.Inf != 0)
}

// SeekLex returns the first member whose name satisfies min, found by
// names alone: nil if there is none.
//
// Names are in order only among members of the same score, which is what
// a range of names is for (Redis defines it only when every score is the
// same). With mixed scores the descent still ends somewhere definite, as
// Redis's skiplist search does: it steers by each node's name as if the
// names were in order.
func (z *ZSet) SeekLex(min LexBound) *ZNode {
	var found *avl.AVLNode[ZNode]
	for cur := z.tree; cur != nil; {
		if min.AtLeast(cur.Owner.name) {
			found, cur = cur, cur.Left
		} else {
			cur = cur.Right
		}
	}
	return owner(found)
}

// SeekLexRev returns the last member whose name satisfies max, nil if
// there is none: SeekLex from the other end.
func (z *ZSet) SeekLexRev(max LexBound) *ZNode {
	var found *avl.AVLNode[ZNode]
	for cur := z.tree; cur != nil; {
		if max.AtMost(cur.Owner.name) {
			found, cur = cur, cur.Right
		} else {
			cur = cur.Left
		}
	}
	return owner(found)
}

// ScoreIn reports whether score lies between min and max, each end
// exclusive or not.
func ScoreIn(score, min float64, minEx bool, max float64, maxEx bool) bool {
	return (score > min || !minEx && score == min) && (score < max || !maxEx && score == max)
}

// ScoreEmpty reports whether no score lies between min and max.
func ScoreEmpty(min float64, minEx bool, max float64, maxEx bool) bool {
	return min > max || min == max && (minEx || maxEx) || math.IsNaN(min) || math.IsNaN(max)
}
