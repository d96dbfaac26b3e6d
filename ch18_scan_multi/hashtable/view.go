package hashtable

// This file lets a program look at a map's tables without changing them,
// and slow a resize down so that it can be watched: tools/explore draws
// both tables while the nodes move. The server uses neither.

// resizingWork is how many nodes one operation moves while a resize is
// under way: kResizingWork, unless SetResizingWork changed it.
var resizingWork = kResizingWork

// SetResizingWork makes every operation of every map move at most n nodes
// (n >= 1) from the older table to the newer one, and returns the previous
// setting. A small n keeps both tables alive for many operations, to draw
// them. It must not be called while any map is in use.
func SetResizingWork(n int) (prev int) {
	if n < 1 {
		panic("hashtable: resizing work must be at least 1")
	}
	prev, resizingWork = resizingWork, n
	return prev
}

// TabView is one table as View sees it.
type TabView[T any] struct {
	// Chains holds, for each bucket, its nodes in chain order; it is nil
	// when the table has no buckets.
	Chains [][]*HNode[T]
	Size   int // nodes in all chains
}

// View is a snapshot of a map's two tables. The nodes are the map's own,
// so their owners can be read, but the snapshot does not follow later
// operations.
type View[T any] struct {
	Newer TabView[T] // ht1: every insert goes here
	Older TabView[T] // ht2: the table being drained; no buckets unless resizing
	// ResizingPos is the next bucket of Older to drain: the buckets before
	// it are empty.
	ResizingPos int
}

// View returns a snapshot of the map. Unlike Lookup it does not advance a
// resize.
func (m *HMap[T]) View() View[T] {
	return View[T]{Newer: m.ht1.view(), Older: m.ht2.view(), ResizingPos: m.resizingPos}
}

// view copies the table's chains.
func (t *HTab[T]) view() TabView[T] {
	v := TabView[T]{Size: t.size}
	if t.tab == nil {
		return v
	}
	v.Chains = make([][]*HNode[T], len(t.tab))
	for i, node := range t.tab {
		for ; node != nil; node = node.next {
			v.Chains[i] = append(v.Chains[i], node)
		}
	}
	return v
}
