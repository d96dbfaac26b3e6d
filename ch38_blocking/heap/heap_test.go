package heap

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// timer is an owner with an embedded heap index, like the server's entry.
type timer struct {
	id  int
	idx int // position of this timer's item in the heap, -1 if none
}

func newTimers(n int) []*timer {
	ts := make([]*timer, n)
	for i := range ts {
		ts[i] = &timer{id: i, idx: -1}
	}
	return ts
}

func itemFor(tm *timer, val uint64) HeapItem[timer] {
	return HeapItem[timer]{Val: val, Owner: tm}
}

// idxOf tells the heap where a timer keeps its index.
func idxOf(tm *timer) *int { return &tm.idx }

// checkHeap verifies the heap against the reference (owner id -> value):
// order of every parent/child pair, back-references, size, contents, the
// minimum, and that owners outside the heap hold -1.
func checkHeap(t *testing.T, step int, h []HeapItem[timer], ref map[int]uint64, timers []*timer) {
	t.Helper()
	if len(h) != len(ref) {
		t.Fatalf("step %d: len(heap) = %d, reference has %d", step, len(h), len(ref))
	}
	for i := range h {
		// Child positions are spelled out here rather than taken from the
		// package's helpers, so a wrong helper cannot hide itself.
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[c].Val < h[i].Val {
				t.Fatalf("step %d: child %d (%d) < parent %d (%d)", step, c, h[c].Val, i, h[i].Val)
			}
		}
		if h[i].Owner.idx != i {
			t.Fatalf("step %d: item %d: its owner's index is %d", step, i, h[i].Owner.idx)
		}
	}
	got := make(map[int]uint64, len(h))
	for _, it := range h {
		got[it.Owner.id] = it.Val
	}
	if diff := cmp.Diff(ref, got); diff != "" {
		t.Fatalf("step %d: heap contents (-want +got):\n%s", step, diff)
	}
	for _, tm := range timers {
		if _, in := ref[tm.id]; !in && tm.idx != -1 {
			t.Fatalf("step %d: timer %d not in the heap has idx %d", step, tm.id, tm.idx)
		}
	}
	if len(ref) > 0 {
		want := uint64(math.MaxUint64)
		for _, v := range ref {
			want = min(want, v)
		}
		if h[0].Val != want {
			t.Fatalf("step %d: heap minimum %d, reference minimum %d", step, h[0].Val, want)
		}
	}
}

func TestIndexHelpers(t *testing.T) {
	for i := range 1000 {
		if l, r := left(i), right(i); l != 2*i+1 || r != l+1 {
			t.Fatalf("left(%d), right(%d) = %d, %d", i, i, l, r)
		}
		if p := parent(left(i)); p != i {
			t.Fatalf("parent(left(%d)) = %d", i, p)
		}
		if p := parent(right(i)); p != i {
			t.Fatalf("parent(right(%d)) = %d", i, p)
		}
	}
}

// TestRandomAgainstMap mixes inserts, rescheduling through Upsert and
// through Update, deletes of arbitrary timers by their owner's index, and
// pops of the minimum, checking the whole heap after every step.
func TestRandomAgainstMap(t *testing.T) {
	const poolSize = 200
	steps := 20000
	if testing.Short() {
		steps = 2000
	}
	r := rand.New(rand.NewPCG(21, 22))
	timers := newTimers(poolSize)
	ref := map[int]uint64{}
	var in, out []int // ids in and out of the heap; slices keep picks deterministic
	for i := range poolSize {
		out = append(out, i)
	}
	var h []HeapItem[timer]

	// A narrow range makes equal values common; the extremes are included.
	value := func() uint64 {
		switch r.IntN(20) {
		case 0:
			return 0
		case 1:
			return math.MaxUint64
		default:
			return r.Uint64N(64)
		}
	}
	take := func(s *[]int, j int) int {
		id := (*s)[j]
		*s = slices.Delete(*s, j, j+1)
		return id
	}
	// removed checks what every removal must leave behind.
	removed := func(step int, tm *timer) {
		if tm.idx != -1 {
			t.Fatalf("step %d: removed timer %d has idx %d, want -1", step, tm.id, tm.idx)
		}
		if vacated := h[:len(h)+1][len(h)]; vacated.Owner != nil {
			t.Fatalf("step %d: slot vacated by Delete still holds pointers", step)
		}
	}

	for step := range steps {
		switch op := r.IntN(5); {
		case op == 0 && len(out) > 0: // add a timer
			tm := timers[take(&out, r.IntN(len(out)))]
			v := value()
			Upsert(&h, tm.idx, itemFor(tm, v), idxOf)
			ref[tm.id] = v
			in = append(in, tm.id)
		case op == 1 && len(in) > 0: // reschedule with Upsert
			tm := timers[in[r.IntN(len(in))]]
			v := value()
			Upsert(&h, tm.idx, itemFor(tm, v), idxOf)
			ref[tm.id] = v
		case op == 2 && len(in) > 0: // reschedule in place with Update
			tm := timers[in[r.IntN(len(in))]]
			v := value()
			h[tm.idx].Val = v
			Update(h, tm.idx, idxOf)
			ref[tm.id] = v
		case op == 3 && len(in) > 0: // delete an arbitrary timer
			tm := timers[take(&in, r.IntN(len(in)))]
			Delete(&h, tm.idx, idxOf)
			delete(ref, tm.id)
			out = append(out, tm.id)
			removed(step, tm)
		case op == 4 && len(in) > 0: // expire the nearest timer
			tm := h[0].Owner
			if v := ref[tm.id]; h[0].Val != v {
				t.Fatalf("step %d: root value %d, reference says %d", step, h[0].Val, v)
			}
			Delete(&h, 0, idxOf)
			delete(ref, tm.id)
			in = slices.DeleteFunc(in, func(id int) bool { return id == tm.id })
			out = append(out, tm.id)
			removed(step, tm)
		default:
			continue
		}
		checkHeap(t, step, h, ref, timers)
	}
}

// TestPopOrder pushes random values and pops the root until the heap is
// empty: the values must come out sorted.
func TestPopOrder(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(31, 32))
	timers := newTimers(n)
	var h []HeapItem[timer]
	var vals []uint64
	for _, tm := range timers {
		v := r.Uint64N(1000)
		vals = append(vals, v)
		Upsert(&h, -1, itemFor(tm, v), idxOf)
	}
	var got []uint64
	for len(h) > 0 {
		tm := h[0].Owner
		got = append(got, h[0].Val)
		Delete(&h, 0, idxOf)
		if tm.idx != -1 {
			t.Fatalf("popped timer %d has idx %d, want -1", tm.id, tm.idx)
		}
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(vals)), got); diff != "" {
		t.Fatalf("pop order (-want +got):\n%s", diff)
	}
}
