// Package heap is a binary min-heap of timers whose items know where their
// owners keep the item's position.
//
// The heap is a complete binary tree packed into a slice with no pointers
// between elements: the children of the item at index i live at 2i+1 and
// 2i+2, and its parent at (i+1)/2-1. The only ordering rule is that no
// parent's Val is greater than its children's, so the smallest Val, the
// nearest expiry time, is always at index 0.
//
// Every item points back at an int field in its owner (Ref), and every move
// inside the heap writes the item's new index through that pointer. The
// owner therefore always knows where its timer is, so an arbitrary timer can
// be changed or removed in O(log n) instead of being searched for in O(n).
//
// As everywhere in this project, a structure's item carries an Owner
// back-pointer, set when the owner is created, in place of C's container_of.
package heap

// HeapItem is one timer in the heap.
type HeapItem[T any] struct {
	Val   uint64 // the heap key: an expiry time
	Ref   *int   // the owner's heap-index field, rewritten on every move
	Owner *T     // the value this timer belongs to
}

func parent(i int) int { return (i+1)/2 - 1 }
func left(i int) int   { return 2*i + 1 }
func right(i int) int  { return 2*i + 2 }

// up moves the item at pos towards the root while its parent is bigger.
// The item is held aside and parents slide down into the hole, so each
// level costs one copy instead of a swap.
func up[T any](a []HeapItem[T], pos int) {
	// exercise: ch13-heap
	t := a[pos]
	for pos > 0 {
		p := parent(pos)
		if a[p].Val <= t.Val {
			break
		}
		a[pos] = a[p]
		*a[pos].Ref = pos
		pos = p
	}
	a[pos] = t
	*a[pos].Ref = pos
	// end exercise: ch13-heap
}

// down moves the item at pos towards the leaves, within the first n items,
// while a child is smaller, always following the smaller child so that the
// one moved up is no bigger than its new sibling.
func down[T any](a []HeapItem[T], pos, n int) {
	// exercise: ch13-heap
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
		a[pos] = a[c]
		*a[pos].Ref = pos
		pos = c
	}
	a[pos] = t
	*a[pos].Ref = pos
	// end exercise: ch13-heap
}

// Update restores the heap order after the item at pos was changed or put
// there, moving it up if it is now smaller than its parent and down
// otherwise. Either way the item's Ref ends up holding its final index.
func Update[T any](a []HeapItem[T], pos int) {
	if pos > 0 && a[parent(pos)].Val > a[pos].Val {
		up(a, pos)
	} else {
		down(a, pos, len(a))
	}
}

// Delete removes the item at pos: the last item fills the hole, the slice
// shrinks by one and the moved item is put back in order. The removed
// item's owner index is set to -1, meaning "not in the heap".
//
// Delete and Upsert only package the steps that the book's entry_set_ttl
// performs inline on its vector, so callers need nothing but the owner's
// index to remove, add or reschedule a timer.
func Delete[T any](a *[]HeapItem[T], pos int) {
	h := *a
	gone := h[pos].Ref
	last := len(h) - 1
	h[pos] = h[last]
	h[last] = HeapItem[T]{} // drop the pointers so the owner can be collected
	h = h[:last]
	if pos < last {
		Update(h, pos)
	}
	*gone = -1
	*a = h
}

// Upsert stores item at pos and restores the order; pos < 0 (an owner
// without a timer) appends item as a new leaf instead. item.Ref must point
// at the owner's index field, which receives the item's final position.
func Upsert[T any](a *[]HeapItem[T], pos int, item HeapItem[T]) {
	if pos < 0 {
		*a = append(*a, item)
		pos = len(*a) - 1
	} else {
		(*a)[pos] = item
	}
	Update(*a, pos)
}
