package dlist

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// item is a container with an embedded list node, as a connection is in the
// server.
type item struct {
	id   int
	node DList[item]
}

func newItems(n int) []*item {
	items := make([]*item, n)
	for i := range items {
		items[i] = &item{id: i}
		items[i].node.Owner = items[i]
	}
	return items
}

// walks returns the owners' ids reached from head following next links and
// following prev links. A walk longer than limit nodes means the ring is
// broken, so it fails the test rather than looping forever.
func walks(t *testing.T, head *DList[item], limit int) (fwd, bwd []int) {
	t.Helper()
	fwd, bwd = []int{}, []int{}
	for n := head.Next(); n != head; n = n.Next() {
		if len(fwd) > limit {
			t.Fatalf("forward walk exceeds %d nodes: ring is broken", limit)
		}
		fwd = append(fwd, n.Owner.id)
	}
	for n := head.prev; n != head; n = n.prev {
		if len(bwd) > limit {
			t.Fatalf("backward walk exceeds %d nodes: ring is broken", limit)
		}
		bwd = append(bwd, n.Owner.id)
	}
	return fwd, bwd
}

// check compares the list in both directions with the reference slice.
func check(t *testing.T, step int, head *DList[item], want []int, limit int) {
	t.Helper()
	fwd, bwd := walks(t, head, limit)
	if diff := cmp.Diff(want, fwd); diff != "" {
		t.Fatalf("step %d: forward walk mismatch (-want +got):\n%s", step, diff)
	}
	rev := slices.Clone(want)
	slices.Reverse(rev)
	if diff := cmp.Diff(rev, bwd); diff != "" {
		t.Fatalf("step %d: backward walk mismatch (-want +got):\n%s", step, diff)
	}
	if got := head.Empty(); got != (len(want) == 0) {
		t.Fatalf("step %d: Empty() = %v with %d nodes", step, got, len(want))
	}
}

func TestInitEmpty(t *testing.T) {
	var head DList[item]
	head.Init()
	if !head.Empty() {
		t.Fatal("fresh head: Empty() = false")
	}
	if head.Next() != &head {
		t.Fatal("fresh head: Next() is not the head itself")
	}
	it := newItems(1)[0]
	head.InsertBefore(&it.node)
	if head.Empty() {
		t.Fatal("after one insert: Empty() = true")
	}
	if got := head.Next().Owner; got != it {
		t.Fatalf("after one insert: Next().Owner = %v, want item %d", got, it.id)
	}
	check(t, 0, &head, []int{0}, 1)
}

// TestRandomAgainstSlice applies random inserts (at any position), detaches
// and moves (detach, then re-insert elsewhere, as renewing an idle timer
// does) and compares the list with a slice after every step.
func TestRandomAgainstSlice(t *testing.T) {
	const poolSize = 40
	steps := 20000
	if testing.Short() {
		steps = 2000
	}
	r := rand.New(rand.NewPCG(12, 13))
	items := newItems(poolSize)
	var head DList[item]
	head.Init()
	var ref []int // ids in list order
	free := make([]int, 0, poolSize)
	for i := range poolSize {
		free = append(free, i)
	}

	// insertAt links item id before the node now at position k of the list
	// (the head when k == len(ref)).
	insertAt := func(id, k int) {
		target := &head
		if k < len(ref) {
			target = &items[ref[k]].node
		}
		target.InsertBefore(&items[id].node)
		ref = slices.Insert(ref, k, id)
	}

	for step := range steps {
		switch op := r.IntN(3); {
		case op == 0 && len(free) > 0: // insert a new or detached node
			j := r.IntN(len(free))
			id := free[j]
			free = slices.Delete(free, j, j+1)
			insertAt(id, r.IntN(len(ref)+1))
		case op == 1 && len(ref) > 0: // detach
			k := r.IntN(len(ref))
			id := ref[k]
			items[id].node.Detach()
			ref = slices.Delete(ref, k, k+1)
			free = append(free, id)
		case op == 2 && len(ref) > 0: // move
			k := r.IntN(len(ref))
			id := ref[k]
			items[id].node.Detach()
			ref = slices.Delete(ref, k, k+1)
			insertAt(id, r.IntN(len(ref)+1))
		default:
			continue
		}
		check(t, step, &head, ref, poolSize)
		if len(ref) > 0 && head.Next().Owner.id != ref[0] {
			t.Fatalf("step %d: Next() of head is %d, want %d", step, head.Next().Owner.id, ref[0])
		}
	}
}

// TestReinsertDetached checks that a detached node, whose own links are left
// stale, can be linked again, including after the list went empty.
func TestReinsertDetached(t *testing.T) {
	items := newItems(3)
	var head DList[item]
	head.Init()
	for _, it := range items {
		head.InsertBefore(&it.node)
	}
	check(t, 0, &head, []int{0, 1, 2}, 3)

	items[1].node.Detach()
	check(t, 1, &head, []int{0, 2}, 3)
	head.InsertBefore(&items[1].node) // back in, at the tail
	check(t, 2, &head, []int{0, 2, 1}, 3)

	items[0].node.Detach() // the first node goes to the back: timer renewal
	head.InsertBefore(&items[0].node)
	check(t, 3, &head, []int{2, 1, 0}, 3)

	items[2].node.Detach()
	items[1].node.Detach()
	items[0].node.Detach()
	check(t, 4, &head, []int{}, 3)

	head.InsertBefore(&items[2].node) // an emptied list takes nodes again
	check(t, 5, &head, []int{2}, 3)
	items[2].node.InsertBefore(&items[0].node) // before a re-inserted node
	check(t, 6, &head, []int{0, 2}, 3)
}
