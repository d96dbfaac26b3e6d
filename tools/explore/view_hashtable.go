package main

import (
	"fmt"
	"strings"

	"example.com/byor/ch08_hashtable/hashtable"
)

// The hashtable view: chapter 8's key space, a hashtable.HMap of entries,
// with both tables drawn while a resize moves the keys.

func hashtableView() *view {
	return &view{
		name:    "hashtable",
		hashes:  true,
		chapter: "ch08_hashtable",
		title:   "hashtable: progressive resizing (chapter 8)",
		help:    "set K V · get K · del K · keys",
		make:    func() world { return &htWorld{} },
		// The book's 128 moves a small table at once: one key per
		// operation lets the scenarios show both tables.
		scenarioRehash: 1,
		scenarios: []scenario{
			{"a resize, one key moved per operation", numbered("set k%d v", 0, 40)},
			{"gets help the resize along", append(numbered("set k%d v", 0, 33), numbered("get k%d", 0, 8)...)},
			{"delete while resizing", append(numbered("set k%d v", 0, 34), "del k3", "del k30", "del k31")},
		},
	}
}

// numbered returns format applied to lo..hi-1.
func numbered(format string, lo, hi int) []string {
	var out []string
	for i := lo; i < hi; i++ {
		out = append(out, fmt.Sprintf(format, i))
	}
	return out
}

// htEntry is chapter 8's entry: a key and its value with the table's node
// embedded.
type htEntry struct {
	node     hashtable.HNode[htEntry]
	key, val string
}

func htEq(a, b *hashtable.HNode[htEntry]) bool {
	return a.HCode == b.HCode && a.Owner.key == b.Owner.key
}

func htKey(key string) *htEntry {
	e := &htEntry{key: key}
	e.node.Owner = e
	e.node.HCode = hashtable.StrHash(key)
	return e
}

type htWorld struct {
	db hashtable.HMap[htEntry]
	// What the last command touched, for the picture.
	touched string
	added   bool
	moved   map[string]bool
}

func (w *htWorld) do(args []string) (string, []string) {
	before := w.db.View()
	var reply string
	var ran []string
	w.touched, w.added = "", false
	switch {
	case is(args, "get", 2):
		ran = []string{"server.doGet", "hashtable.(*HMap).Lookup"}
		reply = replyNil()
		if n := w.db.Lookup(&htKey(args[1]).node, htEq); n != nil {
			reply = replyStr(n.Owner.val)
			w.touched = args[1]
		}
	case is(args, "set", 3):
		ran = []string{"server.doSet", "hashtable.(*HMap).Lookup"}
		if n := w.db.Lookup(&htKey(args[1]).node, htEq); n != nil {
			n.Owner.val = args[2]
			ran = append(ran, "found: value replaced in place")
		} else {
			e := htKey(args[1])
			e.val = args[2]
			w.db.Insert(&e.node)
			w.added = true
			ran = append(ran, "hashtable.(*HMap).Insert: new key in the newer table")
		}
		w.touched = args[1]
		reply = replyNil()
	case is(args, "del", 2):
		ran = []string{"server.doDel", "hashtable.(*HMap).Pop"}
		reply = replyInt(0)
		if w.db.Pop(&htKey(args[1]).node, htEq) != nil {
			reply = replyInt(1)
		}
	case is(args, "keys", 1):
		ran = []string{"server.doKeys", "hashtable.(*HMap).Scan: both tables, no resizing work"}
		var keys []string
		w.db.Scan(func(n *hashtable.HNode[htEntry]) { keys = append(keys, n.Owner.key) })
		reply = fmt.Sprintf("(arr) len=%d %s", len(keys), strings.Join(keys, " "))
	default:
		return unknown()
	}
	after := w.db.View()
	w.moved = movedKeys(before, after)
	return reply, append(ran, resizeEvents(before, after, len(w.moved))...)
}

// htWhere maps each key to the table holding it.
func htWhere(v hashtable.View[htEntry]) map[string]string {
	where := map[string]string{}
	for role, t := range map[string]hashtable.TabView[htEntry]{"older": v.Older, "newer": v.Newer} {
		for _, chain := range t.Chains {
			for _, n := range chain {
				where[n.Owner.key] = role
			}
		}
	}
	return where
}

// movedKeys returns the keys the command moved from the older table to the
// newer one, a resize that started in this command included.
func movedKeys(before, after hashtable.View[htEntry]) map[string]bool {
	was, is := htWhere(before), htWhere(after)
	started := len(after.Newer.Chains) > len(before.Newer.Chains) && len(before.Newer.Chains) > 0
	moved := map[string]bool{}
	for k, role := range is {
		if role != "newer" {
			continue
		}
		// A resize that starts in this command starts with an empty newer
		// table (the command's own insert went into the table that became
		// the older one), so every key in it has been moved.
		if started || was[k] == "older" {
			moved[k] = true
		}
	}
	return moved
}

// resizeEvents names what startResizing and helpResizing did, from the
// tables before and after a command.
func resizeEvents(before, after hashtable.View[htEntry], moved int) []string {
	var ev []string
	nb, na := len(before.Newer.Chains), len(after.Newer.Chains)
	if nb > 0 && na > nb {
		ev = append(ev, fmt.Sprintf("startResizing: the %d-bucket table becomes the older one, a new one has %d buckets", nb, na))
	}
	if moved > 0 {
		ev = append(ev, fmt.Sprintf("helpResizing: moved %s to the newer table", plural(moved, "key")))
	}
	if before.Older.Chains != nil && after.Older.Chains == nil || nb > 0 && na > nb && after.Older.Chains == nil {
		ev = append(ev, "helpResizing: the older table is empty and freed")
	}
	return ev
}

func (w *htWorld) draw() string {
	v := w.db.View()
	var c canvas
	x := 0
	if v.Older.Chains != nil {
		ow, _ := c.drawTable(x, 0, w.table("older", v.Older, v.ResizingPos,
			fmt.Sprintf("older (ht2): %d buckets, %s, next bucket %d", len(v.Older.Chains), plural(v.Older.Size, "key"), v.ResizingPos)))
		x += ow + 40
	}
	if v.Newer.Chains != nil {
		c.drawTable(x, 0, w.table("newer", v.Newer, 0,
			fmt.Sprintf("newer (ht1): %d buckets, %s", len(v.Newer.Chains), plural(v.Newer.Size, "key"))))
	} else {
		c.text(0, 14, "title", "empty: no table until the first insert")
	}
	return c.svg("hashtable")
}

func (w *htWorld) table(role string, t hashtable.TabView[htEntry], drained int, title string) table {
	tb := table{role: role, title: title, drained: drained}
	for _, chain := range t.Chains {
		var cells []cell
		for _, n := range chain {
			cl := cell{label: n.Owner.key, sub: fmt.Sprintf("h=%08x", n.HCode)}
			switch {
			case n.Owner.key == w.touched && w.added:
				cl.hl = hlNew
			case n.Owner.key == w.touched:
				cl.hl = hlHit
			case w.moved[n.Owner.key]:
				cl.hl = hlMoved
			}
			cells = append(cells, cl)
		}
		tb.buckets = append(tb.buckets, cells)
	}
	return tb
}
