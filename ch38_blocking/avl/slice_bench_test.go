package avl

import (
	"fmt"
	"slices"
	"testing"
)

// The AVL tree next to the simplest alternative, a slice kept sorted with
// binary search and copy. The slice has no per-element overhead and
// answers a rank query by indexing, but each insert or delete moves half
// the slice on average; the tree pays O(log n) pointer hops for all of
// it. These benchmarks show where each one wins (docs/performance.md).

// BenchmarkSortedInsertDelete inserts n random values, then deletes them
// all, reporting the cost per insert or delete.
func BenchmarkSortedInsertDelete(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		rng := newRand()
		vals := make([]uint32, n)
		for i := range vals {
			vals[i] = rng.Uint32()
		}
		b.Run(fmt.Sprintf("avl/n=%d", n), func(b *testing.B) {
			var c container
			for i := 0; i < b.N; i++ {
				for _, v := range vals {
					c.add(v)
				}
				for _, v := range vals {
					c.del(v)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/elem")
		})
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			var s []uint32
			for i := 0; i < b.N; i++ {
				for _, v := range vals {
					pos, _ := slices.BinarySearch(s, v)
					s = slices.Insert(s, pos, v)
				}
				for _, v := range vals {
					if pos, ok := slices.BinarySearch(s, v); ok {
						s = slices.Delete(s, pos, pos+1)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/elem")
		})
	}
}

// BenchmarkRankQuery finds the element of a random rank among 65,536:
// Offset from the first node for the tree, an index for the slice.
func BenchmarkRankQuery(b *testing.B) {
	const n = 1 << 16
	rng := newRand()
	ranks := make([]int64, 1024)
	for i := range ranks {
		ranks[i] = int64(rng.IntN(n))
	}
	var c container
	s := make([]uint32, n)
	for i := range uint32(n) {
		c.add(i)
		s[i] = i
	}
	first := c.root
	for first.Left != nil {
		first = first.Left
	}
	b.Run("avl", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if Offset(first, ranks[i%len(ranks)]) == nil {
				b.Fatal("rank not found")
			}
		}
	})
	b.Run("slice", func(b *testing.B) {
		sum := uint32(0)
		for i := 0; i < b.N; i++ {
			sum += s[ranks[i%len(ranks)]]
		}
		_ = sum
	})
}
