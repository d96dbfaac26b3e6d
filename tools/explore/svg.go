package main

import (
	"fmt"
	"html"
	"strings"
)

// The pictures are built from a few neutral shapes (a table of chains, a
// binary tree, a row of slots, a list), filled in by each view from the
// chapter package's own structures. The SVG is written by hand so that the
// same state always gives the same bytes: the docs' pictures are checked
// against it.

// Highlight classes, shared by the page's style sheet and the pictures.
const (
	hlNone  = ""
	hlNew   = "new"   // inserted by the last command
	hlHit   = "hit"   // read or changed in place by the last command
	hlRot   = "rot"   // rotated by the last command (AVL)
	hlMoved = "moved" // moved by the last command (resize, heap sift)
	hlDue   = "due"   // a timer that is due
	hlSeek  = "seek"  // where a search started (zquery's SeekGE)
)

// cell is one drawn box: a key in a chain, a list node, a heap slot.
type cell struct {
	label string // first line
	sub   string // second line, smaller; may be empty
	hl    string
	attrs string // extra attributes for the box's group, e.g. data-slot="3"
}

// table is one hashtable table: its buckets, each a chain of cells.
type table struct {
	role    string // "older" or "newer": the data-table attribute
	title   string
	buckets [][]cell
	drained int // buckets before this one are already emptied (older table)
}

// tnode is one node of a binary tree to draw.
type tnode struct {
	id          string // the data-node attribute
	label, sub  string
	hl          string
	left, right *tnode
}

// canvas accumulates SVG elements and grows to fit them.
type canvas struct {
	b    strings.Builder
	w, h int
}

const (
	cellW  = 96
	cellH  = 34
	gapX   = 14
	gapY   = 10
	fontPx = 12
)

// style is the pictures' style sheet, inside each SVG so that a picture
// stands alone (the docs show them as files).
const style = `text{font-family:monospace;font-size:12px;fill:#222}` +
	`text.sub{font-size:10px;fill:#555}text.title{font-size:13px;font-weight:bold}` +
	`rect{fill:#fff;stroke:#666;stroke-width:1}rect.bucket{fill:#eef}rect.drained{fill:#ddd}` +
	`.new rect,.new circle{fill:#c8f0c8;stroke:#2a2}.hit rect,.hit circle{fill:#fff3b0;stroke:#b90}` +
	`.rot rect,.rot circle{fill:#ffd8b0;stroke:#d60}.moved rect,.moved circle{fill:#cde4ff;stroke:#36c}` +
	`.due rect{fill:#f8c8c8;stroke:#c33}.seek rect{fill:#e8d8ff;stroke:#74c}circle{fill:#fff;stroke:#666}` +
	`line,path{stroke:#888;stroke-width:1;fill:none}`

func esc(s string) string { return html.EscapeString(s) }

func (c *canvas) grow(x, y int) {
	c.w = max(c.w, x)
	c.h = max(c.h, y)
}

func (c *canvas) text(x, y int, class, s string) {
	if class != "" {
		fmt.Fprintf(&c.b, `<text x="%d" y="%d" class="%s">%s</text>`, x, y, class, esc(s))
	} else {
		fmt.Fprintf(&c.b, `<text x="%d" y="%d">%s</text>`, x, y, esc(s))
	}
	c.grow(x+len(s)*8, y+4)
}

func (c *canvas) line(x1, y1, x2, y2 int) {
	fmt.Fprintf(&c.b, `<line x1="%d" y1="%d" x2="%d" y2="%d"/>`, x1, y1, x2, y2)
}

// box draws a cell with its top left corner at x, y.
func (c *canvas) box(x, y int, cl cell) {
	fmt.Fprintf(&c.b, `<g%s%s>`, classAttr(cl.hl), cl.attrs)
	fmt.Fprintf(&c.b, `<rect x="%d" y="%d" width="%d" height="%d" rx="3"/>`, x, y, cellW, cellH)
	c.b.WriteString("</g>")
	c.text(x+5, y+14, "", clip(cl.label, 11))
	if cl.sub != "" {
		c.text(x+5, y+28, "sub", clip(cl.sub, 15))
	}
	c.grow(x+cellW+1, y+cellH+1)
}

func classAttr(hl string) string {
	if hl == "" {
		return ""
	}
	return ` class="` + hl + `"`
}

// clip shortens s to n runes so that it fits its box.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// svg wraps what was drawn in an svg element.
func (c *canvas) svg(label string) string {
	w, h := c.w+10, c.h+10
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s"><style>%s</style>%s</svg>`+"\n",
		w, h, w, h, esc(label), style, c.b.String())
}

// maxChain is how many nodes of one chain are drawn; the rest are counted.
const maxChain = 8

// drawTable draws a hashtable table at x, y and returns its width and
// height. Each bucket is a row: its index, then its chain.
func (c *canvas) drawTable(x, y int, t table) (int, int) {
	fmt.Fprintf(&c.b, `<g data-table="%s">`, t.role)
	c.text(x, y+12, "title", t.title)
	w, row := 0, y+20
	for i, chain := range t.buckets {
		class := "bucket"
		if i < t.drained {
			class = "drained"
		}
		fmt.Fprintf(&c.b, `<rect class="%s" x="%d" y="%d" width="34" height="%d"/>`, class, x, row, cellH)
		c.text(x+4, row+21, "", fmt.Sprint(i))
		cx := x + 34
		for j, cl := range chain {
			if j == maxChain {
				c.text(cx+gapX, row+21, "sub", fmt.Sprintf("+%d more", len(chain)-j))
				cx += gapX + 60
				break
			}
			c.line(cx, row+cellH/2, cx+gapX, row+cellH/2)
			c.box(cx+gapX, row, cl)
			cx += gapX + cellW
		}
		w = max(w, cx-x)
		row += cellH + 4
	}
	c.b.WriteString("</g>")
	c.grow(x+w, row)
	return max(w, len(t.title)*8), row - y
}

// maxTreeDepth is how many levels of a tree are drawn; a node at the last
// level with children below gets "…".
const maxTreeDepth = 8

// drawTree lays a binary tree out by in-order position (x) and depth (y)
// at x, y, and returns its width and height.
func (c *canvas) drawTree(x, y int, root *tnode) (int, int) {
	type placed struct {
		n      *tnode
		cx, cy int
	}
	var order []placed
	pos := map[*tnode][2]int{}
	var walk func(n *tnode, depth int)
	walk = func(n *tnode, depth int) {
		if n == nil {
			return
		}
		if depth == maxTreeDepth-1 && (n.left != nil || n.right != nil) {
			// Deeper levels would make the picture too wide to read.
			cp := *n
			cp.left, cp.right = nil, nil
			cp.sub += " …"
			n = &cp
		}
		walk(n.left, depth+1)
		cx := x + len(order)*(cellW+8) + cellW/2
		cy := y + depth*(cellH+30) + cellH/2
		pos[n] = [2]int{cx, cy}
		order = append(order, placed{n, cx, cy})
		walk(n.right, depth+1)
	}
	walk(root, 0)
	// Edges first, so that the boxes cover their ends.
	for _, p := range order {
		for _, ch := range []*tnode{p.n.left, p.n.right} {
			if ch != nil {
				q := pos[ch]
				c.line(p.cx, p.cy, q[0], q[1])
			}
		}
	}
	w, h := 0, 0
	for _, p := range order {
		c.box(p.cx-cellW/2, p.cy-cellH/2, cell{label: p.n.label, sub: p.n.sub, hl: p.n.hl,
			attrs: fmt.Sprintf(` data-node="%s"`, esc(p.n.id))})
		w = max(w, p.cx+cellW/2-x)
		h = max(h, p.cy+cellH/2-y)
	}
	return w, h
}

// drawRow draws cells left to right at x, y, linked by arrows when linked
// is set, and returns the row's width.
func (c *canvas) drawRow(x, y int, cells []cell, linked bool) int {
	cx := x
	for i, cl := range cells {
		if i > 0 {
			if linked {
				c.line(cx-gapX, y+cellH/2, cx, y+cellH/2)
			}
		}
		c.box(cx, y, cl)
		cx += cellW + gapX
	}
	return cx - x
}
