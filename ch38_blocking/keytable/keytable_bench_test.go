package keytable

import (
	"fmt"
	"testing"

	"example.com/byor/ch38_blocking/hashtable"
)

// rec is a benchmark entry: its key, and the node the book's table links.
type rec struct {
	node hashtable.HNode[rec]
	key  string
}

// BenchmarkLookup finds random present keys, by bytes as the server does,
// in this table and in the book's chained one (package hashtable, load
// factor up to 8), at a size that fits the caches and at one that does not.
//
//	go test -run '^$' -bench Lookup ./keytable
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		keys := make([][]byte, n)
		kt := New(func(r *rec) uint64 { return hashtable.StrHash(r.key) }, nil)
		var hm hashtable.HMap[rec]
		for i := range keys {
			r := &rec{key: fmt.Sprintf("key:%06d", i)}
			keys[i] = []byte(r.key)
			kt.Insert(hashtable.StrHash(r.key), r)
			r2 := &rec{key: r.key}
			r2.node.Owner = r2
			r2.node.HCode = hashtable.StrHash(r.key)
			hm.Insert(&r2.node)
		}
		for kt.resizing() { // finish the resizes before timing
			kt.Step(1 << 30)
		}
		// A fixed pseudo-random order, so both tables see the same keys.
		order := make([]int, 1<<16)
		x := uint32(1)
		for i := range order {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			order[i] = int(x % uint32(n))
		}
		b.Run(fmt.Sprintf("keytable/n=%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				k := keys[order[i&(1<<16-1)]]
				if kt.Lookup(hashtable.StrHash(k), func(r *rec) bool { return r.key == string(k) }) == nil {
					b.Fatal("missing")
				}
			}
		})
		b.Run(fmt.Sprintf("hashtable/n=%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				k := keys[order[i&(1<<16-1)]]
				if hm.LookupFunc(hashtable.StrHash(k), func(nd *hashtable.HNode[rec]) bool { return nd.Owner.key == string(k) }) == nil {
					b.Fatal("missing")
				}
			}
		})
	}
}
