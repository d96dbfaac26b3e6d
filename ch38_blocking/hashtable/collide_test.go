package hashtable

import (
	"testing"

	"example.com/byor/testkit"
)

// bookCollisions returns testkit's n names that share one book's hash,
// what a client who has read the book can send, checked against StrHash.
func bookCollisions(t *testing.T, n int) []string {
	t.Helper()
	names := testkit.BookCollisions(n)
	for _, name := range names {
		if StrHash(name) != StrHash(names[0]) {
			t.Fatal("test bug: the names do not collide")
		}
	}
	return names
}

// keyedEntry is newTestEntry with the seeded hash.
func keyedEntry(key string) *testEntry {
	e := newTestEntry(key, 0)
	e.node.HCode = Hash(key)
	return e
}

// TestHashSplitsBookCollisions: names that share one StrHash get as many
// different codes from Hash, as a string and as bytes alike, and spread
// over the buckets: no chain is much longer than the load factor of 8.
// Under StrHash they form a single chain of all 4096.
func TestHashSplitsBookCollisions(t *testing.T) {
	names := bookCollisions(t, 4096)
	codes := map[uint64]bool{}
	var m HMap[testEntry]
	for _, name := range names {
		if Hash(name) != Hash([]byte(name)) {
			t.Fatalf("Hash differs for %q as bytes and as a string", name)
		}
		codes[Hash(name)] = true
		m.Insert(&keyedEntry(name).node)
	}
	if len(codes) != len(names) {
		t.Errorf("%d names that collide under StrHash got %d codes from Hash", len(names), len(codes))
	}
	// The chains' lengths are about Poisson(8) to Poisson(16): one of 64
	// would come about once in 10^16 tables.
	if n := m.LongestChain(); n > 64 {
		t.Errorf("the longest chain holds %d of %d names", n, len(names))
	}
	for _, name := range names {
		if m.LookupFunc(Hash(name), func(n *HNode[testEntry]) bool { return n.Owner.key == name }) == nil {
			t.Fatalf("%q not found", name)
		}
	}
}

// TestBucketUsesEveryBit: codes that differ only in their high bits are
// spread over the buckets like any others. The book's bucket, the code's
// low bits, would put all 4096 in one chain.
func TestBucketUsesEveryBit(t *testing.T) {
	var m HMap[testEntry]
	for i := range 4096 {
		e := newTestEntry(string(rune(i)), i)
		e.node.HCode = uint64(i) << 40
		m.Insert(&e.node)
	}
	if n := m.LongestChain(); n > 64 {
		t.Errorf("the longest chain holds %d of 4096 codes that differ only above bit 40", n)
	}
}

// TestBucketsDifferPerTable: the nodes that share a bucket in one table
// (the order HGETALL shows) are scattered in another table holding the
// same codes, and in the same map's next, larger, table. With one mapping
// for every table, a client who saw which names share a bucket could pile
// those names into one chain of any other hash or sorted set; and with
// the bare low bits, a bucket's nodes would only split in two when the
// table doubles.
func TestBucketsDifferPerTable(t *testing.T) {
	const n = 4000
	keys := make([]string, n)
	var a, b HMap[testEntry]
	for i := range keys {
		keys[i] = string(rune(i))
		a.Insert(&keyedEntry(keys[i]).node)
		b.Insert(&keyedEntry(keys[i]).node)
	}
	// a and b now have no resize under way and 512 buckets each.
	bucketOf := func(m *HMap[testEntry]) map[string]int {
		out := map[string]int{}
		for i, node := range m.ht1.tab {
			for ; node != nil; node = node.next {
				out[node.Owner.key] = i
			}
		}
		return out
	}
	inA, inB := bucketOf(&a), bucketOf(&b)
	if len(inA) != n || len(inB) != n {
		t.Fatalf("test bug: a resize is under way (%d and %d keys in the newer tables)", len(inA), len(inB))
	}
	// The fullest bucket of a.
	full := map[int][]string{}
	fullest := 0
	for _, k := range keys {
		full[inA[k]] = append(full[inA[k]], k)
		if len(full[inA[k]]) > len(full[fullest]) {
			fullest = inA[k]
		}
	}
	group := full[fullest]
	// In b, and in a after it has grown to 1024 buckets, the group falls in
	// more than two buckets: 8 keys in at most two of 512 would come about
	// once in 10^14 tables.
	spread := func(bucket map[string]int) int {
		seen := map[int]bool{}
		for _, k := range group {
			seen[bucket[k]] = true
		}
		return len(seen)
	}
	if got := spread(inB); got <= 2 {
		t.Errorf("the %d keys of one bucket of a fall in %d buckets of b", len(group), got)
	}
	for i := n; a.ht2.size != 0 || len(a.ht1.tab) == 512; i++ {
		a.Insert(&keyedEntry(string(rune(i))).node)
	}
	if got := spread(bucketOf(&a)); got <= 2 {
		t.Errorf("the %d keys of one bucket of a fall in %d buckets after it grew", len(group), got)
	}
}
