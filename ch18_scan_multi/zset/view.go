package zset

import (
	"example.com/byor/ch18_scan_multi/avl"
	"example.com/byor/ch18_scan_multi/hashtable"
)

// This file lets a program look at a set's two indexes without changing
// them: tools/explore draws them. The server does not use it.

// Root returns the root of the set's AVL tree, nil when the set is empty,
// for walking the tree (its nodes' Owner is the member). The caller must not
// change the nodes.
func (z *ZSet) Root() *avl.AVLNode[ZNode] {
	return z.tree
}

// IndexView returns a snapshot of the set's by-name hashtable.
func (z *ZSet) IndexView() hashtable.View[ZNode] {
	return z.hmap.View()
}
