// Package avl is the AVL tree behind the sorted set.
//
// Every node stores two numbers about the subtree rooted at it. Depth is the
// subtree's height: comparing the heights of the two children tells whether a
// node is out of balance, and the tree keeps them within one of each other by
// rotating. Cnt is the subtree's size: balancing does not need it, but it lets
// a caller (the sorted set's range queries) move from a node to the one k
// places before or after it by rank in O(log n) steps instead of walking k
// nodes.
//
// The package only links and rebalances nodes; it never compares keys. The
// caller walks down from the root to find an empty slot, attaches the new node
// there and calls Fix, exactly as it would for a plain binary search tree.
//
// As with every structure in this project, the node is embedded in the
// caller's own struct and its Owner field points back at that struct, which
// is how Go recovers the value where C would use container_of.
package avl

// AVLNode is one node of the tree, embedded in the value it orders.
//
// The fields are exported so that code in other packages (the sorted set) can
// walk the tree and descend to an insertion point. They must only be modified
// through this package's functions, with the single exception of attaching a
// freshly initialised leaf (setting Left or Right of its parent and its
// Parent) right before calling Fix on it.
type AVLNode[T any] struct {
	Depth  uint32      // height of this subtree; 1 for a leaf
	Cnt    uint32      // number of nodes in this subtree, itself included
	Left   *AVLNode[T] // smaller elements
	Right  *AVLNode[T] // larger (or equal) elements
	Parent *AVLNode[T] // nil for the root
	Owner  *T          // the value this node is embedded in: Go's stand-in for container_of
}

// Init turns node into a detached one-node tree. Owner is left alone: it is
// set once when the container is made, and a node may be re-initialised when
// its container is moved within the tree (the sorted set does so when a score
// changes).
func Init[T any](node *AVLNode[T]) {
	node.Depth = 1
	node.Cnt = 1
	node.Left, node.Right, node.Parent = nil, nil, nil
}

// depth is the height of a possibly empty subtree.
func depth[T any](node *AVLNode[T]) uint32 {
	if node == nil {
		return 0
	}
	return node.Depth
}

// cnt is the size of a possibly empty subtree.
func cnt[T any](node *AVLNode[T]) uint32 {
	if node == nil {
		return 0
	}
	return node.Cnt
}

// update recomputes node's Depth and Cnt from its children, which must
// already be up to date.
func update[T any](node *AVLNode[T]) {
	node.Depth = 1 + max(depth(node.Left), depth(node.Right))
	node.Cnt = 1 + cnt(node.Left) + cnt(node.Right)
}

// rotLeft lifts node's right child into node's place and returns it. Only the
// child-to-parent link of the returned node is set; linking the parent (or the
// caller's root) down to it is the caller's job, because only the caller knows
// which slot node occupied.
//
//	 node            r
//	 /  \           / \
//	a    r   =>  node  c
//	    / \      /  \
//	   b   c    a    b
func rotLeft[T any](node *AVLNode[T]) *AVLNode[T] {
	// exercise: ch10-avl-rotate
	r := node.Right
	inner := r.Left
	if inner != nil {
		inner.Parent = node
	}
	node.Right = inner
	r.Left = node
	r.Parent = node.Parent
	node.Parent = r
	// node is now below r, so it is recomputed first.
	update(node)
	update(r)
	return r
	// end exercise: ch10-avl-rotate
}

// rotRight is the mirror image of rotLeft: node's left child takes its place.
func rotRight[T any](node *AVLNode[T]) *AVLNode[T] {
	// exercise: ch10-avl-rotate
	l := node.Left
	inner := l.Right
	if inner != nil {
		inner.Parent = node
	}
	node.Left = inner
	l.Right = node
	l.Parent = node.Parent
	node.Parent = l
	update(node)
	update(l)
	return l
	// end exercise: ch10-avl-rotate
}

// fixLeft rebalances a subtree whose left side is two levels deeper than its
// right side and returns the subtree's new root.
func fixLeft[T any](root *AVLNode[T]) *AVLNode[T] {
	// exercise: ch10-avl-rotate
	// If the left child leans right, a single right rotation would only move
	// the excess to the other side; straighten the child first.
	if depth(root.Left.Left) < depth(root.Left.Right) {
		root.Left = rotLeft(root.Left)
	}
	return rotRight(root)
	// end exercise: ch10-avl-rotate
}

// fixRight rebalances a subtree whose right side is two levels deeper than
// its left side and returns the subtree's new root.
func fixRight[T any](root *AVLNode[T]) *AVLNode[T] {
	// exercise: ch10-avl-rotate
	if depth(root.Right.Right) < depth(root.Right.Left) {
		root.Right = rotRight(root.Right)
	}
	return rotLeft(root)
	// end exercise: ch10-avl-rotate
}

// Fix restores Depth, Cnt and the balance of every node from node up to the
// root, after a node was attached below node (or node itself was attached) or
// a node was removed below it. It returns the root of the tree, which
// rotations may have changed.
func Fix[T any](node *AVLNode[T]) *AVLNode[T] {
	// exercise: ch10-avl-fix
	for {
		update(node)
		l, r := depth(node.Left), depth(node.Right)
		// Remember which of the parent's slots points here, since a rotation
		// replaces node with another node that the parent must point to.
		var from **AVLNode[T]
		if p := node.Parent; p != nil {
			if p.Left == node {
				from = &p.Left
			} else {
				from = &p.Right
			}
		}
		switch {
		case l == r+2:
			node = fixLeft(node)
		case l+2 == r:
			node = fixRight(node)
		}
		if from == nil {
			return node
		}
		*from = node
		node = node.Parent
	}
	// end exercise: ch10-avl-fix
}

// Del detaches node from its tree and returns the tree's new root (nil once
// the tree is empty). The detached node's links are left stale; call Init
// before inserting it again.
func Del[T any](node *AVLNode[T]) *AVLNode[T] {
	// exercise: ch10-avl-delete
	if node.Right == nil {
		// No right subtree: the left subtree (possibly empty) takes node's
		// place.
		parent := node.Parent
		if node.Left != nil {
			node.Left.Parent = parent
		}
		if parent == nil {
			return node.Left
		}
		if parent.Left == node {
			parent.Left = node.Left
		} else {
			parent.Right = node.Left
		}
		return Fix(parent)
	}

	// Two children (or only a right one): detach the in-order successor,
	// the leftmost node of the right subtree, and put it where node was.
	victim := node.Right
	for victim.Left != nil {
		victim = victim.Left
	}
	root := Del(victim)

	// The C version copies the whole node struct; here Owner must stay with
	// victim, so only the tree fields move. node's fields are already up to
	// date because Del(victim) fixed everything above victim, node included.
	victim.Depth, victim.Cnt = node.Depth, node.Cnt
	victim.Left, victim.Right, victim.Parent = node.Left, node.Right, node.Parent
	if victim.Left != nil {
		victim.Left.Parent = victim
	}
	if victim.Right != nil {
		victim.Right.Parent = victim
	}
	parent := node.Parent
	if parent == nil {
		// node was the root (possibly only after the fix above), so victim
		// is now.
		return victim
	}
	if parent.Left == node {
		parent.Left = victim
	} else {
		parent.Right = victim
	}
	return root
	// end exercise: ch10-avl-delete
}
