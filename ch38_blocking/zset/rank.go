package zset

import "example.com/byor/ch38_blocking/avl"

// Rank returns node's position in the set's order, counting from 0 (Redis's
// ZRANK). node must be a member of z.
//
// It is Offset read backwards: every node counts its subtree, so the
// members before node are those in its left subtree plus, for each
// ancestor it lies to the right of, that ancestor and the ancestor's left
// subtree. Climbing to the root adds them up in O(log n) steps.
func (z *ZSet) Rank(node *ZNode) int64 {
	cur := &node.tree
	rank := int64(size(cur.Left))
	for ; cur.Parent != nil; cur = cur.Parent {
		if cur.Parent.Right == cur {
			rank += int64(size(cur.Parent.Left)) + 1
		}
	}
	return rank
}

// size is the number of nodes in a possibly empty subtree.
func size(node *avl.AVLNode[ZNode]) uint32 {
	if node == nil {
		return 0
	}
	return node.Cnt
}
