package avl

// Offset returns the node offset places after node in sorted order (before
// it, for a negative offset), or nil if that position is outside the tree.
//
// Cnt makes this a tree walk rather than a step-by-step scan: the walk climbs
// until the target lies in a subtree it can see the size of, then descends
// into it, so it takes O(log n) steps however large offset is.
func Offset[T any](node *AVLNode[T], offset int64) *AVLNode[T] {
	// exercise: ch11-avl-offset
	var pos int64 // rank of node relative to the starting node
	for pos != offset {
		switch {
		case pos < offset && pos+int64(cnt(node.Right)) >= offset:
			// The target is in the right subtree. Its root comes after
			// node and after everything in its own left subtree.
			node = node.Right
			pos += int64(cnt(node.Left)) + 1
		case pos > offset && pos-int64(cnt(node.Left)) <= offset:
			// The target is in the left subtree; mirror of the above.
			node = node.Left
			pos -= int64(cnt(node.Right)) + 1
		default:
			// The target is outside this subtree: climb one level. Whatever
			// lies between node and its parent is node's subtree on the
			// side facing the parent.
			parent := node.Parent
			if parent == nil {
				return nil
			}
			if parent.Right == node {
				pos -= int64(cnt(node.Left)) + 1
			} else {
				pos += int64(cnt(node.Right)) + 1
			}
			node = parent
		}
	}
	return node
	// end exercise: ch11-avl-offset
}
