package keytable

import (
	"strconv"
	"testing"
)

// TestCompact: a table that deletes left sparse is shrunk by Compact to a
// size its entries fill to more than a tenth, in work no more than
// CompactWork said, keeping every entry; a table that is not sparse, or
// that is growing, is left alone.
func TestCompact(t *testing.T) {
	h := newItems(Hash[string])
	const n, keep = 200_000, 5
	for i := range n {
		h.Insert(Hash("k"+strconv.Itoa(i)), &item{key: "k" + strconv.Itoa(i), val: i})
	}
	if h.CompactWork() != 0 || h.Compact() != 0 {
		t.Fatalf("a full table was weighed or compacted")
	}
	for i := range n - keep {
		del(h, Hash[string], "k"+strconv.Itoa(i))
	}
	finish(h)
	slots := len(h.cur.tags)
	bound := h.CompactWork()
	if bound == 0 {
		t.Fatalf("a table of %d slots holding %d entries is not sparse", slots, h.Len())
	}
	if did := h.Compact(); did > bound {
		t.Errorf("Compact did %d units of work, CompactWork said %d", did, bound)
	}
	if h.resizing() || len(h.cur.tags) > kSparseFill*keep+kMinSlots {
		t.Errorf("after Compact: %d slots (from %d) for %d entries, resizing %v", len(h.cur.tags), slots, h.Len(), h.resizing())
	}
	for i := n - keep; i < n; i++ {
		if it := get(h, Hash[string], "k"+strconv.Itoa(i)); it == nil || it.val != i {
			t.Fatalf("k%d lost by Compact", i)
		}
	}
	if h.Len() != keep || h.CompactWork() != 0 || h.Compact() != 0 {
		t.Errorf("after Compact: %d entries, CompactWork %d", h.Len(), h.CompactWork())
	}
}

// TestStepShrinksSparse: Step, called once per request, shrinks a table
// that deletes left sparse, a bounded step at a time, so that it does not
// stay sparse until a RANDOMKEY comes.
func TestStepShrinksSparse(t *testing.T) {
	h := newItems(Hash[string])
	const n, keep = 100_000, 5
	for i := range n {
		h.Insert(Hash("k"+strconv.Itoa(i)), &item{key: "k" + strconv.Itoa(i), val: i})
	}
	for i := range n - keep {
		del(h, Hash[string], "k"+strconv.Itoa(i))
	}
	h.Step(0) // the work of the inserts' moves, counted by now
	steps := 0
	for ; ; steps++ {
		if sparse, _ := h.sparse(); !sparse && !h.resizing() {
			break
		}
		if work := h.Step(StepWork); work > 2*StepWork {
			t.Fatalf("a Step of %d did %d units of work", StepWork, work)
		}
		if steps > n {
			t.Fatalf("still sparse after %d steps: %d slots", steps, len(h.cur.tags))
		}
	}
	if len(h.cur.tags) > kSparseFill*keep+kMinSlots || h.Len() != keep {
		t.Errorf("after %d steps: %d slots for %d entries", steps, len(h.cur.tags), h.Len())
	}
	for i := n - keep; i < n; i++ {
		if it := get(h, Hash[string], "k"+strconv.Itoa(i)); it == nil || it.val != i {
			t.Fatalf("k%d lost by the shrink", i)
		}
	}
	t.Logf("%d steps shrank the table to %d slots", steps, len(h.cur.tags))
}
