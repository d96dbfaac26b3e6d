package main

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"example.com/byor/ch37_lists/quicklist"
)

// The list view drives chapter 37's quicklist: one list, whose nodes are
// listpacks of up to quicklist.NodeBytes(), drawn as a row of boxes with
// their elements inside.

func listView() *view {
	return &view{
		name:    "list",
		chapter: "ch37_lists",
		title:   "list: a quicklist's nodes, each a listpack of up to 8 KiB (chapter 37)",
		help:    "lpush V... · rpush V... · lpop [N] · rpop [N] · lindex I · lset I V · linsert before|after PIVOT V · lrem N V · ltrim START STOP (one list; x*3000 is 3,000 x's)",
		make:    func() world { return &listWorld{} },
		scenarios: []scenario{
			{"pushes at both ends share one node", []string{"rpush a b c", "lpush x y", "rpush d", "lpop", "rpop 2"}},
			{"big elements: a new node once 8 KiB is full", []string{"rpush a*3000 b*3000", "rpush c*3000", "lpush w*2000", "lpush v*5000"}},
			{"an insert into a full node splits it around a node of its own", []string{"rpush a*2045 b*2045 c*2045 d*2034", "linsert before c*2045 n", "lset 0 A"}},
			{"lrem and ltrim unlink whole nodes", []string{"rpush a*3000 b*3000 a*3000 b*3000 a*3000 b*3000", "lrem 0 a*3000", "rpush c d e", "ltrim 1 -2"}},
		},
	}
}

// maxElem bounds an element written as x*N, so that a replay's bytes are
// bounded too.
var maxElem = 2 * quicklist.NodeBytes()

// listWorld is the one list, and the nodes' bytes before the last
// command, to tell which nodes it changed.
type listWorld struct {
	l      quicklist.List
	before map[string]bool
}

// elem reads a command's word as an element: x*N (N a number) is N
// copies of the one character x, anything else itself; ok is false for
// an N over maxElem.
func elem(w string) ([]byte, bool) {
	if len(w) < 3 || w[1] != '*' {
		return []byte(w), true
	}
	n, err := strconv.Atoi(w[2:])
	switch {
	case err != nil:
		return []byte(w), true
	case n < 0 || n > maxElem:
		return nil, false
	}
	return []byte(strings.Repeat(w[:1], n)), true
}

// show writes an element as the commands do: x*N for a run of one
// character longer than 8, else itself.
func show(v []byte) string {
	if len(v) > 8 && strings.Count(string(v), string(v[:1])) == len(v) {
		return fmt.Sprintf("%c*%d", v[0], len(v))
	}
	return string(v)
}

// index reads a list index as LINDEX does, negative from the tail; ok is
// false for a word that is not a number or an index out of range.
func (w *listWorld) index(s string) (int, bool) {
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	if i < 0 {
		i += w.l.Len()
	}
	return i, i >= 0 && i < w.l.Len()
}

func (w *listWorld) do(args []string) (string, []string) {
	w.before = map[string]bool{}
	listpacks(&w.l, func(lp []byte) bool {
		w.before[string(lp)] = true
		return true
	})
	if len(args) == 0 {
		return unknown()
	}
	var vals [][]byte
	for _, a := range args[1:] {
		v, ok := elem(a)
		if !ok {
			return replyErr(fmt.Sprintf("an element x*N has N up to %d", maxElem)), nil
		}
		vals = append(vals, v)
	}
	name := strings.ToLower(args[0])
	switch {
	case (name == "lpush" || name == "rpush") && len(args) >= 2 && isASCII(args[0]):
		moved := 0
		for _, v := range vals {
			if name == "lpush" {
				moved += w.l.PushHead(v)
			} else {
				moved += w.l.PushTail(v)
			}
		}
		fn := "PushTail"
		if name == "lpush" {
			fn = "PushHead"
		}
		return replyInt(int64(w.l.Len())), []string{fmt.Sprintf("server.respPushOf: quicklist.(*List).%s × %d: %d bytes written or moved", fn, len(vals), moved)}
	case is(args, "lpop", 1), is(args, "rpop", 1), is(args, "lpop", 2), is(args, "rpop", 2):
		return w.pop(name == "lpop", args)
	case is(args, "lindex", 2):
		i, ok := w.index(args[1])
		if !ok {
			return replyNil(), []string{"server.respLIndex: out of range"}
		}
		it, cost := w.l.Seek(i)
		return replyStr(show(it.Value())), []string{fmt.Sprintf("quicklist.(*List).Seek(%d): %d nodes and elements stepped over", i, cost)}
	case is(args, "lset", 3):
		i, ok := w.index(args[1])
		if !ok {
			return replyErr("ERR index out of range"), []string{"server.respLSet: out of range"}
		}
		it, cost := w.l.Seek(i)
		moved := w.l.Replace(it, vals[1])
		return replyStr("OK"), []string{fmt.Sprintf("quicklist.(*List).Seek(%d): %d stepped over", i, cost), fmt.Sprintf("quicklist.(*List).Replace: %d bytes moved", moved)}
	case is(args, "linsert", 4):
		after := strings.EqualFold(args[1], "after")
		if !after && !strings.EqualFold(args[1], "before") {
			return replyErr("ERR syntax error"), nil
		}
		looked := 0
		for it := w.l.First(); it.Valid(); it.Next() {
			looked++
			if string(it.Value()) == string(vals[1]) {
				moved := w.l.Insert(it, vals[2], after)
				return replyInt(int64(w.l.Len())), []string{fmt.Sprintf("server.respLInsert: the pivot found after %d elements", looked), fmt.Sprintf("quicklist.(*List).Insert: %d bytes moved", moved)}
			}
		}
		return replyInt(-1), []string{fmt.Sprintf("server.respLInsert: no pivot among %d elements", looked)}
	case is(args, "lrem", 3):
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return replyErr("ERR value is not an integer or out of range"), nil
		}
		removed, looked, moved := w.l.RemoveMatches(vals[1], max(n, -n), n < 0)
		return replyInt(int64(removed)), []string{fmt.Sprintf("quicklist.(*List).RemoveMatches: %d looked at, %d bytes moved", looked, moved)}
	case is(args, "ltrim", 3):
		start, err1 := strconv.Atoi(args[1])
		stop, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil {
			return replyErr("ERR value is not an integer or out of range"), nil
		}
		n := w.l.Len()
		if start < 0 {
			start = max(start+n, 0)
		}
		if stop < 0 {
			stop += n
		}
		stop = min(stop, n-1)
		head, tail := n, 0 // an empty range: everything goes
		if start <= stop {
			head, tail = start, n-1-stop
		}
		a, b := w.l.Delete(true, head), w.l.Delete(false, tail)
		return replyStr("OK"), []string{fmt.Sprintf("quicklist.(*List).Delete(head, %d): cost %d", head, a), fmt.Sprintf("quicklist.(*List).Delete(tail, %d): cost %d", tail, b)}
	default:
		return unknown()
	}
}

// pop is LPOP and RPOP, with an optional count.
func (w *listWorld) pop(left bool, args []string) (string, []string) {
	n := 1
	if len(args) == 2 {
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil || n < 0 {
			return replyErr("ERR value is out of range, must be positive"), nil
		}
	}
	if w.l.Len() == 0 {
		return replyNil(), []string{"server.respPopOf: no such key"}
	}
	n = min(n, w.l.Len())
	var got []string
	it := w.l.Last()
	if left {
		it = w.l.First()
	}
	for range n {
		got = append(got, show(it.Value()))
		if left {
			it.Next()
		} else {
			it.Prev()
		}
	}
	end := "tail"
	if left {
		end = "head"
	}
	ran := []string{fmt.Sprintf("quicklist.(*List).Delete(%s, %d): cost %d", end, n, w.l.Delete(left, n))}
	if len(args) == 2 {
		return fmt.Sprintf("(arr) len=%d %s", len(got), strings.Join(got, " ")), ran
	}
	return replyStr(got[0]), ran
}

// lpElements reads a node's listpack: its elements, which the quicklist
// writes as strings only (a 6-bit, 12-bit or 32-bit length, the bytes,
// and the entry's length again, 1 to 5 bytes).
func lpElements(lp []byte) []string {
	var out []string
	for off := 6; off < len(lp) && lp[off] != 0xff; {
		c := lp[off]
		head, n := 5, 0
		switch {
		case c&0xc0 == 0x80:
			head, n = 1, int(c&0x3f)
		case c&0xf0 == 0xe0:
			head, n = 2, int(c&0x0f)<<8|int(lp[off+1])
		default:
			n = int(binary.LittleEndian.Uint32(lp[off+1:]))
		}
		out = append(out, show(lp[off+head:off+head+n]))
		e := head + n
		off += e + backlen(e)
	}
	return out
}

// backlen is the bytes of an entry's backward length, for an entry of e
// bytes before it.
func backlen(e int) int {
	switch {
	case e < 128:
		return 1
	case e < 16383:
		return 2
	case e < 2097151:
		return 3
	case e < 268435455:
		return 4
	}
	return 5
}

// maxNodes and maxShown bound the picture: the nodes drawn, and the
// elements drawn in each.
const (
	maxNodes = 12
	maxShown = 10
)

func (w *listWorld) draw() string {
	var c canvas
	c.text(0, 12, "title", fmt.Sprintf("%s, %s, %d bytes of listpacks (a node holds up to %d)",
		plural(w.l.Len(), "element"), plural(w.l.Nodes(), "node"), w.l.Bytes(), quicklist.NodeBytes()))
	if w.l.Len() == 0 {
		c.text(0, 34, "sub", "empty: the key would be deleted")
		return c.svg("list")
	}
	x, i := 0, 0
	listpacks(&w.l, func(lp []byte) bool {
		if i == maxNodes {
			c.text(x, 44, "sub", fmt.Sprintf("+%d more nodes", w.l.Nodes()-i))
			return false
		}
		els := lpElements(lp)
		hl := hlNone
		if !w.before[string(lp)] && w.before != nil {
			hl = hlHit
		}
		if i > 0 {
			// Linked both ways: prev and next.
			c.line(x-gapX, 34, x, 34)
			c.line(x-gapX, 40, x, 40)
		}
		c.box(x, 20, cell{label: fmt.Sprintf("node %d", i), sub: fmt.Sprintf("%d el, %d B", binary.LittleEndian.Uint16(lp[4:]), len(lp)),
			hl: hl, attrs: fmt.Sprintf(` data-node="node%d"`, i)})
		for j, e := range els {
			if j == maxShown {
				c.text(x+5, 20+cellH+16+j*14, "sub", fmt.Sprintf("+%d more", len(els)-j))
				break
			}
			c.text(x+5, 20+cellH+16+j*14, "sub", clip(e, 15))
		}
		x += cellW + gapX
		i++
		return true
	})
	return c.svg("list")
}

// listpacks calls fn with each node's listpack, from the first node on,
// until fn returns false.
func listpacks(l *quicklist.List, fn func(lp []byte) bool) {
	for it := l.First(); it.Valid(); {
		var lp []byte
		if lp, it = it.Listpack(); !fn(lp) {
			return
		}
	}
}
