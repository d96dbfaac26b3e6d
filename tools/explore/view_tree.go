package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	avl10 "example.com/byor/ch10_avl/avl"
	"example.com/byor/ch11_zset/avl"
	ht11 "example.com/byor/ch11_zset/hashtable"
	"example.com/byor/ch11_zset/zset"
)

// The avl view drives chapter 10's AVL tree on its own, with integers; the
// zset view drives chapter 11's sorted sets, whose tree and by-name index
// it draws side by side.

func avlView() *view {
	return &view{
		name:    "avl",
		chapter: "ch10_avl",
		title:   "avl: heights, subtree counts and rotations (chapter 10)",
		help:    "add N · del N (N an integer)",
		make:    func() world { return &avlWorld{} },
		scenarios: []scenario{
			{"ascending inserts: a left rotation", []string{"add 1", "add 2", "add 3", "add 4", "add 5", "add 6", "add 7"}},
			{"a double rotation", []string{"add 30", "add 10", "add 20"}},
			{"deleting the root", []string{"add 4", "add 2", "add 6", "add 1", "add 3", "add 5", "add 7", "del 4", "del 5", "del 6"}},
		},
	}
}

func zsetView() *view {
	return &view{
		name:    "zset",
		hashes:  true,
		chapter: "ch11_zset",
		title:   "zset: the AVL tree and the hash index of a sorted set (chapter 11)",
		help:    "zadd K SCORE NAME · zrem K NAME · zscore K NAME · zquery K SCORE NAME OFFSET LIMIT",
		make:    func() world { return &zsetWorld{sets: map[string]*zset.ZSet{}} },
		scenarios: []scenario{
			{"seven members in score order", numbered("zadd z %[1]d m%[1]d", 1, 8)},
			{"a score update moves a member", append(numbered("zadd z %[1]d m%[1]d", 1, 8), "zadd z 10 m1")},
			{"rank query: zquery with an offset", append(numbered("zadd z %[1]d m%[1]d", 1, 8), "zquery z 2 \"\" 3 2")},
			{"the guide's zquery: a seek, then one step back", []string{"zadd z 1 a", "zadd z 2 b", "zadd z 2 c", "zadd z 3 d", "zquery z 2 c -1 2"}},
		},
	}
}

func init() {
	rehashSetters = append(rehashSetters, ht11.SetResizingWork)
}

// shape is a tree's links by node id, to compare a tree before and after a
// command.
type shape struct {
	parent map[string]string
	depth  map[string]int
	rank   map[string]int // in-order position
	// A subtree holds the nodes of consecutive ranks: the node's own rank
	// lies between first[id] and last[id], its subtree's lowest and
	// highest. byRank turns a rank back into an id.
	first, last map[string]int
	byRank      []string
}

// holds reports whether other is in id's subtree, id itself excluded.
func (s shape) holds(id, other string) bool {
	r, ok := s.rank[other]
	return ok && other != id && s.first[id] <= r && r <= s.last[id]
}

// rotations names the rotations a command made, from the tree's shape
// before and after: a node whose new parent was in its subtree before (or
// is the node just inserted below it) has been rotated down, to the left
// when that parent came from its right side.
// Inner rotations are listed first, as fixLeft and fixRight make them.
func rotations(before, after shape, gone string) (names []string, rotated map[string]bool) {
	rotated = map[string]bool{}
	var ids []string
	for id, p := range after.parent {
		old, ok := before.parent[id]
		if !ok || old == p || (gone != "" && old == gone) || p == "" {
			continue
		}
		// A node just inserted (absent before) can only rise above a node
		// it was attached under, by rotation.
		if _, existed := before.parent[p]; existed && !before.holds(id, p) {
			continue
		}
		ids = append(ids, id)
	}
	dir := map[string]string{}
	for _, id := range ids {
		dir[id] = "rotRight"
		if after.rank[id] < after.rank[after.parent[id]] {
			dir[id] = "rotLeft"
		}
		rotated[id] = true
	}
	// avl.Del rebalances before the successor takes the deleted node's
	// place, so a rotation at the deleted node shows as one of its children
	// (not the successor) rising into its place.
	if gone != "" {
		// The successor: the next rank, if gone's subtree holds it.
		succ := ""
		if r := before.rank[gone] + 1; r <= before.last[gone] {
			succ = before.byRank[r]
		}
		for id, old := range before.parent {
			if old == gone && id != succ && succ != "" && after.parent[id] == before.parent[gone] {
				ids = append(ids, gone)
				dir[gone] = "rotLeft"
				if before.rank[id] < before.rank[gone] {
					dir[gone] = "rotRight"
				}
				rotated[id] = true
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if before.depth[ids[i]] != before.depth[ids[j]] {
			return before.depth[ids[i]] > before.depth[ids[j]]
		}
		return ids[i] < ids[j]
	})
	for _, id := range ids {
		names = append(names, dir[id]+"("+id+")")
	}
	return names, rotated
}

// shapeOf records the links of a tree of tnodes.
func shapeOf(root *tnode) shape {
	s := shape{parent: map[string]string{}, depth: map[string]int{}, rank: map[string]int{}, first: map[string]int{}, last: map[string]int{}}
	var walk func(n *tnode, parent string, depth int)
	walk = func(n *tnode, parent string, depth int) {
		if n == nil {
			return
		}
		s.parent[n.id], s.depth[n.id] = parent, depth
		s.first[n.id] = len(s.byRank)
		walk(n.left, n.id, depth+1)
		s.rank[n.id] = len(s.byRank)
		s.byRank = append(s.byRank, n.id)
		walk(n.right, n.id, depth+1)
		s.last[n.id] = len(s.byRank) - 1
	}
	walk(root, "", 0)
	return s
}

// highlight marks the nodes of a drawn tree.
func highlight(n *tnode, hl map[string]string) {
	if n == nil {
		return
	}
	n.hl = hl[n.id]
	highlight(n.left, hl)
	highlight(n.right, hl)
}

// fixRan lists what avl.Fix did, rotations included.
func fixRan(rots []string) string {
	if len(rots) == 0 {
		return "avl.Fix: heights and counts updated up to the root, no rotation"
	}
	return "avl.Fix: heights and counts updated up to the root; " + strings.Join(rots, ", ")
}

// ---- chapter 10: the tree alone ----

type avlItem struct {
	node avl10.AVLNode[avlItem]
	val  int64
}

type avlWorld struct {
	root *avl10.AVLNode[avlItem]
	hl   map[string]string
}

func avlTree(n *avl10.AVLNode[avlItem]) *tnode {
	if n == nil {
		return nil
	}
	return &tnode{id: strconv.FormatInt(n.Owner.val, 10), label: strconv.FormatInt(n.Owner.val, 10),
		sub: fmt.Sprintf("h=%d n=%d", n.Depth, n.Cnt), left: avlTree(n.Left), right: avlTree(n.Right)}
}

func (w *avlWorld) do(args []string) (string, []string) {
	if len(args) != 2 || !(is(args, "add", 2) || is(args, "del", 2)) {
		return unknown()
	}
	v, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		return replyErr("expect an integer"), nil
	}
	before := shapeOf(avlTree(w.root))
	w.hl = map[string]string{}
	id := strconv.FormatInt(v, 10)
	var ran []string
	reply := replyInt(1)
	gone := ""
	if is(args, "add", 2) {
		if _, dup := before.parent[id]; dup {
			return replyInt(0), []string{"already in the tree (this view keeps values unique)"}
		}
		it := &avlItem{val: v}
		it.node.Owner = it
		avl10.Init(&it.node)
		ran = []string{"avl.Init", "walk down to an empty slot and attach the leaf"}
		if w.root == nil {
			w.root = &it.node
		} else {
			cur := w.root
			for {
				from := &cur.Right
				if v < cur.Owner.val {
					from = &cur.Left
				}
				if *from == nil {
					*from = &it.node
					it.node.Parent = cur
					w.root = avl10.Fix(&it.node)
					break
				}
				cur = *from
			}
		}
		w.hl[id] = hlNew
	} else {
		cur := w.root
		for cur != nil && cur.Owner.val != v {
			if v < cur.Owner.val {
				cur = cur.Left
			} else {
				cur = cur.Right
			}
		}
		if cur == nil {
			return replyInt(0), []string{"walk down: not in the tree"}
		}
		w.root = avl10.Del(cur)
		ran = []string{"avl.Del: the in-order successor takes the node's place"}
		gone = id
	}
	after := shapeOf(avlTree(w.root))
	rots, rotated := rotations(before, after, gone)
	for r := range rotated {
		w.hl[r] = hlRot
	}
	switch {
	case gone != "" && len(rots) > 0:
		ran = append(ran, "avl.Fix: "+strings.Join(rots, ", "))
	case gone == "" && len(before.parent) > 0:
		ran = append(ran, fixRan(rots))
	}
	return reply, ran
}

func (w *avlWorld) draw() string {
	var c canvas
	root := avlTree(w.root)
	if root == nil {
		c.text(0, 14, "title", "empty tree")
		return c.svg("avl")
	}
	highlight(root, w.hl)
	c.text(0, 12, "title", fmt.Sprintf("root %s: height %d, %s", root.id, w.root.Depth, plural(int(w.root.Cnt), "node")))
	c.drawTree(0, 24, root)
	return c.svg("avl")
}

// ---- chapter 11: sorted sets ----

type zsetWorld struct {
	sets map[string]*zset.ZSet
	hl   map[string]map[string]string // key -> member -> highlight
}

func zTree(n *avl.AVLNode[zset.ZNode]) *tnode {
	if n == nil {
		return nil
	}
	return &tnode{id: n.Owner.Name(), label: fmt.Sprintf("%s %s", n.Owner.Name(), fmtScore(n.Owner.Score())),
		sub: fmt.Sprintf("h=%d n=%d", n.Depth, n.Cnt), left: zTree(n.Left), right: zTree(n.Right)}
}

func fmtScore(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// unquote lets a name be typed as "" for the empty string.
func unquote(s string) string {
	if s == `""` {
		return ""
	}
	return s
}

func (w *zsetWorld) do(args []string) (string, []string) {
	w.hl = map[string]map[string]string{}
	switch {
	case is(args, "zadd", 4):
		score, ok := parseScore(args[2])
		if !ok {
			return replyErr("expect fp number"), []string{"server.doZAdd: str2dbl refuses the score"}
		}
		key, name := args[1], unquote(args[3])
		ran := []string{"server.doZAdd"}
		z := w.sets[key]
		if z == nil {
			z = &zset.ZSet{}
			w.sets[key] = z
			ran = append(ran, "new key: an empty ZSet")
		}
		before := shapeOf(zTree(z.Root()))
		oldScore := score
		if old := z.Lookup(name); old != nil {
			oldScore = old.Score()
		}
		added := z.Add(name, score)
		hl := map[string]string{name: hlNew}
		switch {
		case added:
			ran = append(ran, "zset.(*ZSet).Add: hashtable.(*HMap).Insert, then treeAdd", "treeAdd: walk down by (score, name), attach the leaf")
		case oldScore == score:
			ran = append(ran, "zset.(*ZSet).Add: found by name, same score: nothing to do")
			hl[name] = hlHit
		default:
			ran = append(ran, "zset.(*ZSet).Add: found by name", "zset.(*ZSet).update: avl.Del, avl.Init, then treeAdd at the new score")
			hl[name] = hlHit
		}
		after := shapeOf(zTree(z.Root()))
		gone := ""
		if !added {
			gone = name // it was taken out and put back: its own links say nothing
		}
		rots, rotated := rotations(before, after, gone)
		for r := range rotated {
			if r != name {
				hl[r] = hlRot
			}
		}
		if len(before.parent) > 0 && (added || oldScore != score) {
			ran = append(ran, fixRan(rots))
		}
		w.hl[key] = hl
		if added {
			return replyInt(1), ran
		}
		return replyInt(0), ran
	case is(args, "zrem", 3):
		key, name, z := w.member(args)
		if z == nil {
			return replyNil(), []string{"server.doZRem: no such key"}
		}
		before := shapeOf(zTree(z.Root()))
		if z.Pop(name) == nil {
			return replyInt(0), []string{"server.doZRem", "zset.(*ZSet).Pop: hashtable.(*HMap).Pop finds no such name"}
		}
		rots, rotated := rotations(before, shapeOf(zTree(z.Root())), name)
		hl := map[string]string{}
		for r := range rotated {
			hl[r] = hlRot
		}
		w.hl[key] = hl
		ran := []string{"server.doZRem", "zset.(*ZSet).Pop: hashtable.(*HMap).Pop, then avl.Del"}
		if len(rots) > 0 {
			ran = append(ran, "avl.Fix: "+strings.Join(rots, ", "))
		}
		return replyInt(1), ran
	case is(args, "zscore", 3):
		key, name, z := w.member(args)
		if z == nil {
			return replyNil(), []string{"server.doZScore: no such key"}
		}
		n := z.Lookup(name)
		ran := []string{"server.doZScore", "zset.(*ZSet).Lookup: by name, in the hashtable only"}
		if n == nil {
			return replyNil(), ran
		}
		w.hl[key] = map[string]string{name: hlHit}
		return replyDbl(n.Score()), ran
	case is(args, "zquery", 6):
		score, ok := parseScore(args[2])
		if !ok {
			return replyErr("expect fp number"), []string{"server.doZQuery: str2dbl refuses the score"}
		}
		offset, err1 := strconv.ParseInt(args[4], 10, 64)
		limit, err2 := strconv.ParseInt(args[5], 10, 64)
		if err1 != nil || err2 != nil {
			return replyErr("expect int"), []string{"server.doZQuery: str2int refuses offset or limit"}
		}
		key, name := args[1], unquote(args[3])
		z := w.sets[key]
		ran := []string{"server.doZQuery"}
		if z == nil || limit <= 0 {
			return "(arr) len=0", ran
		}
		n := z.SeekGE(score, name)
		ran = append(ran, "zset.(*ZSet).SeekGE: the first member at or after (score, name)")
		hl := map[string]string{}
		if n != nil {
			hl[n.Name()] = hlSeek
			n = z.Offset(n, offset)
			ran = append(ran, fmt.Sprintf("zset.(*ZSet).Offset: avl.Offset moves %d by rank, using the subtree counts", offset))
		}
		var out []string
		for n != nil && int64(len(out)) < limit {
			out = append(out, n.Name(), fmtScore(n.Score()))
			hl[n.Name()] = hlHit
			n = z.Offset(n, 1)
		}
		w.hl[key] = hl
		return fmt.Sprintf("(arr) len=%d %s", len(out), strings.Join(out, " ")), ran
	default:
		return unknown()
	}
}

// parseScore parses a score; the explorer takes Go's float syntax, which
// covers what a reader types, and refuses NaN as the chapters do.
func parseScore(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && f == f
}

// member reads the arguments of a command on one member of a sorted set
// (zrem, zscore): the key, the member's name and the set, nil if none.
func (w *zsetWorld) member(args []string) (key, name string, z *zset.ZSet) {
	key, name = args[1], unquote(args[2])
	return key, name, w.sets[key]
}

func (w *zsetWorld) draw() string {
	var c canvas
	keys := make([]string, 0, len(w.sets))
	for k := range w.sets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		c.text(0, 14, "title", "no sorted sets yet")
		return c.svg("zset")
	}
	y := 0
	for _, k := range keys {
		z := w.sets[k]
		root := zTree(z.Root())
		highlight(root, w.hl[k])
		c.text(0, y+12, "title", fmt.Sprintf("key %s: %s; the tree by (score, name), each node with its height h and subtree count n", k, plural(z.Len(), "member")))
		tw, th := c.drawTree(0, y+24, root)
		iv := z.IndexView()
		ix, ih := tw+40, 0
		for _, t := range []struct {
			name string
			tab  ht11.TabView[zset.ZNode]
		}{{"older", iv.Older}, {"", iv.Newer}} {
			if t.tab.Chains == nil {
				continue
			}
			tb := table{role: "index", title: fmt.Sprintf("hash index by name: %d buckets", len(t.tab.Chains))}
			if t.name != "" {
				tb.title += " (older table, being drained)"
				tb.drained = iv.ResizingPos
			}
			for _, chain := range t.tab.Chains {
				var cells []cell
				for _, n := range chain {
					cells = append(cells, cell{label: n.Owner.Name(), sub: fmtScore(n.Owner.Score()), hl: w.hl[k][n.Owner.Name()]})
				}
				tb.buckets = append(tb.buckets, cells)
			}
			iw, h := c.drawTable(ix, y+24, tb)
			ix += iw + 30
			ih = max(ih, h)
		}
		y += max(th, ih) + 50
	}
	return c.svg("zset")
}
