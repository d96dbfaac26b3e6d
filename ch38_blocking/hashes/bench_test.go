package hashes

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"example.com/byor/ch38_blocking/hashtable"
)

// baseField is a field of a hash that cannot expire: what field would be
// without heapIdx. It is the yardstick for what TTL support costs.
type baseField struct {
	node  hashtable.HNode[baseField]
	name  string
	value string
}

// fieldNames makes n distinct names. They are allocated before a
// measurement starts, so only the structure's own memory is counted.
func fieldNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprint("field:", i)
	}
	return names
}

// heapBytes returns the live heap after a full collection.
func heapBytes() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// bytesPerField measures the memory build retains per name, from the live
// heap before and after. The value string is a constant, so it allocates
// nothing.
func bytesPerField(names []string, build func([]string) any) float64 {
	before := heapBytes()
	keep := build(names)
	after := heapBytes()
	runtime.KeepAlive(keep)
	return float64(int64(after)-int64(before)) / float64(len(names))
}

// The three structures compared: a hashtable of fields that cannot expire, a
// Hash whose fields have no expiry, and a Hash whose fields all have one.
var layouts = []struct {
	name  string
	build func([]string) any
}{
	{"baseline", func(names []string) any {
		var m hashtable.HMap[baseField]
		for _, n := range names {
			f := &baseField{name: n, value: "v"}
			f.node.Owner = f
			f.node.HCode = hashtable.Hash(n)
			m.Insert(&f.node)
		}
		return &m
	}},
	{"plain", func(names []string) any {
		h := &Hash{}
		for _, n := range names {
			h.Set(t0, n, "v")
		}
		return h
	}},
	{"volatile", func(names []string) any {
		h := &Hash{}
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range names {
			h.SetExpireAt(t0, n, "v", t0+1+r.Uint64N(1_000_000))
		}
		return h
	}},
}

// TestMemoryOverhead measures bytes per field for the three layouts and
// holds the design to its claims: a field without an expiry costs what a
// field of a hash without TTL support costs, plus its place in the order
// HSCAN and HRANDFIELD use (16 bytes of size class and an 8-byte slot
// with the slack of a growing slice, see the package doc), and an expiry
// costs one heap item (16 bytes: an expiry time and the field's address)
// plus the slack of a growing slice.
func TestMemoryOverhead(t *testing.T) {
	n := 1 << 18
	if testing.Short() {
		n = 1 << 15
	}
	names := fieldNames(n)
	got := map[string]float64{}
	for _, l := range layouts {
		got[l.name] = bytesPerField(names, l.build)
	}
	t.Logf("%d fields: baseline %.1f B, plain %.1f B, volatile %.1f B per field",
		n, got["baseline"], got["plain"], got["volatile"])
	if d := got["plain"] - got["baseline"]; d < 24-0.5 || d > 32+0.5 {
		t.Errorf("a field without TTL costs %.1f B more than in a hash without TTL support, want 24 to 32 (its place in the order)", d)
	}
	if d := got["volatile"] - got["plain"]; d < 16 || d > 24 {
		t.Errorf("an expiry costs %.1f B, want 16 (one heap item) plus at most 8 of slack", d)
	}
}

// BenchmarkBytesPerField reports the memory per field for 1M fields. Run
// with -benchtime=1x: each iteration builds the whole structure.
func BenchmarkBytesPerField(b *testing.B) {
	names := fieldNames(1 << 20)
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = bytesPerField(names, l.build)
			}
			b.ReportMetric(per, "B/field")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// benchHash builds a hash of n fields, every one volatile if volatile is
// set, and returns it with the names.
func benchHash(n int, volatile bool) (*Hash, []string) {
	names := fieldNames(n)
	h := &Hash{}
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range names {
		if volatile {
			h.SetExpireAt(t0, name, "v", t0+1+r.Uint64N(1_000_000))
		} else {
			h.Set(t0, name, "v")
		}
	}
	return h, names
}

const benchFields = 1 << 16

// BenchmarkExpire changes the expiry of a random volatile field (HPEXPIREAT
// without a condition): a lookup and a heap update.
func BenchmarkExpire(b *testing.B) {
	h, names := benchHash(benchFields, true)
	r := rand.New(rand.NewPCG(5, 6))
	ats := make([]uint64, benchFields)
	for i := range ats {
		ats[i] = t0 + 1 + r.Uint64N(1_000_000)
	}
	i := 0
	for b.Loop() {
		h.Expire(t0, names[i%benchFields], ats[(i*7)%benchFields], Always)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkTTL queries the remaining time of a volatile field (HPTTL).
func BenchmarkTTL(b *testing.B) {
	h, names := benchHash(benchFields, true)
	i := 0
	for b.Loop() {
		h.TTL(t0, names[i%benchFields])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkGet reads fields with and without expiry: the expiry check adds
// one heap read for volatile fields and nothing for plain ones.
func BenchmarkGet(b *testing.B) {
	for _, volatile := range []bool{false, true} {
		b.Run(fmt.Sprint("volatile=", volatile), func(b *testing.B) {
			h, names := benchHash(benchFields, volatile)
			i := 0
			for b.Loop() {
				h.Get(t0, names[i%benchFields])
				i++
			}
		})
	}
}

// BenchmarkExpireSome measures active expiry per reclaimed field: a hash of
// 2^16 volatile fields is drained in batches of the book's 2000.
func BenchmarkExpireSome(b *testing.B) {
	var removed int
	for b.Loop() {
		b.StopTimer()
		h, _ := benchHash(benchFields, true)
		b.StartTimer()
		for h.ExpireSome(t0+2_000_000, 2000) > 0 {
		}
		removed += benchFields
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(removed), "ns/field")
}

// backlogHash holds 100,000 fields that have expired by backlogNow and
// 1,000 without expiry: the worst case for the whole-hash reads.
func backlogHash() *Hash {
	h := &Hash{}
	for i := range 100_000 {
		h.SetExpireAt(t0, fmt.Sprint("e", i), "x", t0+1+uint64(i%1000))
	}
	for i := range 1000 {
		h.Set(t0, fmt.Sprint("p", i), "x")
	}
	return h
}

const backlogNow = t0 + 2000

// BenchmarkLenBacklog is HLEN over a backlog of 100,000 expired fields:
// counting them, without reclaiming.
func BenchmarkLenBacklog(b *testing.B) {
	h := backlogHash()
	for b.Loop() {
		if h.Len(backlogNow) != 1000 {
			b.Fatal("wrong Len")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/expired-field")
}

// BenchmarkReclaimBacklog reclaims the same backlog in one go, which is
// what Len or GetAll would cost if they reclaimed.
func BenchmarkReclaimBacklog(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		h := backlogHash()
		b.StartTimer()
		if h.ExpireSome(backlogNow, 1<<30) != 100_000 {
			b.Fatal("wrong count")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/expired-field")
}

// BenchmarkGetAllBacklog is HGETALL over the backlog: a walk of every
// stored field that skips the expired ones.
func BenchmarkGetAllBacklog(b *testing.B) {
	h := backlogHash()
	for b.Loop() {
		if len(h.GetAll(backlogNow)) != 1000 {
			b.Fatal("wrong GetAll")
		}
	}
}
