package main

import (
	"fmt"
	"sort"

	"example.com/byor/ch13_heap_ttl/hashtable"
)

// The heap view: chapter 13's TTL timers, a heap.HeapItem slice whose items
// point back at their entry's heap index, beside the key space they expire.

func heapView() *view {
	return &view{
		name:    "heap",
		hashes:  true,
		chapter: "ch13_heap_ttl",
		title:   "heap: TTL timers as an array and as a tree (chapter 13)",
		help:    "set K V · get K · del K · pexpire K MS · pttl K · wait MS",
		make:    func() world { return &heapWorld{} },
		scenarios: []scenario{
			{"the nearest expiry rises to the root", append(numbered("set k%d v", 1, 8), "pexpire k1 7000", "pexpire k2 6000", "pexpire k3 5000", "pexpire k4 4000", "pexpire k5 3000", "pexpire k6 2000", "pexpire k7 1000")},
			{"an update sifts down, a delete fills the hole", append(numbered("set k%d v", 1, 6), "pexpire k1 1000", "pexpire k2 2000", "pexpire k3 3000", "pexpire k4 4000", "pexpire k5 5000", "pexpire k1 4500", "del k2")},
			{"keys expire as the clock moves", append(numbered("set k%d v", 1, 5), "pexpire k1 3000", "pexpire k2 1000", "pexpire k3 2000", "pexpire k4 4000", "wait 1500", "wait 1000", "pttl k4")},
		},
	}
}

// heapWorld is the timed key space of strings, with the heap view's
// explanations of what each change does to the heap.
type heapWorld struct {
	timedKeys
}

// entrySetTTL is chapter 13's entry_set_ttl (Val in ms), saying where the
// timer went.
func (w *heapWorld) entrySetTTL(e *timedEnt, ttlMs int64) string {
	from := e.heapIdx
	switch {
	case !w.setTTL(e, ttlMs):
		return noTimer
	case ttlMs < 0:
		return "heap.Delete: the last item fills the hole, then heap.Update sifts it"
	case from == -1:
		return "heap.Upsert: a new leaf; heap.Update: " + sift(len(w.heap)-1, e.heapIdx)
	}
	return fmt.Sprintf("heap.Upsert: slot %d gets the new time; heap.Update: %s", from, sift(from, e.heapIdx))
}

// expire is entryDel for a key whose timer is due, which is the heap's root.
func (w *heapWorld) expire(e *timedEnt) []string {
	w.setTTL(e, -1)
	return []string{fmt.Sprintf("%s expires: hashtable.(*HMap).Pop, server.entryDel, heap.Delete(0)", e.key)}
}

func (w *heapWorld) do(args []string) (string, []string) {
	w.begin()
	switch {
	case is(args, "get", 2):
		e := w.lookup(args[1])
		if e == nil {
			return replyNil(), []string{"server.doGet", "hashtable.(*HMap).Lookup: absent"}
		}
		w.touched = e.key
		return replyStr(e.val), []string{"server.doGet", "hashtable.(*HMap).Lookup"}
	case is(args, "set", 3):
		w.touched = args[1]
		if e := w.lookup(args[1]); e != nil {
			e.val = args[2]
			return replyNil(), []string{"server.doSet", "hashtable.(*HMap).Lookup: found, value replaced; its timer stays"}
		}
		w.insert(args[1]).val = args[2]
		return replyNil(), []string{"server.doSet", "hashtable.(*HMap).Insert: a new key, no timer"}
	case is(args, "del", 2):
		e := w.pop(args[1])
		if e == nil {
			return replyInt(0), []string{"server.doDel", "hashtable.(*HMap).Pop: absent"}
		}
		return replyInt(1), []string{"server.doDel", "hashtable.(*HMap).Pop", "server.entryDel: entrySetTTL(-1)", w.entrySetTTL(e, -1)}
	case is(args, "pexpire", 3):
		return w.pexpire(args, w.entrySetTTL)
	case is(args, "pttl", 2):
		return w.pttl(args, func(i int) string {
			return fmt.Sprintf("server.doTTL: the entry's heapIdx %d finds its timer in O(1)", i)
		})
	case is(args, "wait", 2):
		return w.wait(args, "server.processTimers: expire while the root is due", w.expire)
	default:
		return unknown()
	}
}

// sift says where heap.Update moved an item.
func sift(from, to int) string {
	switch {
	case to < from:
		return fmt.Sprintf("up, slot %d to %d", from, to)
	case to > from:
		return fmt.Sprintf("down, slot %d to %d", from, to)
	}
	return fmt.Sprintf("stays in slot %d", to)
}

// heapCells draws the heap's items, each with its slot, its time and the
// index its owner holds, which must be the same slot.
func (k *timedKeys) heapCells() []cell {
	var cells []cell
	for i, it := range k.heap {
		key := it.Owner.key
		cl := cell{label: fmt.Sprintf("[%d] %s", i, key), sub: fmt.Sprintf("at %d idx=%d", it.Val, it.Owner.heapIdx),
			attrs: fmt.Sprintf(` data-slot="%d"`, i)}
		old, had := k.slots[key]
		switch {
		case key == k.touched && !had:
			cl.hl = hlNew
		case key == k.touched:
			cl.hl = hlHit
		case had && old != i:
			cl.hl = hlMoved
		}
		if it.Val <= k.nowMs {
			cl.hl = hlDue
		}
		cells = append(cells, cl)
	}
	return cells
}

// heapTree is the same items as a tree: the children of slot i are at 2i+1
// and 2i+2.
func (k *timedKeys) heapTree(cells []cell, i int) *tnode {
	if i >= len(cells) {
		return nil
	}
	return &tnode{id: k.heap[i].Owner.key, label: cells[i].label, sub: cells[i].sub, hl: cells[i].hl,
		left: k.heapTree(cells, 2*i+1), right: k.heapTree(cells, 2*i+2)}
}

// drawHeap draws k's heap as an array, and as a tree under it, at y; the
// keyspace view draws its heap with it too.
func (c *canvas) drawHeap(y int, k *timedKeys) {
	cells := k.heapCells()
	c.text(0, y+12, "title", fmt.Sprintf("now %d ms; the heap as an array (slot, key, expiry, the owner's heapIdx)", k.nowMs))
	if len(cells) == 0 {
		c.text(0, y+30, "sub", "no timers")
	}
	c.drawRow(0, y+20, cells, false)
	if len(k.expired) > 0 {
		c.text(0, y+cellH+36, "sub", fmt.Sprintf("expired: %v", k.expired))
	}
	if len(cells) > 0 {
		c.text(0, y+cellH+56, "title", "the same heap as a tree: slot i's children are 2i+1 and 2i+2")
		c.drawTree(0, y+cellH+66, k.heapTree(cells, 0))
	}
}

func (w *heapWorld) draw() string {
	var c canvas
	c.drawHeap(0, &w.timedKeys)
	// The keys without a timer, for completeness.
	var plain []string
	w.db.Scan(func(n *hashtable.HNode[timedEnt]) {
		if n.Owner.heapIdx == -1 {
			plain = append(plain, n.Owner.key)
		}
	})
	if len(plain) > 0 {
		sort.Strings(plain)
		c.text(0, c.h+20, "sub", fmt.Sprintf("keys without a TTL: %v", plain))
	}
	return c.svg("heap")
}
