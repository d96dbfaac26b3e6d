package avl

// Next returns the node after node in sorted order, or nil if node is the
// last. It is the in-order successor: the leftmost node of the right
// subtree if there is one, else the first ancestor node lies to the left
// of. A walk of k steps with Next visits each edge at most twice, so it
// costs O(k + log n), O(1) a step on average; Offset(node, 1) finds the
// same node but climbs and descends by counts.
func Next[T any](node *AVLNode[T]) *AVLNode[T] {
	if node.Right != nil {
		return Leftmost(node.Right)
	}
	for node.Parent != nil && node.Parent.Right == node {
		node = node.Parent
	}
	return node.Parent
}

// Prev returns the node before node in sorted order, or nil if node is
// the first: Next with left and right swapped.
func Prev[T any](node *AVLNode[T]) *AVLNode[T] {
	if node.Left != nil {
		return Rightmost(node.Left)
	}
	for node.Parent != nil && node.Parent.Left == node {
		node = node.Parent
	}
	return node.Parent
}

// Leftmost returns the first node of the subtree rooted at node, or nil
// for an empty one.
func Leftmost[T any](node *AVLNode[T]) *AVLNode[T] {
	for node != nil && node.Left != nil {
		node = node.Left
	}
	return node
}

// Rightmost returns the last node of the subtree rooted at node, or nil
// for an empty one.
func Rightmost[T any](node *AVLNode[T]) *AVLNode[T] {
	for node != nil && node.Right != nil {
		node = node.Right
	}
	return node
}

// ByRank returns the node at position rank (from 0) in the subtree rooted
// at root, or nil if rank is outside it. It descends once, steering by the
// left subtrees' counts: O(log n).
func ByRank[T any](root *AVLNode[T], rank int64) *AVLNode[T] {
	if root == nil || rank < 0 || rank >= int64(root.Cnt) {
		return nil
	}
	for node := root; node != nil; {
		left := int64(cnt(node.Left))
		switch {
		case rank < left:
			node = node.Left
		case rank == left:
			return node
		default:
			rank -= left + 1
			node = node.Right
		}
	}
	return nil // not reached: the counts add up
}
