package hashtable

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
)

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
// of two, so a node's bucket is a few bits of its hash code, once mixed
// (see bucket). It never resizes itself; HMap does that by moving nodes
// into a bigger HTab.
type HTab[T any] struct {
	tab   []*HNode[T] // bucket heads; nil until init
	size  int         // number of nodes in all chains
	salt  uint64      // mixed into every hash code (see bucket)
	shift uint        // 64 - log2(len(tab)): bucket keeps the top bits
}

// init allocates n empty buckets; n must be a power of two.
func (t *HTab[T]) init(n int) {
	if n <= 0 || n&(n-1) != 0 {
		panic("hashtable: table size must be a power of two")
	}
	t.tab = make([]*HNode[T], n)
	t.size = 0
	t.salt = rand.Uint64()
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
}

// bucket returns the bucket of hash code hcode. The book takes the low bits
// of the code as they are. Here the code is first xored with the table's
// own salt, then multiplied by 2^64 divided by the golden ratio (an odd
// number), and the top bits of the product pick the bucket (Fibonacci
// hashing): every bit of the code moves them.
//
// Why: the order of the buckets shows. HGETALL lists a hash's fields chain
// by chain, and with the bare low bits, fields that a client saw sharing a
// bucket would share one in every other hash and sorted set, and in every
// larger table too, so a client could collect names that pile into one
// chain once and use them anywhere. With a salt per table, a listing says
// nothing about any other table. The salt is xored, not added: an added
// salt would move every product by the same amount, so codes close
// together in one table would stay close in all of them; xor carries
// differently for every pair of codes. One multiplication costs nothing
// measurable on the request path, where the mix of package keytable
// (SplitMix64's finalizer) cost 6% of a zadd.
func (t *HTab[T]) bucket(hcode uint64) uint64 {
	return ((hcode ^ t.salt) * 0x9E3779B97F4A7C15) >> t.shift
}

// insert pushes node at the front of its bucket's chain.
func (t *HTab[T]) insert(node *HNode[T]) {
	pos := t.bucket(node.HCode)
	node.next = t.tab[pos]
	t.tab[pos] = node
	t.size++
}

// lookup returns the address of the pointer that refers to the node with
// hash code hcode that match accepts: either a bucket head or the next
// field of the previous node. Returning the slot rather than the node is
// what lets detach unlink in O(1) without a special case for the head of
// the chain. It returns nil if no node matches. Nodes with another hash
// code are skipped without calling match: they hold other keys.
func (t *HTab[T]) lookup(hcode uint64, match func(*HNode[T]) bool) **HNode[T] {
	if t.tab == nil {
		return nil
	}
	from := &t.tab[t.bucket(hcode)]
	for *from != nil {
		if (*from).HCode == hcode && match(*from) {
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
}

// startResizing retires ht1 to ht2 and replaces it with an empty table of
// twice as many buckets. The nodes move later, a few at a time.
func (m *HMap[T]) startResizing() {
	if m.ht2.tab != nil {
		panic("hashtable: resize already in progress")
	}
	m.ht2 = m.ht1
	m.ht1.init(len(m.ht2.tab) * 2)
	m.resizingPos = 0
}

// Lookup returns the node equal to key according to eq, or nil. The caller
// sets key.HCode; eq is only asked about nodes with the same HCode.
func (m *HMap[T]) Lookup(key *HNode[T], eq func(a, b *HNode[T]) bool) *HNode[T] {
	return m.LookupFunc(key.HCode, func(n *HNode[T]) bool { return eq(n, key) })
}

// LookupFunc returns the node with hash code hcode that match accepts, or
// nil. It is Lookup without a key node: the caller's match compares the
// node with the key in whatever form the caller has it (bytes in a read
// buffer, say), so a lookup need not allocate a node just to search with.
func (m *HMap[T]) LookupFunc(hcode uint64, match func(*HNode[T]) bool) *HNode[T] {
	m.helpResizing()
	from := m.ht1.lookup(hcode, match)
	if from == nil {
		from = m.ht2.lookup(hcode, match)
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
	return m.PopFunc(key.HCode, func(n *HNode[T]) bool { return eq(n, key) })
}

// PopFunc is Pop without a key node, as LookupFunc is Lookup without one.
func (m *HMap[T]) PopFunc(hcode uint64, match func(*HNode[T]) bool) *HNode[T] {
	m.helpResizing()
	if from := m.ht1.lookup(hcode, match); from != nil {
		return m.ht1.detach(from)
	}
	if from := m.ht2.lookup(hcode, match); from != nil {
		return m.ht2.detach(from)
	}
	return nil
}

// Size returns the number of nodes in the map.
func (m *HMap[T]) Size() int {
	return m.ht1.size + m.ht2.size
}

// LongestChain returns the length of the longest chain in either table:
// the most a lookup may walk. The tests of the packages built on the map
// check with it that names made to collide spread like any others.
func (m *HMap[T]) LongestChain() int {
	longest := 0
	for _, t := range []*HTab[T]{&m.ht1, &m.ht2} {
		for _, node := range t.tab {
			n := 0
			for ; node != nil; node = node.next {
				n++
			}
			longest = max(longest, n)
		}
	}
	return longest
}

// Scan calls fn once for every node in the map, in no particular order,
// covering both tables while a resize is in progress. Unlike the other
// operations it does not advance the resize, so the set of nodes cannot
// shift between tables mid-walk. fn must not insert or remove nodes.
func (m *HMap[T]) Scan(fn func(*HNode[T])) {
	m.ht1.scan(fn)
	m.ht2.scan(fn)
}

// ScanUntil is Scan that stops at the first node fn returns false for,
// for a caller that may not need them all (a reply cut off part way); it
// reports whether it went through every node.
func (m *HMap[T]) ScanUntil(fn func(*HNode[T]) bool) bool {
	return m.ht1.scanUntil(fn) && m.ht2.scanUntil(fn)
}

// scanUntil is scan that stops once fn returns false, and reports whether
// it did not.
func (t *HTab[T]) scanUntil(fn func(*HNode[T]) bool) bool {
	if t.size == 0 {
		return true
	}
	for _, node := range t.tab {
		for ; node != nil; node = node.next {
			if !fn(node) {
				return false
			}
		}
	}
	return true
}

// StrHash hashes a key with the book's FNV-style function: a 32-bit state
// that starts at the FNV offset basis and, for each byte, adds the byte and
// then multiplies by the FNV prime. (Standard FNV-1 and FNV-1a use xor
// instead of the addition, so hash/fnv gives different values.) The result
// fits in 32 bits. It takes a string or a byte slice, so a key still in a
// read buffer is hashed where it lies, and gets the same hash as its string.
func StrHash[S ~string | ~[]byte](s S) uint64 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h = (h + uint32(s[i])) * 0x01000193
	}
	return uint64(h)
}

// seed keys Hash: chosen when the process starts, unknown outside it.
var seed = maphash.MakeSeed()

// Hash returns the hash code of a name a client chose (a sorted-set member,
// a hash field), given as a string or as bytes (the same code for both).
// StrHash is public and easily inverted: names that all share its code can
// be computed in advance, and every one of them then lands in one chain
// that each lookup walks to its end, so n of them cost n*n/2 steps. Hash is
// keyed by a seed chosen when the process starts, so no one outside the
// process can tell which names share a code.
func Hash[S ~string | ~[]byte](s S) uint64 {
	switch k := any(s).(type) {
	case string:
		return maphash.String(seed, k)
	case []byte:
		return maphash.Bytes(seed, k)
	}
	return maphash.String(seed, string(s))
}
