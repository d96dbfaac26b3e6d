package keytable

import (
	"fmt"
	"testing"
)

// growing returns a table of about n keys, named key:0 on, in the middle
// of a resize that has only just begun.
func growing(t *testing.T, n int, weight func(*item) int) *Table[item] {
	t.Helper()
	h := New(func(it *item) uint64 { return Hash(it.key) }, weight)
	for i := 0; i < n || !h.resizing() || h.next > 0; i++ {
		k := fmt.Sprintf("key:%d", i)
		h.Insert(Hash(k), &item{k, i})
		if i > 4*n {
			t.Fatal("no resize began")
		}
	}
	h.Step(0) // the work so far is the test's, not the test's subject
	return h
}

// TestLookupsMoveNothing: during a resize, lookups (of present and absent
// keys) and deletes move no slot of the old table, however many there
// are: an MGET of 8,190 keys costs 8,190 lookups, where each used to move
// 128 slots along (a million slots in one request, counted nowhere).
func TestLookupsMoveNothing(t *testing.T) {
	h := growing(t, 100000, nil)
	moved, next := h.moved, h.next
	for i := range 8190 {
		get(h, Hash[string], fmt.Sprintf("key:%d", i))
		get(h, Hash[string], fmt.Sprintf("absent:%d", i))
	}
	for i := range 100 {
		del(h, Hash[string], fmt.Sprintf("key:%d", 3*i))
	}
	if h.moved != moved || h.next != next || !h.resizing() {
		t.Errorf("16,380 lookups and 100 deletes moved %d slots of the resize", h.moved-moved)
	}
	if w := h.Step(0); w != 0 {
		t.Errorf("Step(0) after lookups reports %d units of work", w)
	}
}

// TestInsertMovesBounded: every insert during a resize looks at exactly
// kInsertMoves slots of the old table (fewer at its end), and the next
// Step reports their work: a slot each, and for each entry moved, the
// slots its put looked at and its weight.
func TestInsertMovesBounded(t *testing.T) {
	weights := 0
	h := growing(t, 100000, func(it *item) int { weights += len(it.key); return len(it.key) })
	oldSlots := len(h.arrays()[1].tags)
	inserts, total := 0, 0
	for i := 0; h.resizing(); i++ {
		moved, next, probes, live := h.moved, h.next, h.cur.probes, h.Len()-h.cur.live
		weights = 0
		k := fmt.Sprintf("new:%d", i)
		h.Insert(Hash(k), &item{k, i})
		inserts++
		if want := min(kInsertMoves, oldSlots-next); h.moved-moved != want {
			t.Fatalf("an insert moved %d slots along, want %d", h.moved-moved, want)
		}
		// The puts' walks: the moves' and the insert's own (at least 1),
		// which is not the resize's work.
		slots, entries, walks := h.moved-moved, live-(h.Len()-h.cur.live), h.cur.probes-probes
		if h.resizing() {
			w := h.Step(0)
			if lo, hi := slots+weights+entries, slots+weights+walks-1; w < lo || w > hi {
				t.Fatalf("Step reports %d units after an insert that looked at %d slots and moved %d entries: want %d to %d", w, slots, entries, lo, hi)
			}
			total += w
		}
	}
	if inserts > oldSlots/kInsertMoves+1 {
		t.Errorf("%d inserts to empty %d slots", inserts, oldSlots)
	}
	t.Logf("a resize from %d slots: %d inserts, %d units of work reported", oldSlots, inserts, total)
}

// TestStepBounded: Step(budget) does about budget units of work, never
// more than the budget plus one slot's (a slot and an entry moved), and a
// series of them finishes the resize with no other help.
func TestStepBounded(t *testing.T) {
	weight := func(it *item) int { return len(it.key) }
	h := growing(t, 100000, weight)
	oldSlots, steps := len(h.arrays()[1].tags), 0
	for h.resizing() {
		moved := h.moved
		w := h.Step(StepWork)
		steps++
		if w > StepWork+64 || h.moved == moved {
			t.Fatalf("Step(%d) reported %d units, moved %d slots", StepWork, w, h.moved-moved)
		}
		if steps > oldSlots {
			t.Fatal("the steps do not end the resize")
		}
	}
	t.Logf("a resize from %d slots took %d steps of %d units", oldSlots, steps, StepWork)
	want := map[string]int{}
	h.All(func(it *item) { want[it.key] = it.val })
	check(t, h, Hash[string], want)
}
