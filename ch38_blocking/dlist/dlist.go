// Package dlist is an intrusive, circular, doubly linked list.
//
// A list is represented by a sentinel head node that holds no value: an empty
// list is a head linked to itself, and in a non-empty list the head sits
// between the last node and the first one. Because the ring never contains a
// nil link, inserting and detaching need no special cases for the ends and
// both run in O(1). The event loop keeps one such list of idle connections:
// renewing a connection's timer moves it to the back, so the list stays
// sorted by deadline and the nearest timer is always the node after the head.
//
// As everywhere in this project, the node is embedded in the value it links
// (no allocation per membership) and carries an Owner back-pointer, set once
// when the container is created, which stands in for C's container_of.
package dlist

// DList is a list node, embedded in a container of type T. The same type is
// used for the sentinel head, whose Owner stays nil.
type DList[T any] struct {
	prev, next *DList[T]
	Owner      *T // the value this node is embedded in (nil for a head)
}

// Init makes d a ring of one node: an empty list when d is a head, or a
// harmless self-loop for a node that is not in any list yet.
func (d *DList[T]) Init() {
	d.prev, d.next = d, d
}

// Empty reports whether the list headed by d has no nodes. The head must
// have been initialised with Init.
func (d *DList[T]) Empty() bool {
	return d.next == d
}

// Next returns the node after d. Called on a head it yields the first node
// of the list, or the head itself when the list is empty.
func (d *DList[T]) Next() *DList[T] {
	return d.next
}

// Detach unlinks d from the list it is in by joining its neighbours. Like
// the book's version it does not reset d's own links; d may be linked again
// with InsertBefore, which overwrites them. d must currently be in a list.
func (d *DList[T]) Detach() {
	// exercise: ch12-dlist
	p, n := d.prev, d.next
	p.next = n
	n.prev = p
	// end exercise: ch12-dlist
}

// InsertBefore links rookie into the list immediately before d. With d being
// the head, this appends rookie at the back of the list. rookie must not be
// in a list (new, or detached).
func (d *DList[T]) InsertBefore(rookie *DList[T]) {
	// exercise: ch12-dlist
	p := d.prev
	rookie.prev, rookie.next = p, d
	p.next = rookie
	d.prev = rookie
	// end exercise: ch12-dlist
}
