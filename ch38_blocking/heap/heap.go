// Package heap is a binary min-heap of timers whose items know where their
// owners keep the item's position.
//
// The heap is a complete binary tree packed into a slice with no pointers
// between elements: the children of the item at index i live at 2i+1 and
// 2i+2, and its parent at (i+1)/2-1. The only ordering rule is that no
// parent's Val is greater than its children's, so the smallest Val, the
// nearest expiry time, is always at index 0.
//
// Every owner keeps its item's index in a field, and every move inside the
// heap writes the item's new index there. The owner therefore always knows
// where its timer is, so an arbitrary timer can be changed or removed in
// O(log n) instead of being searched for in O(n). The functions are told
// where that field is by at, which returns its address for an owner: the
// items need not carry a pointer to it (chapters 13 to 16 kept one in every
// item, 8 bytes per timer, always equal to at(Owner)).
//
// As everywhere in this project, a structure's item carries an Owner
// back-pointer, set when the owner is created, in place of C's container_of.
package heap

// HeapItem is one timer in the heap.
type HeapItem[T any] struct {
	Val   uint64 // the heap key: an expiry time
	Owner *T     // the value this timer belongs to
}

// Index is the type of an owner's heap-index field. A 32-bit index is
// enough for any heap that fits in memory, and keeps the owner small.
type Index interface{ ~int | ~int32 }

// place puts item at pos and records pos in its owner.
func place[T any, I Index](a []HeapItem[T], pos int, item HeapItem[T], at func(*T) *I) {
	a[pos] = item
	*at(item.Owner) = I(pos)
}

func parent(i int) int { return (i+1)/2 - 1 }
func left(i int) int   { return 2*i + 1 }
func right(i int) int  { return 2*i + 2 }

// up moves the item at pos towards the root while its parent is bigger.
// The item is held aside and parents slide down into the hole, so each
// level costs one copy instead of a swap.
func up[T any, I Index](a []HeapItem[T], pos int, at func(*T) *I) {
	t := a[pos]
	for pos > 0 {
		p := parent(pos)
		if a[p].Val <= t.Val {
			break
		}
		place(a, pos, a[p], at)
		pos = p
	}
	place(a, pos, t, at)
}

// down moves the item at pos towards the leaves, within the first n items,
// while a child is smaller, always following the smaller child so that the
// one moved up is no bigger than its new sibling.
func down[T any, I Index](a []HeapItem[T], pos, n int, at func(*T) *I) {
	t := a[pos]
	for {
		c := left(pos)
		if c >= n {
			break
		}
		if r := right(pos); r < n && a[r].Val < a[c].Val {
			c = r
		}
		if a[c].Val >= t.Val {
			break
		}
		place(a, pos, a[c], at)
		pos = c
	}
	place(a, pos, t, at)
}

// Update restores the heap order after the item at pos was changed or put
// there, moving it up if it is now smaller than its parent and down
// otherwise. Either way the owner's index ends up holding its final index.
func Update[T any, I Index](a []HeapItem[T], pos int, at func(*T) *I) {
	if pos > 0 && a[parent(pos)].Val > a[pos].Val {
		up(a, pos, at)
	} else {
		down(a, pos, len(a), at)
	}
}

// Delete removes the item at pos: the last item fills the hole, the slice
// shrinks by one and the moved item is put back in order. The removed
// item's owner index is set to -1, meaning "not in the heap".
//
// Delete and Upsert only package the steps that the book's entry_set_ttl
// performs inline on its vector, so callers need nothing but the owner's
// index to remove, add or reschedule a timer.
func Delete[T any, I Index](a *[]HeapItem[T], pos int, at func(*T) *I) {
	h := *a
	gone := h[pos].Owner
	last := len(h) - 1
	h[pos] = h[last]
	h[last] = HeapItem[T]{} // drop the pointer so the owner can be collected
	h = h[:last]
	if pos < last {
		Update(h, pos, at)
	}
	*at(gone) = -1
	*a = h
}

// Upsert stores item at pos and restores the order; pos < 0 (an owner
// without a timer) appends item as a new leaf instead. The owner's index
// field, at(item.Owner), receives the item's final position.
func Upsert[T any, I Index](a *[]HeapItem[T], pos int, item HeapItem[T], at func(*T) *I) {
	if pos < 0 {
		*a = append(*a, item)
		pos = len(*a) - 1
	} else {
		(*a)[pos] = item
	}
	Update(*a, pos, at)
}
