package avl

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// data is the test's value type, with the tree node embedded in it.
type data struct {
	node AVLNode[data]
	val  uint32
}

// container owns a tree of data values ordered by val, duplicates allowed.
type container struct {
	root *AVLNode[data]
}

// add makes a new value and inserts it.
func (c *container) add(val uint32) *data {
	d := &data{val: val}
	d.node.Owner = d
	Init(&d.node)
	c.insert(d)
	return d
}

// insert links an initialised value into the tree the way a user of the
// package does: walk down to an empty slot, attach the node there, then let
// Fix rebalance.
func (c *container) insert(d *data) {
	if c.root == nil {
		c.root = &d.node
		return
	}
	cur := c.root
	for {
		from := &cur.Right
		if d.val < cur.Owner.val {
			from = &cur.Left
		}
		if *from == nil {
			*from = &d.node
			d.node.Parent = cur
			c.root = Fix(&d.node)
			return
		}
		cur = *from
	}
}

// del removes one node holding val and reports whether there was one.
func (c *container) del(val uint32) bool {
	cur := c.root
	for cur != nil && cur.Owner.val != val {
		if val < cur.Owner.val {
			cur = cur.Left
		} else {
			cur = cur.Right
		}
	}
	if cur == nil {
		return false
	}
	c.root = Del(cur)
	return true
}

// dispose empties the tree by repeatedly removing the root.
func (c *container) dispose() {
	for c.root != nil {
		c.root = Del(c.root)
	}
}

// verify checks every invariant of the subtree at node, whose parent must be
// parent, and describes the first violation it finds. It returns an error
// rather than taking a testing.TB because it recurses over every node, and
// t.Helper on each call would dominate the exhaustive tests.
func verify(parent, node *AVLNode[data]) error {
	if node == nil {
		return nil
	}
	if node.Owner == nil || &node.Owner.node != node {
		return fmt.Errorf("node %p: Owner does not point at the node's container", node)
	}
	val := node.Owner.val
	if node.Parent != parent {
		return fmt.Errorf("node %d: wrong parent link", val)
	}
	if err := verify(node, node.Left); err != nil {
		return err
	}
	if err := verify(node, node.Right); err != nil {
		return err
	}
	if want := 1 + cnt(node.Left) + cnt(node.Right); node.Cnt != want {
		return fmt.Errorf("node %d: Cnt = %d, want %d", val, node.Cnt, want)
	}
	l, r := depth(node.Left), depth(node.Right)
	if l > r+1 || r > l+1 {
		return fmt.Errorf("node %d: unbalanced, left depth %d, right depth %d", val, l, r)
	}
	if want := 1 + max(l, r); node.Depth != want {
		return fmt.Errorf("node %d: Depth = %d, want %d", val, node.Depth, want)
	}
	if node.Left != nil && node.Left.Owner.val > val {
		return fmt.Errorf("node %d: left child %d is larger", val, node.Left.Owner.val)
	}
	if node.Right != nil && node.Right.Owner.val < val {
		return fmt.Errorf("node %d: right child %d is smaller", val, node.Right.Owner.val)
	}
	return nil
}

// extract appends the values of the subtree at node in order.
func extract(node *AVLNode[data], out []uint32) []uint32 {
	if node == nil {
		return out
	}
	out = extract(node.Left, out)
	out = append(out, node.Owner.val)
	return extract(node.Right, out)
}

// check verifies the whole tree and compares its contents with ref, a sorted
// slice standing in for the book's multiset.
func (c *container) check(t testing.TB, ref []uint32) {
	t.Helper()
	if err := verify(nil, c.root); err != nil {
		t.Fatal(err)
	}
	if got := cnt(c.root); got != uint32(len(ref)) {
		t.Fatalf("root Cnt = %d, want %d", got, len(ref))
	}
	// cmp.Diff walks the slices by reflection, which dominates the run time
	// of the exhaustive tests, so it is only asked to explain a mismatch that
	// the plain comparison has already found.
	got := extract(c.root, nil)
	if !slices.Equal(ref, got) {
		t.Fatalf("in-order contents mismatch (-want +got):\n%s",
			cmp.Diff(ref, got, cmpopts.EquateEmpty()))
	}
}

// refAdd inserts val into the sorted reference slice.
func refAdd(ref []uint32, val uint32) []uint32 {
	i, _ := slices.BinarySearch(ref, val)
	return slices.Insert(ref, i, val)
}

// refDel removes one val from the sorted reference slice, if present.
func refDel(ref []uint32, val uint32) ([]uint32, bool) {
	i, found := slices.BinarySearch(ref, val)
	if !found {
		return ref, false
	}
	return slices.Delete(ref, i, i+1), true
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(10, 11)) }

// addSequential inserts 0, 3, 6, ... below 1000, checking after each step.
func addSequential(t *testing.T, c *container, ref []uint32) []uint32 {
	t.Helper()
	for i := uint32(0); i < 1000; i += 3 {
		c.add(i)
		ref = refAdd(ref, i)
		c.check(t, ref)
	}
	return ref
}

// addRandom inserts 100 random values below 1000 (duplicates included),
// checking after each step.
func addRandom(t *testing.T, rng *rand.Rand, c *container, ref []uint32) []uint32 {
	t.Helper()
	for range 100 {
		val := rng.Uint32N(1000)
		c.add(val)
		ref = refAdd(ref, val)
		c.check(t, ref)
	}
	return ref
}

func TestSingle(t *testing.T) {
	var c container
	c.check(t, nil)
	c.add(123)
	c.check(t, []uint32{123})
	if c.del(124) {
		t.Fatal("del(124) found a value that was never added")
	}
	c.check(t, []uint32{123})
	if !c.del(123) {
		t.Fatal("del(123) did not find the only value")
	}
	c.check(t, nil)
	if c.root != nil {
		t.Fatal("tree not empty after deleting its only node")
	}
}

// TestInit checks that Init resets every tree field of a used node but keeps
// Owner, which is set only once when the container is made.
func TestInit(t *testing.T) {
	type fields struct {
		Depth, Cnt          uint32
		Left, Right, Parent *AVLNode[data]
		Owner               *data
	}
	var other AVLNode[data]
	d := &data{val: 1}
	d.node = AVLNode[data]{Depth: 7, Cnt: 9, Left: &other, Right: &other, Parent: &other, Owner: d}
	Init(&d.node)
	got := fields(d.node) // fails to compile if AVLNode gains a field
	want := fields{Depth: 1, Cnt: 1, Owner: d}
	// Compare pointers by identity: following Owner would recurse into the
	// node itself.
	identity := cmp.Options{
		cmp.Comparer(func(a, b *data) bool { return a == b }),
		cmp.Comparer(func(a, b *AVLNode[data]) bool { return a == b }),
	}
	if diff := cmp.Diff(want, got, identity); diff != "" {
		t.Fatalf("after Init (-want +got):\n%s", diff)
	}
}

func TestSequentialInsert(t *testing.T) {
	var c container
	ref := addSequential(t, &c, nil)
	// 334 sorted keys must still give a tree of logarithmic height; an AVL
	// tree of height h has at least F(h+2)-1 nodes, so 334 nodes allow at
	// most 11 levels.
	if d := depth(c.root); d > 11 {
		t.Fatalf("height %d for %d nodes", d, len(ref))
	}
}

func TestRandomInsert(t *testing.T) {
	var c container
	ref := addSequential(t, &c, nil)
	addRandom(t, newRand(), &c, ref)
}

func TestRandomDelete(t *testing.T) {
	rng := newRand()
	var c container
	ref := addSequential(t, &c, nil)
	ref = addRandom(t, rng, &c, ref)
	hits := 0
	for range 200 {
		val := rng.Uint32N(1000)
		var want bool
		ref, want = refDel(ref, val)
		if got := c.del(val); got != want {
			t.Fatalf("del(%d) = %v, want %v", val, got, want)
		}
		if want {
			hits++
		}
		c.check(t, ref)
	}
	// Guard against the seed producing a run that never deletes anything.
	if hits == 0 {
		t.Fatal("random deletion never hit a stored value")
	}
}

// maxSize bounds the exhaustive tests: every tree size below it is tried.
func maxSize(long, short uint32) uint32 {
	if testing.Short() {
		return short
	}
	return long
}

func TestInsertEveryPosition(t *testing.T) {
	t.Parallel()
	for sz := range maxSize(200, 60) {
		for val := range sz {
			var c container
			var ref []uint32
			for i := range sz {
				if i == val {
					continue
				}
				c.add(i)
				ref = refAdd(ref, i)
			}
			c.check(t, ref)
			c.add(val)
			ref = refAdd(ref, val)
			c.check(t, ref)
		}
	}
}

func TestDeleteEveryPosition(t *testing.T) {
	t.Parallel()
	for sz := range maxSize(200, 60) {
		for val := range sz {
			var c container
			var ref []uint32
			for i := range sz {
				c.add(i)
				ref = refAdd(ref, i)
			}
			c.check(t, ref)
			if !c.del(val) {
				t.Fatalf("size %d: del(%d) did not find it", sz, val)
			}
			ref, _ = refDel(ref, val)
			c.check(t, ref)
		}
	}
}

// TestDeleteRoot empties a tree the way dispose does, always removing the
// root (the case where Del must hand back a new root), checking each step.
func TestDeleteRoot(t *testing.T) {
	rng := newRand()
	var c container
	var ref []uint32
	for range 300 {
		val := rng.Uint32N(1000)
		c.add(val)
		ref = refAdd(ref, val)
	}
	c.check(t, ref)
	for c.root != nil {
		ref, _ = refDel(ref, c.root.Owner.val)
		c.root = Del(c.root)
		c.check(t, ref)
	}
	if len(ref) != 0 {
		t.Fatalf("tree empty but %d values remain in the reference", len(ref))
	}
}

// TestReinsert moves values within the tree the way the sorted set updates a
// score: Del the node, change its key, Init it and insert it again.
func TestReinsert(t *testing.T) {
	rng := newRand()
	var c container
	var ref []uint32
	nodes := make([]*data, 0, 200)
	for range 200 {
		val := rng.Uint32N(1000)
		nodes = append(nodes, c.add(val))
		ref = refAdd(ref, val)
	}
	for range 500 {
		d := nodes[rng.IntN(len(nodes))]
		ref, _ = refDel(ref, d.val)
		c.root = Del(&d.node)
		d.val = rng.Uint32N(1000)
		Init(&d.node)
		c.insert(d)
		ref = refAdd(ref, d.val)
		c.check(t, ref)
	}
}

func BenchmarkInsertDelete(b *testing.B) {
	const n = 1 << 12
	rng := newRand()
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = rng.Uint32()
	}
	var c container
	for b.Loop() {
		for _, v := range vals {
			c.add(v)
		}
		c.dispose()
	}
}
