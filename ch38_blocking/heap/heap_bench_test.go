package heap

import (
	stdheap "container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
)

// stdItem and stdQueue are the usual container/heap priority queue with an
// index kept current in Swap, so heap.Fix can reschedule an arbitrary item.
type stdItem struct {
	val   uint64
	index int
}

type stdQueue []*stdItem

func (q stdQueue) Len() int           { return len(q) }
func (q stdQueue) Less(i, j int) bool { return q[i].val < q[j].val }
func (q stdQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *stdQueue) Push(x any) {
	it := x.(*stdItem)
	it.index = len(*q)
	*q = append(*q, it)
}
func (q *stdQueue) Pop() any {
	old := *q
	n := len(old) - 1
	it := old[n]
	old[n] = nil
	it.index = -1
	*q = old[:n]
	return it
}

var benchSizes = []int{1 << 10, 1 << 16}

const randMask = 1<<16 - 1

// randoms returns a fixed table of values, so the timed loops spend no time
// on random number generation.
func randoms(seed uint64, bound uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	v := make([]uint64, randMask+1)
	for i := range v {
		v[i] = r.Uint64N(bound)
	}
	return v
}

func fillOwn(n int, vals []uint64) ([]HeapItem[timer], []*timer) {
	timers := newTimers(n)
	h := make([]HeapItem[timer], 0, n)
	for i, tm := range timers {
		Upsert(&h, -1, itemFor(tm, vals[i&randMask]), idxOf)
	}
	return h, timers
}

func fillStd(n int, vals []uint64) (stdQueue, []*stdItem) {
	items := make([]*stdItem, n)
	q := make(stdQueue, 0, n)
	for i := range items {
		items[i] = &stdItem{val: vals[i&randMask]}
		stdheap.Push(&q, items[i])
	}
	return q, items
}

// BenchmarkPushPop expires the nearest timer and schedules it again a
// random delay later, keeping the heap size constant, as a timer loop does.
func BenchmarkPushPop(b *testing.B) {
	const delayBound = 1 << 20
	vals, delays := randoms(1, 1<<30), randoms(2, delayBound)
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("byor/n=%d", n), func(b *testing.B) {
			h, _ := fillOwn(n, vals)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				tm, v := h[0].Owner, h[0].Val
				Delete(&h, 0, idxOf)
				Upsert(&h, -1, itemFor(tm, v+delays[i&randMask]), idxOf)
			}
		})
		b.Run(fmt.Sprintf("stdlib/n=%d", n), func(b *testing.B) {
			q, _ := fillStd(n, vals)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				it := stdheap.Pop(&q).(*stdItem)
				it.val += delays[i&randMask]
				stdheap.Push(&q, it)
			}
		})
	}
}

// BenchmarkUpdate gives an arbitrary timer, found through its owner's
// index, a new value.
func BenchmarkUpdate(b *testing.B) {
	vals, picks := randoms(3, 1<<30), randoms(4, 1<<62)
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("byor/n=%d", n), func(b *testing.B) {
			h, timers := fillOwn(n, vals)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				tm := timers[picks[i&randMask]%uint64(n)]
				h[tm.idx].Val = vals[(i+7)&randMask]
				Update(h, tm.idx, idxOf)
			}
		})
		b.Run(fmt.Sprintf("stdlib/n=%d", n), func(b *testing.B) {
			q, items := fillStd(n, vals)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				it := items[picks[i&randMask]%uint64(n)]
				it.val = vals[(i+7)&randMask]
				stdheap.Fix(&q, it.index)
			}
		})
	}
}
