package main

import (
	"fmt"
	"strconv"
	"strings"

	// Chapter 14's hashtable and heap are chapter 13's files unchanged (go
	// run ./tools/chdiff -lineage proves it), so this view shares chapter
	// 13's, and its timed key space, with the heap view.
	"example.com/byor/ch13_heap_ttl/hashtable"
	"example.com/byor/ch14_threadpool/zset"
)

// The keyspace view: the book's final key space, chapter 14's, where every
// structure meets. A key is an entry in the hashtable; it holds a string or
// a sorted set, and may have a timer in the heap. Deleting a large sorted set
// hands its teardown to the thread pool.

func keyspaceView() *view {
	return &view{
		name:    "keyspace",
		hashes:  true,
		chapter: "ch14_threadpool",
		title:   "keyspace: the book's final key space (chapter 14)",
		help:    "set K V · get K · del K · keys · pexpire K MS · pttl K · zadd K SCORE NAME · zrem K NAME · zscore K NAME · zquery K SCORE NAME OFFSET LIMIT · wait MS",
		make:    func() world { return &ksWorld{} },
		scenarios: []scenario{
			{"strings, a sorted set and timers", []string{"set a 1", "set b 2", "zadd z 1 x", "zadd z 2 y", "pexpire a 2000", "pexpire z 1000", "wait 1000", "keys"}},
			{"a resize with timers on the keys", append(numbered("set k%d v", 0, 30), "pexpire k3 500", "pexpire k7 300", "set k30 v", "set k31 v", "set k32 v")},
		},
	}
}

// kLargeContainerSize is chapter 14's threshold: a sorted set with more
// members is torn down on the thread pool.
const kLargeContainerSize = 10000

// ksWorld is the timed key space of strings and sorted sets, and what the
// last command did to the hashtable's resizing, for the drawing.
type ksWorld struct {
	timedKeys
	added bool            // the last command inserted w.touched
	moved map[string]bool // the keys the last command moved to the newer table
}

// entrySetTTL is chapter 14's, naming the heap function that ran.
func (w *ksWorld) entrySetTTL(e *timedEnt, ttlMs int64) string {
	switch {
	case !w.setTTL(e, ttlMs):
		return noTimer
	case ttlMs < 0:
		return "heap.Delete"
	}
	return "heap.Upsert"
}

// entryDel is chapter 14's: the timer goes, and a large sorted set is torn
// down by the thread pool rather than the event loop.
func (w *ksWorld) entryDel(e *timedEnt) []string {
	ran := []string{"server.entryDel: entrySetTTL(-1)", w.entrySetTTL(e, -1)}
	if e.zset != nil && e.zset.Len() > kLargeContainerSize {
		return append(ran, fmt.Sprintf("%s members > kLargeContainerSize: threadpool.(*ThreadPool).Queue(entryDestroy), off the event loop", strconv.Itoa(e.zset.Len())))
	}
	if e.zset != nil {
		n := e.zset.Len()
		e.zset.Clear()
		return append(ran, fmt.Sprintf("%s <= kLargeContainerSize: entryDestroy on the event loop, zset.(*ZSet).Clear", plural(n, "member")))
	}
	return ran
}

func (w *ksWorld) do(args []string) (string, []string) {
	before := w.db.View()
	w.begin()
	w.added = false
	reply, ran := w.run(args)
	after := w.db.View()
	w.moved = ksMoved(before, after)
	nb, na := len(before.Newer.Chains), len(after.Newer.Chains)
	if nb > 0 && na > nb {
		ran = append(ran, fmt.Sprintf("startResizing: %d buckets become the older table, the newer one has %d", nb, na))
	}
	if len(w.moved) > 0 {
		ran = append(ran, fmt.Sprintf("helpResizing: moved %s to the newer table", plural(len(w.moved), "key")))
	}
	return reply, ran
}

func ksMoved(before, after hashtable.View[timedEnt]) map[string]bool {
	where := func(v hashtable.View[timedEnt]) map[string]string {
		m := map[string]string{}
		for _, chain := range v.Older.Chains {
			for _, n := range chain {
				m[n.Owner.key] = "older"
			}
		}
		for _, chain := range v.Newer.Chains {
			for _, n := range chain {
				m[n.Owner.key] = "newer"
			}
		}
		return m
	}
	was, is := where(before), where(after)
	started := len(before.Newer.Chains) > 0 && len(after.Newer.Chains) > len(before.Newer.Chains)
	moved := map[string]bool{}
	for k, r := range is {
		if r == "newer" && (started || was[k] == "older") {
			moved[k] = true
		}
	}
	return moved
}

func (w *ksWorld) run(args []string) (string, []string) {
	switch {
	case is(args, "get", 2):
		e := w.lookup(args[1])
		switch {
		case e == nil:
			return replyNil(), []string{"server.doGet", "hashtable.(*HMap).Lookup: absent"}
		case e.zset != nil:
			return replyErr("expect string type"), []string{"server.doGet: a sorted set, not a string"}
		}
		w.touched = e.key
		return replyStr(e.val), []string{"server.doGet", "hashtable.(*HMap).Lookup"}
	case is(args, "set", 3):
		if e := w.lookup(args[1]); e != nil {
			if e.zset != nil {
				return replyErr("expect string type"), []string{"server.doSet: a sorted set, not a string"}
			}
			e.val = args[2]
			w.touched = e.key
			return replyNil(), []string{"server.doSet", "hashtable.(*HMap).Lookup: found, value replaced"}
		}
		w.insert(args[1]).val = args[2]
		w.touched, w.added = args[1], true
		return replyNil(), []string{"server.doSet", "hashtable.(*HMap).Insert"}
	case is(args, "del", 2):
		e := w.pop(args[1])
		if e == nil {
			return replyInt(0), []string{"server.doDel", "hashtable.(*HMap).Pop: absent"}
		}
		return replyInt(1), append([]string{"server.doDel", "hashtable.(*HMap).Pop"}, w.entryDel(e)...)
	case is(args, "keys", 1):
		var keys []string
		w.db.Scan(func(n *hashtable.HNode[timedEnt]) { keys = append(keys, n.Owner.key) })
		return fmt.Sprintf("(arr) len=%d %s", len(keys), strings.Join(keys, " ")), []string{"server.doKeys", "hashtable.(*HMap).Scan"}
	case is(args, "pexpire", 3):
		return w.pexpire(args, w.entrySetTTL)
	case is(args, "pttl", 2):
		return w.pttl(args, func(int) string { return "server.doTTL" })
	case is(args, "zadd", 4):
		score, ok := parseScore(args[2])
		if !ok {
			return replyErr("expect fp number"), []string{"server.doZAdd: str2dbl refuses the score"}
		}
		ran := []string{"server.doZAdd", "hashtable.(*HMap).Lookup"}
		e := w.lookup(args[1])
		switch {
		case e == nil:
			e = w.insert(args[1])
			e.zset = &zset.ZSet{}
			w.added = true
			ran = append(ran, "hashtable.(*HMap).Insert: a new key with an empty ZSet")
		case e.zset == nil:
			return replyErr("expect zset"), []string{"server.doZAdd: a string, not a sorted set"}
		}
		w.touched = e.key
		if e.zset.Add(unquote(args[3]), score) {
			return replyInt(1), append(ran, "zset.(*ZSet).Add: a new member")
		}
		return replyInt(0), append(ran, "zset.(*ZSet).Add: the member's score updated")
	case is(args, "zrem", 3), is(args, "zscore", 3), is(args, "zquery", 6):
		e := w.lookup(args[1])
		switch {
		case e == nil:
			if is(args, "zquery", 6) {
				return "(arr) len=0", []string{"server.doZQuery: no such key, an empty set"}
			}
			return replyNil(), []string{"server.lookupZSet: no such key"}
		case e.zset == nil:
			return replyErr("expect zset"), []string{"server.lookupZSet: a string, not a sorted set"}
		}
		w.touched = e.key
		return w.zcmd(e.zset, args)
	case is(args, "wait", 2):
		return w.wait(args, "server.processTimers", w.expire)
	default:
		return unknown()
	}
}

// expire is entryDel for a key whose timer is due.
func (w *ksWorld) expire(e *timedEnt) []string {
	return append([]string{fmt.Sprintf("%s expires: hashtable.(*HMap).Pop", e.key)}, w.entryDel(e)...)
}

// zcmd runs zrem, zscore and zquery on a sorted set.
func (w *ksWorld) zcmd(z *zset.ZSet, args []string) (string, []string) {
	switch {
	case is(args, "zrem", 3):
		if z.Pop(unquote(args[2])) == nil {
			return replyInt(0), []string{"server.doZRem", "zset.(*ZSet).Pop: absent"}
		}
		return replyInt(1), []string{"server.doZRem", "zset.(*ZSet).Pop"}
	case is(args, "zscore", 3):
		n := z.Lookup(unquote(args[2]))
		if n == nil {
			return replyNil(), []string{"server.doZScore", "zset.(*ZSet).Lookup: absent"}
		}
		return replyDbl(n.Score()), []string{"server.doZScore", "zset.(*ZSet).Lookup"}
	default:
		score, ok := parseScore(args[2])
		offset, err1 := strconv.ParseInt(args[4], 10, 64)
		limit, err2 := strconv.ParseInt(args[5], 10, 64)
		if !ok {
			return replyErr("expect fp number"), []string{"server.doZQuery: str2dbl refuses the score"}
		}
		if err1 != nil || err2 != nil {
			return replyErr("expect int"), []string{"server.doZQuery: str2int refuses offset or limit"}
		}
		ran := []string{"server.doZQuery", "zset.(*ZSet).SeekGE", "zset.(*ZSet).Offset"}
		var out []string
		if limit > 0 {
			n := z.SeekGE(score, unquote(args[3]))
			n = z.Offset(n, offset)
			for n != nil && int64(len(out)) < limit {
				out = append(out, n.Name(), fmtScore(n.Score()))
				n = z.Offset(n, 1)
			}
		}
		return fmt.Sprintf("(arr) len=%d %s", len(out), strings.Join(out, " ")), ran
	}
}

func (w *ksWorld) draw() string {
	var c canvas
	v := w.db.View()
	label := func(n *hashtable.HNode[timedEnt]) cell {
		e := n.Owner
		cl := cell{label: e.key, sub: "str " + e.val}
		if e.zset != nil {
			cl.sub = fmt.Sprintf("zset, %s", plural(e.zset.Len(), "member"))
		}
		if e.heapIdx != -1 {
			cl.sub += fmt.Sprintf(" ttl@%d", w.heap[e.heapIdx].Val)
		}
		switch {
		case e.key == w.touched && w.added:
			cl.hl = hlNew
		case e.key == w.touched:
			cl.hl = hlHit
		case w.moved[e.key]:
			cl.hl = hlMoved
		}
		return cl
	}
	tab := func(role string, t hashtable.TabView[timedEnt], drained int, title string) table {
		tb := table{role: role, title: title, drained: drained}
		for _, chain := range t.Chains {
			var cells []cell
			for _, n := range chain {
				cells = append(cells, label(n))
			}
			tb.buckets = append(tb.buckets, cells)
		}
		return tb
	}
	x, th := 0, 20
	if v.Older.Chains != nil {
		ow, h := c.drawTable(x, 0, tab("older", v.Older, v.ResizingPos,
			fmt.Sprintf("older table: %d buckets, %s, next bucket %d", len(v.Older.Chains), plural(v.Older.Size, "key"), v.ResizingPos)))
		x += ow + 40
		th = max(th, h)
	}
	if v.Newer.Chains != nil {
		_, h := c.drawTable(x, 0, tab("newer", v.Newer, 0,
			fmt.Sprintf("the key space: %d buckets, %s", len(v.Newer.Chains), plural(v.Newer.Size, "key"))))
		th = max(th, h)
	} else {
		c.text(0, 14, "title", "no keys yet")
	}
	c.drawHeap(th+30, &w.timedKeys)
	return c.svg("keyspace")
}
