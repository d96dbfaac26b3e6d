// Package quicklist is the list, kept as Redis 7.0 keeps it: nodes linked
// both ways, each a listpack (one byte array: a header, each element as
// its length, its bytes and its length again, and an end byte) of many
// elements. A push writes into the end node until it is full; a walk hops
// a node per many elements; the RDB file writes a node's bytes as they
// are. Elements are written as strings only (Redis packs one that reads
// as an integer into 1 to 9 bytes).
package quicklist

import "encoding/binary"

// Fill is how full a node may grow, as Redis reads list-max-listpack-size:
// -1 to -5 bound its bytes to 4 to 64 KiB, 0 or more its elements to that
// many within 8 KiB. Every push reads it. A bigger element gets a node of
// its own.
var Fill = -2

// NodeBytes returns the most bytes Fill lets a node of several elements
// hold.
func NodeBytes() int {
	if Fill < 0 {
		return 4096 << min(-Fill-1, 4)
	}
	return 8 << 10
}

// lpHeader is the bytes before a listpack's first element (its total
// size, 4 bytes, and its count, 2), and lpEnd the byte after its last.
const (
	lpHeader = 6
	lpEnd    = 0xff
)

// List is a list of strings. The zero value is an empty list.
type List struct {
	head, tail *node
	count      int // elements
	nodes      int
	bytes      int // the listpacks' bytes, their room apart
}

// node is one listpack of consecutive elements, never empty.
type node struct {
	prev, next *node
	lp         []byte
	n          int // its elements
}

// Iter is a place in a list: an element, by its node and its offset in
// the node's listpack. It is valid until the list changes.
type Iter struct {
	n   *node
	off int
}

// Len returns the number of elements.
func (l *List) Len() int { return l.count }

// Nodes returns the number of nodes.
func (l *List) Nodes() int { return l.nodes }

// Bytes returns the bytes of all the nodes' listpacks.
func (l *List) Bytes() int { return l.bytes }

// entrySize is the bytes an element of n bytes takes in a listpack: its
// encoding (the length, in 1, 2 or 5 bytes), the bytes, and the length of
// those two again, written backwards in 1 to 5 bytes.
func entrySize(n int) int {
	head := 5
	switch {
	case n < 64:
		head = 1
	case n < 4096:
		head = 2
	}
	return head + n + backlenSize(head+n)
}

// backlenSize is the bytes of the backward length of an entry of n bytes.
func backlenSize(n int) int {
	switch {
	case n < 128:
		return 1
	case n < 16383:
		return 2
	case n < 2097151:
		return 3
	case n < 268435455:
		return 4
	}
	return 5
}

// appendEntry appends v to b as a listpack entry: its encoding, its
// bytes, and the length of those two again, 7 bits a byte, the most
// significant first; every byte but the first has its top bit set, so
// that a reader going backwards knows where the length starts.
func appendEntry(b []byte, v []byte) []byte {
	// exercise: ch37-listpack
	n := len(v)
	var e int // the encoding's bytes and v's
	switch {
	case n < 64:
		b, e = append(b, 0x80|byte(n)), 1+n
	case n < 4096:
		b, e = append(b, 0xe0|byte(n>>8), byte(n)), 2+n
	default:
		b = append(b, 0xf0)
		b, e = binary.LittleEndian.AppendUint32(b, uint32(n)), 5+n
	}
	b = append(b, v...)
	size := backlenSize(e)
	for i := size - 1; i >= 0; i-- {
		c := byte(e >> (7 * i) & 127)
		if i < size-1 {
			c |= 128
		}
		b = append(b, c)
	}
	return b
	// end exercise: ch37-listpack
}

// entryAt returns the element at off of lp and the bytes its entry takes.
func entryAt(lp []byte, off int) ([]byte, int) {
	// exercise: ch37-listpack
	c := lp[off]
	var head, n int
	switch {
	case c&0xc0 == 0x80:
		head, n = 1, int(c&0x3f)
	case c&0xf0 == 0xe0:
		head, n = 2, int(c&0x0f)<<8|int(lp[off+1])
	default: // 0xf0
		head, n = 5, int(binary.LittleEndian.Uint32(lp[off+1:]))
	}
	return lp[off+head : off+head+n], head + n + backlenSize(head+n)
	// end exercise: ch37-listpack
}

// prevOff returns the offset of the entry before the one at off, which
// must not be the first: its backward length ends just before off.
func prevOff(lp []byte, off int) int {
	// exercise: ch37-listpack
	i, v, shift := off-1, 0, 0
	for {
		c := lp[i]
		v |= int(c&127) << shift
		if c&128 == 0 {
			return i - v
		}
		shift += 7
		i--
	}
	// end exercise: ch37-listpack
}

// newLP returns an empty listpack with room for size bytes of entries.
func newLP(size int) []byte {
	lp := make([]byte, lpHeader, lpHeader+size+1)
	return append(lp, lpEnd)
}

// setHeader writes n's listpack header: its size, and its count (65535
// means "count them", which no node of NodeBytes reaches).
func (n *node) setHeader() {
	binary.LittleEndian.PutUint32(n.lp, uint32(len(n.lp)))
	binary.LittleEndian.PutUint16(n.lp[4:], uint16(min(n.n, 65535)))
}

// fits reports whether an element of size bytes may join n.
func (n *node) fits(size int) bool {
	return len(n.lp)+entrySize(size) <= NodeBytes() && (Fill < 0 || n.n < Fill)
}

// splice replaces the entry bytes lp[at:at+del] of n with ins, and
// keeps the header and the list's byte count right. It returns the bytes
// it wrote or moved: what it cost.
func (l *List) splice(n *node, at, del int, ins []byte, dn int) int {
	old := len(n.lp)
	tail := n.lp[at+del:]
	if d := len(ins) - del; d > 0 {
		n.lp = append(n.lp, make([]byte, d)...)
	}
	copy(n.lp[at+len(ins):], tail)
	copy(n.lp[at:], ins)
	n.lp = n.lp[:old+len(ins)-del]
	n.n += dn
	n.setHeader()
	l.bytes += len(n.lp) - old
	return len(tail) + len(ins) + n.fit()
}

// fit gives n's listpack a buffer of its size once it has shrunk to less
// than half of one past a node's bound (a big element replaced), so that
// a list holds what it counts; it returns the bytes it copied.
func (n *node) fit() int {
	if c := cap(n.lp); c > NodeBytes() && c > 2*len(n.lp) {
		n.lp = append([]byte(nil), n.lp...)
		return len(n.lp)
	}
	return 0
}

// kUnlinkCost is what unlinking a whole node costs, counted as bytes
// moved are: about what moving 128 bytes does.
const kUnlinkCost = 128

// link puts n into the list after prev (nil: at the head).
func (l *List) link(n, prev *node) {
	n.prev = prev
	if prev == nil {
		n.next, l.head = l.head, n
	} else {
		n.next, prev.next = prev.next, n
	}
	if n.next == nil {
		l.tail = n
	} else {
		n.next.prev = n
	}
	l.nodes++
	l.bytes += len(n.lp)
}

// unlink takes n out of the list.
func (l *List) unlink(n *node) {
	if n.prev == nil {
		l.head = n.next
	} else {
		n.prev.next = n.next
	}
	if n.next == nil {
		l.tail = n.prev
	} else {
		n.next.prev = n.prev
	}
	l.nodes--
	l.bytes -= len(n.lp)
	l.count -= n.n
}

// newNode returns a node of the one element v, not linked yet.
func newNode(v []byte) *node {
	n := &node{lp: newLP(entrySize(len(v))), n: 1}
	n.lp = append(appendEntry(n.lp[:lpHeader], v), lpEnd)
	n.setHeader()
	return n
}

// The changes below return their cost: the bytes they wrote or moved in a
// node (a push at the head moves the node's bytes up, as Redis's does).

// PushHead puts v before the first element.
func (l *List) PushHead(v []byte) int {
	l.count++
	if h := l.head; h != nil && h.fits(len(v)) {
		return l.splice(h, lpHeader, 0, appendEntry(nil, v), 1)
	}
	l.link(newNode(v), nil)
	return len(v)
}

// PushTail puts v after the last element.
func (l *List) PushTail(v []byte) int {
	l.count++
	if t := l.tail; t != nil && t.fits(len(v)) {
		return l.splice(t, len(t.lp)-1, 0, appendEntry(nil, v), 1)
	}
	l.link(newNode(v), l.tail)
	return len(v)
}

// First and Last return a place at the first or the last element; it is
// not Valid in an empty list.
func (l *List) First() Iter { return Iter{l.head, lpHeader} }
func (l *List) Last() Iter {
	if l.tail == nil {
		return Iter{}
	}
	return Iter{l.tail, prevOff(l.tail.lp, len(l.tail.lp)-1)}
}

// Seek returns the place of the element at index i, which must exist,
// from the nearer end, and its cost: the nodes and elements it passed.
func (l *List) Seek(i int) (Iter, int) {
	steps := 0
	if i < l.count/2 {
		n := l.head
		for ; i >= n.n; n = n.next {
			i -= n.n
			steps++
		}
		it := Iter{n, lpHeader}
		for ; i > 0; i-- {
			it.Next()
			steps++
		}
		return it, steps
	}
	back := l.count - 1 - i // from the last
	n := l.tail
	for ; back >= n.n; n = n.prev {
		back -= n.n
		steps++
	}
	it := Iter{n, prevOff(n.lp, len(n.lp)-1)}
	for ; back > 0; back-- {
		it.Prev()
		steps++
	}
	return it, steps
}

// Valid reports whether it is at an element.
func (it Iter) Valid() bool { return it.n != nil }

// Value returns the element at it. The bytes are the list's own: they
// last until the list changes.
func (it Iter) Value() []byte {
	v, _ := entryAt(it.n.lp, it.off)
	return v
}

// Next moves it to the next element, or off the end.
func (it *Iter) Next() {
	_, size := entryAt(it.n.lp, it.off)
	it.off += size
	if it.n.lp[it.off] == lpEnd {
		it.n, it.off = it.n.next, lpHeader
	}
}

// Prev moves it to the element before, or off the front.
func (it *Iter) Prev() {
	if it.off > lpHeader {
		it.off = prevOff(it.n.lp, it.off)
		return
	}
	if it.n = it.n.prev; it.n != nil {
		it.off = prevOff(it.n.lp, len(it.n.lp)-1)
	}
}

// Replace sets the element at it to v. it is not valid afterwards.
func (l *List) Replace(it Iter, v []byte) int {
	n := it.n
	_, size := entryAt(n.lp, it.off)
	if len(n.lp)-size+entrySize(len(v)) <= NodeBytes() || n.n == 1 {
		return l.splice(n, it.off, size, appendEntry(nil, v), 0)
	}
	// Too big for the node: out, then in again where it was, which splits
	// the node (the node keeps an element, so the one before is there
	// when it was the last).
	moved := l.splice(n, it.off, size, nil, -1)
	l.count--
	if n.lp[it.off] == lpEnd {
		return moved + l.Insert(Iter{n, prevOff(n.lp, it.off)}, v, true)
	}
	return moved + l.Insert(it, v, false)
}

// Insert puts v before the element at it, or after it. it is not valid
// afterwards.
func (l *List) Insert(it Iter, v []byte, after bool) int {
	n, at := it.n, it.off
	if after {
		_, size := entryAt(n.lp, at)
		at += size
	}
	l.count++
	if n.fits(len(v)) {
		return l.splice(n, at, 0, appendEntry(nil, v), 1)
	}
	// A full node: v gets a node of its own before it, after it, or in
	// the middle between its two halves (the elements from at on move to
	// a node of their own).
	if at == lpHeader {
		l.link(newNode(v), n.prev)
		return len(v)
	}
	moved := 0
	if n.lp[at] != lpEnd {
		rest := &node{lp: newLP(len(n.lp) - at)}
		rest.lp = append(append(rest.lp[:lpHeader], n.lp[at:len(n.lp)-1]...), lpEnd)
		for off := lpHeader; rest.lp[off] != lpEnd; rest.n++ {
			_, size := entryAt(rest.lp, off)
			off += size
		}
		rest.setHeader()
		l.bytes -= len(n.lp) - 1 - at
		n.lp = append(n.lp[:at], lpEnd)
		n.n -= rest.n
		n.setHeader()
		l.link(rest, n)
		moved = 2 * len(rest.lp) // copied, then counted
	}
	l.link(newNode(v), n)
	return moved + len(v)
}

// Delete removes k elements (at most all of them) from the head, or the
// tail: whole nodes are unlinked, the last one cut in one move. Its cost
// is the nodes and the bytes of that one it reads and moves.
func (l *List) Delete(head bool, k int) int {
	end := func() *node {
		if head {
			return l.head
		}
		return l.tail
	}
	work := 0
	for n := end(); n != nil && k >= n.n; n = end() {
		k -= n.n
		l.unlink(n)
		work += kUnlinkCost
	}
	n := end()
	if k == 0 || n == nil {
		return work
	}
	l.count -= k
	if head {
		off := lpHeader
		for i := 0; i < k; i++ {
			_, size := entryAt(n.lp, off)
			off += size
		}
		return work + off + l.splice(n, lpHeader, off-lpHeader, nil, -k)
	}
	off := len(n.lp) - 1
	for i := 0; i < k; i++ {
		off = prevOff(n.lp, off)
	}
	return work + len(n.lp) - off + l.splice(n, off, len(n.lp)-1-off, nil, -k)
}

// RemoveMatches removes the elements equal to v: all if count is 0, else
// the first count, or with fromTail the last. Each node it changes is
// compacted in one pass, not moved once per element removed. It returns
// how many it removed, the elements it looked at and the bytes it moved.
func (l *List) RemoveMatches(v []byte, count int, fromTail bool) (removed, looked, moved int) {
	var drop []int // the offsets of the matches to remove from one node
	n := l.head
	if fromTail {
		n = l.tail
	}
	for n != nil && (count == 0 || removed < count) {
		next := n.next
		if fromTail {
			next = n.prev
		}
		drop = drop[:0]
		it := Iter{n, lpHeader}
		if fromTail {
			it.off = prevOff(n.lp, len(n.lp)-1)
		}
		for it.n == n && (count == 0 || removed+len(drop) < count) {
			if string(it.Value()) == string(v) {
				drop = append(drop, it.off)
			}
			looked++
			if fromTail {
				it.Prev()
			} else {
				it.Next()
			}
		}
		if len(drop) == n.n {
			l.unlink(n)
		} else if len(drop) > 0 {
			moved += l.compact(n, drop, fromTail)
		}
		removed += len(drop)
		n = next
	}
	return removed, looked, moved
}

// compact removes the entries at the offsets drop from n in one pass;
// drop is in ascending order, or descending if desc.
func (l *List) compact(n *node, drop []int, desc bool) int {
	if desc {
		for i, j := 0, len(drop)-1; i < j; i, j = i+1, j-1 {
			drop[i], drop[j] = drop[j], drop[i]
		}
	}
	old, w := len(n.lp), drop[0]
	for i, at := range drop {
		_, size := entryAt(n.lp, at)
		from := at + size
		end := len(n.lp)
		if i+1 < len(drop) {
			end = drop[i+1]
		}
		w += copy(n.lp[w:], n.lp[from:end])
	}
	n.lp = n.lp[:w]
	n.n -= len(drop)
	l.count -= len(drop)
	n.setHeader()
	l.bytes += len(n.lp) - old
	return old - drop[0] + n.fit()
}

// Clone returns a copy of l, a node's bytes at a time.
func (l *List) Clone() *List {
	c := &List{}
	for n := l.head; n != nil; n = n.next {
		c.link(&node{lp: append([]byte(nil), n.lp...), n: n.n}, c.tail)
	}
	c.count = l.count
	return c
}

// Listpack returns the listpack of its node and the place of the next
// node's first element (not Valid after the last): a walk of the nodes
// that can go on later while the list does not change (the snapshot's).
func (it Iter) Listpack() ([]byte, Iter) {
	return it.n.lp, Iter{it.n.next, lpHeader}
}
