package main

import (
	"fmt"
	"sort"

	"example.com/byor/ch13_heap_ttl/hashtable"
	"example.com/byor/ch13_heap_ttl/heap"
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

func init() {
	rehashSetters = append(rehashSetters, hashtable.SetResizingWork)
}

type heapEnt struct {
	node     hashtable.HNode[heapEnt]
	key, val string
	heapIdx  int // the position of the key's timer in the heap, or -1
}

func heapEq(a, b *hashtable.HNode[heapEnt]) bool {
	return a.HCode == b.HCode && a.Owner.key == b.Owner.key
}

func heapKey(key string) *heapEnt {
	e := &heapEnt{key: key, heapIdx: -1}
	e.node.Owner = e
	e.node.HCode = hashtable.StrHash(key)
	return e
}

type heapWorld struct {
	db      hashtable.HMap[heapEnt]
	heap    []heap.HeapItem[heapEnt]
	nowMs   uint64
	touched string
	slots   map[string]int // each key's slot before the last command
	expired []string
}

// setTTL is chapter 13's entry_set_ttl, on the view's clock (Val in ms).
func (w *heapWorld) setTTL(e *heapEnt, ttlMs int64) string {
	if ttlMs < 0 {
		if e.heapIdx == -1 {
			return "server.entrySetTTL: no timer to remove"
		}
		heap.Delete(&w.heap, e.heapIdx)
		return "heap.Delete: the last item fills the hole, then heap.Update sifts it"
	}
	fn, from := "heap.Upsert: a new leaf", len(w.heap)
	if e.heapIdx != -1 {
		fn, from = fmt.Sprintf("heap.Upsert: slot %d gets the new time", e.heapIdx), e.heapIdx
	}
	heap.Upsert(&w.heap, e.heapIdx, heap.HeapItem[heapEnt]{Val: w.nowMs + uint64(ttlMs), Ref: &e.heapIdx, Owner: e})
	return fn + "; heap.Update: " + sift(from, e.heapIdx)
}

func (w *heapWorld) lookup(key string) *heapEnt {
	if n := w.db.Lookup(&heapKey(key).node, heapEq); n != nil {
		return n.Owner
	}
	return nil
}

func (w *heapWorld) do(args []string) (string, []string) {
	w.touched, w.expired = "", nil
	w.slots = map[string]int{}
	for i, it := range w.heap {
		w.slots[it.Owner.key] = i
	}
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
		e := heapKey(args[1])
		e.val = args[2]
		w.db.Insert(&e.node)
		return replyNil(), []string{"server.doSet", "hashtable.(*HMap).Insert: a new key, no timer"}
	case is(args, "del", 2):
		n := w.db.Pop(&heapKey(args[1]).node, heapEq)
		if n == nil {
			return replyInt(0), []string{"server.doDel", "hashtable.(*HMap).Pop: absent"}
		}
		return replyInt(1), []string{"server.doDel", "hashtable.(*HMap).Pop", "server.entryDel: entrySetTTL(-1)", w.setTTL(n.Owner, -1)}
	case is(args, "pexpire", 3):
		return pexpireCmd(args, w.lookup, w.setTTL, &w.touched)
	case is(args, "pttl", 2):
		return pttlCmd(args, w.lookup, func(i int) int64 { return int64(w.heap[i].Val - w.nowMs) },
			func(i int) string {
				return fmt.Sprintf("server.doTTL: the entry's heapIdx %d finds its timer in O(1)", i)
			}, &w.touched)
	case is(args, "wait", 2):
		if !advanceClock(&w.nowMs, args[1]) {
			return replyErr("expect milliseconds"), nil
		}
		ran := []string{fmt.Sprintf("poll() sleeps; the clock is now %d ms", w.nowMs), "server.processTimers: expire while the root is due"}
		for len(w.heap) > 0 && w.heap[0].Val <= w.nowMs {
			e := w.heap[0].Owner
			w.db.Pop(&e.node, func(a, b *hashtable.HNode[heapEnt]) bool { return a == b })
			heap.Delete(&w.heap, e.heapIdx)
			w.expired = append(w.expired, e.key)
			ran = append(ran, fmt.Sprintf("%s expires: hashtable.(*HMap).Pop, server.entryDel, heap.Delete(0)", e.key))
		}
		return "ok", ran
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
func heapCells(n int, key func(i int) string, val func(i int) uint64, ownerIdx func(i int) int, nowMs uint64, touched string, slots map[string]int) []cell {
	var cells []cell
	for i := 0; i < n; i++ {
		k := key(i)
		cl := cell{label: fmt.Sprintf("[%d] %s", i, k), sub: fmt.Sprintf("at %d idx=%d", val(i), ownerIdx(i)),
			attrs: fmt.Sprintf(` data-slot="%d"`, i)}
		old, had := slots[k]
		switch {
		case k == touched && !had:
			cl.hl = hlNew
		case k == touched:
			cl.hl = hlHit
		case had && old != i:
			cl.hl = hlMoved
		}
		if val(i) <= nowMs {
			cl.hl = hlDue
		}
		cells = append(cells, cl)
	}
	return cells
}

// heapTree is the same items as a tree: the children of slot i are at 2i+1
// and 2i+2.
func heapTree(cells []cell, i int, key func(i int) string) *tnode {
	if i >= len(cells) {
		return nil
	}
	return &tnode{id: key(i), label: cells[i].label, sub: cells[i].sub, hl: cells[i].hl,
		left: heapTree(cells, 2*i+1, key), right: heapTree(cells, 2*i+2, key)}
}

// drawHeap draws the array, and the tree under it, at y.
func (c *canvas) drawHeap(y int, cells []cell, key func(i int) string, nowMs uint64, expired []string) {
	c.text(0, y+12, "title", fmt.Sprintf("now %d ms; the heap as an array (slot, key, expiry, the owner's heapIdx)", nowMs))
	if len(cells) == 0 {
		c.text(0, y+30, "sub", "no timers")
	}
	c.drawRow(0, y+20, cells, false)
	if len(expired) > 0 {
		c.text(0, y+cellH+36, "sub", fmt.Sprintf("expired: %v", expired))
	}
	if len(cells) > 0 {
		c.text(0, y+cellH+56, "title", "the same heap as a tree: slot i's children are 2i+1 and 2i+2")
		c.drawTree(0, y+cellH+66, heapTree(cells, 0, key))
	}
}

func (w *heapWorld) draw() string {
	var c canvas
	key := func(i int) string { return w.heap[i].Owner.key }
	cells := heapCells(len(w.heap), key, func(i int) uint64 { return w.heap[i].Val },
		func(i int) int { return w.heap[i].Owner.heapIdx }, w.nowMs, w.touched, w.slots)
	c.drawHeap(0, cells, key, w.nowMs, w.expired)
	// The keys without a timer, for completeness.
	var plain []string
	w.db.Scan(func(n *hashtable.HNode[heapEnt]) {
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
