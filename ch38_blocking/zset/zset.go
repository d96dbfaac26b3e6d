// Package zset is the sorted set: a collection of members, each a unique
// name with a floating-point score, kept in (score, name) order.
//
// A sorted set answers two kinds of question, and each needs its own index.
// "What is the score of this name?" is a point query by name, which a
// hashtable answers in O(1) as long as the names spread over its buckets;
// clients choose them, so they are hashed with a seed the client cannot
// know (hashtable.Hash). "Which members come first at or after this
// score?" and "what lies k places further on?" need the members in order,
// which the AVL tree provides; because every tree node also counts its
// subtree, stepping k places by rank costs O(log n) rather than O(k).
//
// Each member is one ZNode with both an avl.AVLNode and a hashtable.HNode
// embedded in it, so it sits in both indexes without a second allocation,
// and each embedded node's Owner points back at the ZNode, which is how Go
// recovers the member where C would use container_of.
package zset

import (
	"math"

	"example.com/byor/ch38_blocking/avl"
	"example.com/byor/ch38_blocking/hashtable"
)

// ZNode is one member of a ZSet. It is created by ZSet.Add and its score is
// changed only by Add, because the tree position depends on it; callers read
// the member through Name and Score.
type ZNode struct {
	tree  avl.AVLNode[ZNode]     // position in (score, name) order
	hmap  hashtable.HNode[ZNode] // entry in the by-name index
	score float64
	name  string
}

// newZNode makes a detached member (the book's znode_new). Both back-pointers
// are set here, once; they never change afterwards.
func newZNode(name string, score float64) *ZNode {
	node := &ZNode{score: score, name: name}
	node.tree.Owner = node
	node.hmap.Owner = node
	avl.Init(&node.tree)
	node.hmap.HCode = hashtable.Hash(name)
	return node
}

// Name returns the member's name.
func (n *ZNode) Name() string { return n.name }

// Score returns the member's score.
func (n *ZNode) Score() float64 { return n.score }

// ZSet is a sorted set. The zero value is an empty set ready to use.
type ZSet struct {
	tree *avl.AVLNode[ZNode]   // root of the (score, name) order; nil when empty
	hmap hashtable.HMap[ZNode] // name -> member
}

// zless reports whether node sorts before the pair (score, name): lower score
// first, then the name compared as bytes. Go's string ordering is exactly the
// book's rule, memcmp over the common prefix and then the shorter name first.
func zless(node *ZNode, score float64, name string) bool {
	if node.score != score {
		return node.score < score
	}
	return node.name < name
}

// hcmp is the hashtable's equality: same hash, then same name. The hash
// check is cheap and rejects almost every non-match.
func hcmp(node, key *hashtable.HNode[ZNode]) bool {
	return node.HCode == key.HCode && node.Owner.name == key.Owner.name
}

// probe makes a search key for the hashtable. The book uses a separate HKey
// struct; the table here is typed by ZNode, so a bare ZNode with only the
// name and the hash filled in plays that role.
func probe(name string) *hashtable.HNode[ZNode] {
	key := &ZNode{name: name}
	key.hmap.Owner = key
	key.hmap.HCode = hashtable.Hash(name)
	return &key.hmap
}

// treeAdd links an initialised, detached node into the tree: descend to the
// empty slot where it belongs, attach it there and let avl.Fix rebalance.
// Equal keys cannot occur, since names are unique.
func (z *ZSet) treeAdd(node *ZNode) {
	if z.tree == nil {
		z.tree = &node.tree
		return
	}
	cur := z.tree
	for {
		from := &cur.Right
		if zless(node, cur.Owner.score, cur.Owner.name) {
			from = &cur.Left
		}
		if *from == nil {
			*from = &node.tree
			node.tree.Parent = cur
			z.tree = avl.Fix(&node.tree)
			return
		}
		cur = *from
	}
}

// update gives an existing member a new score. The tree cannot reorder a node
// in place, so the node is taken out, re-initialised and inserted again.
func (z *ZSet) update(node *ZNode, score float64) {
	if node.score == score {
		return
	}
	z.tree = avl.Del(&node.tree)
	node.score = score
	avl.Init(&node.tree)
	z.treeAdd(node)
}

// Add inserts the member name with score and reports true, or, if name is
// already a member, changes its score and reports false (the book's
// zset_add).
//
// A NaN score has no place in the order and would corrupt the tree, so Add
// panics on it; callers parsing scores from requests must reject NaN first.
func (z *ZSet) Add(name string, score float64) bool {
	if math.IsNaN(score) {
		panic("zset: NaN score")
	}
	if node := z.Lookup(name); node != nil {
		z.update(node, score)
		return false
	}
	node := newZNode(name, score)
	z.hmap.Insert(&node.hmap)
	z.treeAdd(node)
	return true
}

// Lookup returns the member called name, or nil (the book's zset_lookup).
func (z *ZSet) Lookup(name string) *ZNode {
	return lookup(z, name)
}

// LookupBytes is Lookup for a name given as bytes, such as a slice of a
// request, which it neither copies nor keeps: it allocates nothing, where
// Lookup's probe node is allocated on every call.
func (z *ZSet) LookupBytes(name []byte) *ZNode {
	return lookup(z, name)
}

func lookup[S ~string | ~[]byte](z *ZSet, name S) *ZNode {
	if z.tree == nil {
		return nil
	}
	found := z.hmap.LookupFunc(hashtable.Hash(name), func(n *hashtable.HNode[ZNode]) bool {
		return n.Owner.name == string(name)
	})
	if found == nil {
		return nil
	}
	return found.Owner
}

// AddBytes is Add for a name given as bytes: the name is copied into a
// string only when it is a new member, so updating the score of one that
// exists allocates nothing.
func (z *ZSet) AddBytes(name []byte, score float64) bool {
	if math.IsNaN(score) {
		panic("zset: NaN score")
	}
	if node := z.LookupBytes(name); node != nil {
		z.update(node, score)
		return false
	}
	return z.Add(string(name), score)
}

// Pop removes the member called name from both indexes and returns it, or
// returns nil if there is none (the book's zset_pop). The returned node keeps
// its name and score but is no longer linked to anything.
func (z *ZSet) Pop(name string) *ZNode {
	if z.tree == nil {
		return nil
	}
	found := z.hmap.Pop(probe(name), hcmp)
	if found == nil {
		return nil
	}
	node := found.Owner
	z.tree = avl.Del(&node.tree)
	// avl.Del leaves the node's links stale; clearing them keeps a popped
	// node from holding the rest of the tree reachable.
	avl.Init(&node.tree)
	return node
}

// SeekGE returns the first member at or after (score, name) in (score, name)
// order, or nil if every member sorts before it. It is the search half of the
// book's zset_query; Offset is the other half. A NaN score matches nothing.
func (z *ZSet) SeekGE(score float64, name string) *ZNode {
	// exercise: ch11-zquery
	if math.IsNaN(score) {
		return nil
	}
	var found *avl.AVLNode[ZNode]
	for cur := z.tree; cur != nil; {
		if zless(cur.Owner, score, name) {
			cur = cur.Right
		} else {
			// A candidate; a smaller one may still be on the left.
			found = cur
			cur = cur.Left
		}
	}
	if found == nil {
		return nil
	}
	return found.Owner
	// end exercise: ch11-zquery
}

// Offset returns the member offset places after node in order (before it,
// for a negative offset), or nil if that position is outside the set or node
// is nil (the book's znode_offset). node must be a member of z. It takes
// O(log n) steps however large offset is.
func (z *ZSet) Offset(node *ZNode, offset int64) *ZNode {
	if node == nil {
		return nil
	}
	found := avl.Offset(&node.tree, offset)
	if found == nil {
		return nil
	}
	return found.Owner
}

// Len returns the number of members.
func (z *ZSet) Len() int {
	return z.hmap.Size()
}

// Clear removes every member, leaving an empty set ready for reuse (the
// book's zset_dispose). C has to walk the tree to free each node; in Go,
// dropping the root and the hashtable's buckets is enough, and the garbage
// collector reclaims the nodes once nothing else refers to them. Nodes the
// caller still holds keep their name and score, but must not be passed back
// to this set.
func (z *ZSet) Clear() {
	*z = ZSet{}
}
