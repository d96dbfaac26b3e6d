package avl

import (
	"math"
	"strconv"
	"testing"
)

// TestOffset builds the tree of 0..sz-1 for every size below the bound and
// checks Offset between every pair of nodes, and just past both ends. The
// work grows with the cube of the bound; 250 gives trees of height 1 to 8,
// each height in many shapes.
func TestOffset(t *testing.T) {
	t.Parallel()
	for sz := uint32(1); sz < maxSize(250, 100); sz++ {
		var c container
		nodes := make([]*AVLNode[data], sz)
		for i := range sz {
			nodes[i] = &c.add(i).node
		}
		if err := verify(nil, c.root); err != nil {
			t.Fatalf("size %d: %v", sz, err)
		}

		first := c.root
		for first.Left != nil {
			first = first.Left
		}
		for i := range sz {
			node := Offset(first, int64(i))
			if node != nodes[i] {
				t.Fatalf("size %d: Offset(first, %d) is %s, want node %d",
					sz, i, describe(node), i)
			}
			for j := range sz {
				off := int64(j) - int64(i)
				if got := Offset(node, off); got != nodes[j] {
					t.Fatalf("size %d: Offset(node %d, %d) is %s, want node %d",
						sz, i, off, describe(got), j)
				}
			}
			for _, off := range []int64{
				-int64(i) - 1, int64(sz - i), // one step past either end
				math.MinInt64, math.MaxInt64, // far past either end
			} {
				if got := Offset(node, off); got != nil {
					t.Fatalf("size %d: Offset(node %d, %d) is %s, want nil",
						sz, i, off, describe(got))
				}
			}
		}
	}
}

// describe names a node by its value for failure messages.
func describe(node *AVLNode[data]) string {
	if node == nil {
		return "nil"
	}
	return "node " + strconv.FormatUint(uint64(node.Owner.val), 10)
}

func BenchmarkOffset(b *testing.B) {
	const n = 1 << 16
	var c container
	for i := range uint32(n) {
		c.add(i)
	}
	first := c.root
	for first.Left != nil {
		first = first.Left
	}
	for b.Loop() {
		if Offset(first, n-1) == nil {
			b.Fatal("last node not found")
		}
	}
}
