package hashtable

const (
	// kInitialSize is the number of buckets of the first table.
	kInitialSize = 4
	// kResizingWork bounds how many nodes one operation moves from the old
	// table to the new one, which bounds the latency a resize adds.
	kResizingWork = 128
	// kMaxLoadFactor is the average chain length (size / buckets) at which
	// a resize starts.
	kMaxLoadFactor = 8
)

// HNode is the link embedded in a value stored in an HMap.
type HNode[T any] struct {
	next  *HNode[T]
	HCode uint64 // the key's hash, cached (the book's hcode)
	Owner *T     // the value this node is embedded in: Go's stand-in for container_of
}

// HTab is a fixed-size chaining hashtable. The number of buckets is a power
// of two, so a node's bucket is simply HCode & mask. It never resizes
// itself; HMap does that by moving nodes into a bigger HTab.
type HTab[T any] struct {
	tab  []*HNode[T] // bucket heads; nil until init
	mask uint64      // len(tab) - 1
	size int         // number of nodes in all chains
}

// init allocates n empty buckets; n must be a power of two.
func (t *HTab[T]) init(n int) {
	if n <= 0 || n&(n-1) != 0 {
		panic("hashtable: table size must be a power of two")
	}
	t.tab = make([]*HNode[T], n)
	t.mask = uint64(n - 1)
	t.size = 0
}

// insert pushes node at the front of its bucket's chain.
func (t *HTab[T]) insert(node *HNode[T]) {
	pos := node.HCode & t.mask
	node.next = t.tab[pos]
	t.tab[pos] = node
	t.size++
}

// lookup returns the address of the pointer that refers to the node equal
// to key: either a bucket head or the next field of the previous node.
// Returning the slot rather than the node is what lets detach unlink in
// O(1) without a special case for the head of the chain. It returns nil if
// no node matches.
func (t *HTab[T]) lookup(key *HNode[T], eq func(a, b *HNode[T]) bool) **HNode[T] {
	if t.tab == nil {
		return nil
	}
	from := &t.tab[key.HCode&t.mask]
	for *from != nil {
		if eq(*from, key) {
			return from
		}
		from = &(*from).next
	}
	return nil
}

// detach unlinks the node *from points at and returns it.
func (t *HTab[T]) detach(from **HNode[T]) *HNode[T] {
	node := *from
	*from = node.next
	// Not needed for correctness, but a detached node should not keep the
	// rest of its old chain reachable.
	node.next = nil
	t.size--
	return node
}

// scan calls fn for every node in the table, bucket by bucket.
func (t *HTab[T]) scan(fn func(*HNode[T])) {
	if t.size == 0 {
		return
	}
	for _, node := range t.tab {
		for ; node != nil; node = node.next {
			fn(node)
		}
	}
}

// HMap is the hashtable the server uses. It holds two HTabs so that it can
// resize progressively: when ht1 gets too full it becomes ht2 and a table
// twice as large takes its place as ht1; every later operation then moves
// up to kResizingWork nodes from ht2 to ht1 until ht2 is empty. While that
// is under way a key may be in either table, so lookups consult both.
//
// The zero value is an empty map ready to use.
type HMap[T any] struct {
	ht1         HTab[T] // the newer table; all inserts go here
	ht2         HTab[T] // the older table being drained; empty unless resizing
	resizingPos int     // the next bucket of ht2 to drain
}

// helpResizing moves a bounded number of nodes from ht2 to ht1 and drops
// ht2 once it is empty.
func (m *HMap[T]) helpResizing() {
	// exercise: ch08-progressive-resize
	if m.ht2.tab == nil {
		return
	}
	for nwork := 0; nwork < kResizingWork && m.ht2.size > 0; {
		// Buckets before resizingPos are already empty: nodes are never
		// inserted into ht2, only removed from it.
		from := &m.ht2.tab[m.resizingPos]
		if *from == nil {
			m.resizingPos++
			continue
		}
		m.ht1.insert(m.ht2.detach(from))
		nwork++
	}
	if m.ht2.size == 0 {
		m.ht2 = HTab[T]{}
	}
	// end exercise: ch08-progressive-resize
}

// startResizing retires ht1 to ht2 and replaces it with an empty table of
// twice as many buckets. The nodes move later, a few at a time.
func (m *HMap[T]) startResizing() {
	// exercise: ch08-progressive-resize
	if m.ht2.tab != nil {
		panic("hashtable: resize already in progress")
	}
	m.ht2 = m.ht1
	m.ht1.init(len(m.ht2.tab) * 2)
	m.resizingPos = 0
	// end exercise: ch08-progressive-resize
}

// Lookup returns the node equal to key according to eq, or nil. The caller
// sets key.HCode; eq should compare HCode first, as it is cheap.
func (m *HMap[T]) Lookup(key *HNode[T], eq func(a, b *HNode[T]) bool) *HNode[T] {
	m.helpResizing()
	from := m.ht1.lookup(key, eq)
	if from == nil {
		from = m.ht2.lookup(key, eq)
	}
	if from == nil {
		return nil
	}
	return *from
}

// Insert adds node, whose HCode must already be set. It does not check for
// an existing equal node; callers Lookup first when keys must be unique.
func (m *HMap[T]) Insert(node *HNode[T]) {
	if m.ht1.tab == nil {
		m.ht1.init(kInitialSize)
	}
	m.ht1.insert(node)
	// Only one resize at a time: while ht2 is draining, ht1 may exceed the
	// load factor for a while, which is fine.
	if m.ht2.tab == nil && m.ht1.size/len(m.ht1.tab) >= kMaxLoadFactor {
		m.startResizing()
	}
	m.helpResizing()
}

// Pop removes the node equal to key and returns it, or returns nil if there
// is none. The node is only unlinked; its owner is the caller's to dispose of.
func (m *HMap[T]) Pop(key *HNode[T], eq func(a, b *HNode[T]) bool) *HNode[T] {
	m.helpResizing()
	if from := m.ht1.lookup(key, eq); from != nil {
		return m.ht1.detach(from)
	}
	if from := m.ht2.lookup(key, eq); from != nil {
		return m.ht2.detach(from)
	}
	return nil
}

// Size returns the number of nodes in the map.
func (m *HMap[T]) Size() int {
	return m.ht1.size + m.ht2.size
}

// Scan calls fn once for every node in the map, in no particular order,
// covering both tables while a resize is in progress. Unlike the other
// operations it does not advance the resize, so the set of nodes cannot
// shift between tables mid-walk. fn must not insert or remove nodes.
func (m *HMap[T]) Scan(fn func(*HNode[T])) {
	m.ht1.scan(fn)
	m.ht2.scan(fn)
}

// StrHash hashes a key with the book's FNV-style function: a 32-bit state
// that starts at the FNV offset basis and, for each byte, adds the byte and
// then multiplies by the FNV prime. (Standard FNV-1 and FNV-1a use xor
// instead of the addition, so hash/fnv gives different values.) The result
// fits in 32 bits.
func StrHash(s string) uint64 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h = (h + uint32(s[i])) * 0x01000193
	}
	return uint64(h)
}
