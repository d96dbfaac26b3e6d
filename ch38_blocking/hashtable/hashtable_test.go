package hashtable

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testEntry is a value indexed by the map, shaped like the server's entry.
type testEntry struct {
	node HNode[testEntry]
	key  string
	val  int
	seen int // the last checkScan pass that visited this entry
}

func newTestEntry(key string, val int) *testEntry {
	e := &testEntry{key: key, val: val}
	e.node.Owner = e
	e.node.HCode = StrHash(key)
	return e
}

func entryEq(a, b *HNode[testEntry]) bool {
	return a.HCode == b.HCode && a.Owner.key == b.Owner.key
}

// probe makes a key-only node to search with, as the server does per request.
func probe(key string) *HNode[testEntry] {
	return &newTestEntry(key, 0).node
}

// inTable reports whether the table holds key.
func inTable(t *HTab[testEntry], key string) bool {
	return t.lookup(StrHash(key), func(n *HNode[testEntry]) bool { return n.Owner.key == key }) != nil
}

// kv is what the tests compare: a found key and its value.
type kv struct {
	Key string
	Val int
}

func viewNode(n *HNode[testEntry]) *kv {
	if n == nil {
		return nil
	}
	return &kv{n.Owner.key, n.Owner.val}
}

// refMap is the reference model: a Go map plus a slice of its keys so that
// a random live key can be picked in O(1).
type refMap struct {
	vals map[string]int
	keys []string
	pos  map[string]int // index of each key in keys
}

func newRefMap() *refMap {
	return &refMap{vals: map[string]int{}, pos: map[string]int{}}
}

func (r *refMap) get(key string) *kv {
	v, ok := r.vals[key]
	if !ok {
		return nil
	}
	return &kv{key, v}
}

func (r *refMap) set(key string, val int) {
	if _, ok := r.vals[key]; !ok {
		r.pos[key] = len(r.keys)
		r.keys = append(r.keys, key)
	}
	r.vals[key] = val
}

func (r *refMap) del(key string) {
	i, ok := r.pos[key]
	if !ok {
		return
	}
	last := r.keys[len(r.keys)-1]
	r.keys[i] = last
	r.pos[last] = i
	r.keys = r.keys[:len(r.keys)-1]
	delete(r.pos, key)
	delete(r.vals, key)
}

// scanContents returns key -> value for every node Scan visits, and the
// keys it visited more than once.
func scanContents(m *HMap[testEntry]) (map[string]int, []string) {
	got := make(map[string]int, m.Size())
	var dups []string
	m.Scan(func(n *HNode[testEntry]) {
		if _, seen := got[n.Owner.key]; seen {
			dups = append(dups, n.Owner.key)
		}
		got[n.Owner.key] = n.Owner.val
	})
	return got, dups
}

// checkScan asserts that Scan visits each key of the reference exactly
// once, with its current value, and nothing else.
func checkScan(t *testing.T, step int, m *HMap[testEntry], ref *refMap) {
	t.Helper()
	// Cheap pass first: a visit stamp per entry catches repeats, and one
	// reference lookup per node checks membership and value. No repeats, all
	// visited keys in the reference and as many visits as reference keys
	// means the two key sets are equal.
	scanEpoch++
	visits, ok := 0, true
	m.Scan(func(n *HNode[testEntry]) {
		e := n.Owner
		if v, in := ref.vals[e.key]; e.seen == scanEpoch || !in || v != e.val {
			ok = false
		}
		e.seen = scanEpoch
		visits++
	})
	if ok && visits == len(ref.vals) {
		return
	}
	// Slow pass to explain the failure.
	got, dups := scanContents(m)
	if len(dups) > 0 {
		t.Fatalf("step %d: Scan visited keys more than once: %q", step, dups[:min(len(dups), 10)])
	}
	t.Fatalf("step %d: Scan contents differ from the reference (-want +got):\n%s",
		step, cmp.Diff(ref.vals, got))
}

// scanEpoch numbers the checkScan calls, for testEntry.seen.
var scanEpoch int

type op int

const (
	opSet     op = iota // lookup, then update in place or insert, like the server's set
	opGetLive           // lookup of a key known to be present
	opGetAny            // lookup of a present, deleted or never-used key
	opDelLive           // pop of a key known to be present
	opDelAny            // pop of a present, deleted or never-used key
	opCount
)

// pickOp draws an operation with the given percentages, indexed by op.
func pickOp(rng *rand.Rand, weights [opCount]int) op {
	r := rng.IntN(100)
	for o, w := range weights {
		if r < w {
			return op(o)
		}
		r -= w
	}
	panic("weights do not add up to 100")
}

// TestRandomOps runs a long seeded sequence of operations against a Go map,
// first growing the map through many resizes and then shrinking it.
func TestRandomOps(t *testing.T) {
	steps, wantMaxSize, wantResizes := 100_000, 50_000, 11
	if testing.Short() {
		steps, wantMaxSize, wantResizes = 20_000, 10_000, 9
	}
	// Every step's scan is checked while the map is small; after that one
	// scan in 5,000 steps (each walks up to 50,000 keys) still checks
	// each resize's tables, at a fraction of the time.
	const fullScanEveryStepUntil, scanEvery = 3000, 5000
	growSteps := steps * 3 / 4
	growWeights := [opCount]int{opSet: 85, opGetLive: 5, opGetAny: 3, opDelLive: 5, opDelAny: 2}
	shrinkWeights := [opCount]int{opSet: 15, opGetLive: 5, opGetAny: 5, opDelLive: 65, opDelAny: 10}

	rng := rand.New(rand.NewPCG(8, 2023))
	var m HMap[testEntry]
	ref := newRefMap()
	fresh := 0 // keys k0 .. k<fresh-1> have been used
	anyKey := func() string {
		// Mostly used keys (live or deleted); the rest were never inserted.
		return "k" + strconv.Itoa(rng.IntN(fresh+fresh/8+1))
	}
	var maxSize, resizes, resizingSteps, servedFromOld int
	buckets := 0

	for step := range steps {
		weights := growWeights
		if step >= growSteps {
			weights = shrinkWeights
		}
		o := pickOp(rng, weights)
		if len(ref.keys) == 0 && (o == opGetLive || o == opDelLive) {
			o = opSet
		}
		var key string
		switch o {
		case opSet:
			if fresh == 0 || rng.IntN(10) > 0 {
				key = "k" + strconv.Itoa(fresh)
				fresh++
			} else {
				key = anyKey() // update a live key or revive a deleted one
			}
		case opGetLive, opDelLive:
			key = ref.keys[rng.IntN(len(ref.keys))]
		case opGetAny, opDelAny:
			key = anyKey()
		}

		switch o {
		case opSet, opGetLive, opGetAny:
			n := m.Lookup(probe(key), entryEq)
			if diff := cmp.Diff(ref.get(key), viewNode(n)); diff != "" {
				t.Fatalf("step %d: Lookup(%q) (-want +got):\n%s", step, key, diff)
			}
			if n != nil && inTable(&m.ht2, key) {
				servedFromOld++
			}
			if o == opSet {
				val := rng.Int()
				if n != nil {
					n.Owner.val = val
				} else {
					m.Insert(&newTestEntry(key, val).node)
				}
				ref.set(key, val)
			}
		case opDelLive, opDelAny:
			n := m.Pop(probe(key), entryEq)
			if diff := cmp.Diff(ref.get(key), viewNode(n)); diff != "" {
				t.Fatalf("step %d: Pop(%q) (-want +got):\n%s", step, key, diff)
			}
			ref.del(key)
		}

		// The key just touched must now read back as the reference says.
		if diff := cmp.Diff(ref.get(key), viewNode(m.Lookup(probe(key), entryEq))); diff != "" {
			t.Fatalf("step %d: Lookup(%q) after op %d (-want +got):\n%s", step, key, o, diff)
		}
		if diff := cmp.Diff(len(ref.vals), m.Size()); diff != "" {
			t.Fatalf("step %d: Size() (-want +got):\n%s", step, diff)
		}
		if step < fullScanEveryStepUntil || step%scanEvery == 0 {
			checkScan(t, step, &m, ref)
		}

		maxSize = max(maxSize, m.Size())
		if len(m.ht1.tab) > buckets {
			if buckets != 0 {
				resizes++
			}
			buckets = len(m.ht1.tab)
		}
		if m.ht2.tab != nil {
			resizingSteps++
		}
	}
	checkScan(t, steps, &m, ref)

	// Make sure the sequence exercised what it is meant to.
	if maxSize < wantMaxSize || resizes < wantResizes {
		t.Errorf("sequence reached %d keys and %d resizes; want at least %d and %d",
			maxSize, resizes, wantMaxSize, wantResizes)
	}
	if m.Size() > maxSize*3/4 {
		t.Errorf("sequence shrank only from %d to %d keys", maxSize, m.Size())
	}
	if resizingSteps < 20 || servedFromOld == 0 {
		t.Errorf("%d steps ran mid-resize and %d lookups were served by the old table; want many",
			resizingSteps, servedFromOld)
	}
	t.Logf("max size %d, final size %d, %d resizes, %d steps mid-resize, %d lookups served by the old table",
		maxSize, m.Size(), resizes, resizingSteps, servedFromOld)
}

// TestOldTableMidResize stops in the middle of a large resize and checks
// that keys still in the old table are found and popped from there.
func TestOldTableMidResize(t *testing.T) {
	var m HMap[testEntry]
	entries := map[string]*testEntry{}
	// Enough left in ht2 that the few dozen operations below, each moving
	// at most kResizingWork nodes, cannot drain it.
	const minLeft = 64 * kResizingWork
	for i := 0; m.ht2.size < minLeft; i++ {
		if i > 1<<20 {
			t.Fatal("no resize left a large old table behind")
		}
		e := newTestEntry(fmt.Sprintf("key-%d", i), i)
		entries[e.key] = e
		m.Insert(&e.node)
	}
	if got, want := len(m.ht1.tab), 2*len(m.ht2.tab); got != want {
		t.Fatalf("new table has %d buckets, want %d (twice the old)", got, want)
	}
	oldBuckets := len(m.ht2.tab)

	// Nodes leave ht2 in bucket order, so those in its last buckets stay
	// there longest.
	var inOld []string
	m.ht2.scan(func(n *HNode[testEntry]) { inOld = append(inOld, n.Owner.key) })
	tail := inOld[len(inOld)-32:]

	for _, key := range tail[16:] {
		n := m.Lookup(probe(key), entryEq)
		if n != &entries[key].node {
			t.Fatalf("Lookup(%q) = %v, want its node", key, viewNode(n))
		}
		if !inTable(&m.ht2, key) || inTable(&m.ht1, key) {
			t.Fatalf("%q was not served from the old table alone", key)
		}
	}
	for _, key := range tail[:16] {
		size1, size2 := m.ht1.size, m.ht2.size
		n := m.Pop(probe(key), entryEq)
		if n != &entries[key].node {
			t.Fatalf("Pop(%q) = %v, want its node", key, viewNode(n))
		}
		// Pop first moves some nodes from ht2 to ht1; anything more that
		// left ht2 was the popped node.
		moved := m.ht1.size - size1
		if got := size2 - m.ht2.size - moved; got != 1 {
			t.Fatalf("Pop(%q) removed %d nodes from the old table, want 1", key, got)
		}
		if n.next != nil {
			t.Errorf("popped node %q still links into a chain", key)
		}
		delete(entries, key)
		if n := m.Lookup(probe(key), entryEq); n != nil {
			t.Fatalf("Lookup(%q) after Pop = %v, want nil", key, viewNode(n))
		}
	}
	if m.ht2.size == 0 {
		t.Fatal("old table drained too early for the test to mean anything")
	}

	// Every remaining key is found while the rest of the resize completes.
	keys := slices.Sorted(maps.Keys(entries))
	for _, key := range keys {
		if n := m.Lookup(probe(key), entryEq); n != &entries[key].node {
			t.Fatalf("Lookup(%q) = %v, want its node", key, viewNode(n))
		}
	}
	if m.ht2.tab != nil || len(m.ht1.tab) != 2*oldBuckets {
		t.Fatalf("after the resize: old table %d buckets, new %d; want 0 and %d",
			len(m.ht2.tab), len(m.ht1.tab), 2*oldBuckets)
	}
	if diff := cmp.Diff(len(entries), m.Size()); diff != "" {
		t.Fatalf("Size() (-want +got):\n%s", diff)
	}

	for _, key := range keys {
		if n := m.Pop(probe(key), entryEq); n != &entries[key].node {
			t.Fatalf("Pop(%q) = %v, want its node", key, viewNode(n))
		}
		if n := m.Pop(probe(key), entryEq); n != nil {
			t.Fatalf("second Pop(%q) = %v, want nil", key, viewNode(n))
		}
	}
	if m.Size() != 0 {
		t.Fatalf("Size() = %d after popping everything", m.Size())
	}
}

// TestResizeSchedule follows the table sizes insert by insert against a
// model of the book's policy: 4 buckets at first, a resize to twice the
// buckets once size/buckets reaches 8, and at most 128 nodes moved per
// operation.
func TestResizeSchedule(t *testing.T) {
	type shape struct{ Buckets1, Size1, Buckets2, Size2 int }
	var m HMap[testEntry]
	var want shape
	for i := range 20_000 {
		m.Insert(&newTestEntry("s"+strconv.Itoa(i), i).node)

		if want.Buckets1 == 0 {
			want.Buckets1 = 4
		}
		want.Size1++
		if want.Buckets2 == 0 && want.Size1/want.Buckets1 >= 8 {
			want = shape{want.Buckets1 * 2, 0, want.Buckets1, want.Size1}
		}
		moved := min(128, want.Size2)
		want.Size1 += moved
		want.Size2 -= moved
		if want.Size2 == 0 {
			want.Buckets2 = 0
		}

		got := shape{len(m.ht1.tab), m.ht1.size, len(m.ht2.tab), m.ht2.size}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("after %d inserts (-want +got):\n%s", i+1, diff)
		}
	}
}

// TestEmptyMap checks the zero value and removing the last key.
func TestEmptyMap(t *testing.T) {
	var m HMap[testEntry]
	if n := m.Lookup(probe("a"), entryEq); n != nil {
		t.Errorf("Lookup on empty map = %v", viewNode(n))
	}
	if n := m.Pop(probe("a"), entryEq); n != nil {
		t.Errorf("Pop on empty map = %v", viewNode(n))
	}
	got, _ := scanContents(&m)
	if diff := cmp.Diff(map[string]int{}, got); diff != "" || m.Size() != 0 {
		t.Errorf("empty map: Size() = %d, Scan (-want +got):\n%s", m.Size(), diff)
	}

	e := newTestEntry("a", 1)
	m.Insert(&e.node)
	if n := m.Pop(probe("a"), entryEq); n != &e.node {
		t.Errorf("Pop(a) = %v, want the inserted node", viewNode(n))
	}
	if n := m.Pop(probe("a"), entryEq); n != nil || m.Size() != 0 {
		t.Errorf("after popping the only key: Pop = %v, Size() = %d", viewNode(n), m.Size())
	}
}

// refStrHash is the book's hash written independently: 64-bit arithmetic
// reduced modulo 2^32 by hand, with the constants in decimal.
func refStrHash(data []byte) uint64 {
	h := uint64(2166136261) // 0x811C9DC5
	for _, b := range data {
		h = (h + uint64(b)) * 16777619 % (1 << 32) // 0x01000193
	}
	return h
}

func TestStrHash(t *testing.T) {
	inputs := []string{"", "a", "k", "key", "hello", "set", "\x00", "\xff\xfe\xfd", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}
	rng := rand.New(rand.NewPCG(3, 1))
	for range 200 {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, string(b))
	}
	var got, want []uint64
	for _, s := range inputs {
		got = append(got, StrHash(s))
		want = append(want, refStrHash([]byte(s)))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StrHash (-want +got):\n%s", diff)
	}
	// The empty key hashes to the offset basis itself.
	if diff := cmp.Diff(uint64(0x811C9DC5), StrHash("")); diff != "" {
		t.Errorf("StrHash(\"\") (-want +got):\n%s", diff)
	}
	// The state is 32 bits wide, and one step differs from FNV-1a's xor.
	for _, h := range got {
		if h>>32 != 0 {
			t.Fatalf("StrHash returned %#x, wider than 32 bits", h)
		}
	}
	xorStep := (uint64(0x811C9DC5) ^ 'a') * 16777619 % (1 << 32)
	if StrHash("a") == xorStep {
		t.Errorf("StrHash(\"a\") = %#x, which is FNV-1a, not the book's add-then-multiply", xorStep)
	}
}

// Benchmarks: N distinct string keys in HMap versus Go's built-in map. Both
// sides allocate one record per key, as a server storing key/value pairs
// would; ns/key divides the time per iteration by N.

const benchN = 1 << 16

type benchEntry struct {
	node     HNode[benchEntry]
	key, val string
}

type plainEntry struct{ key, val string }

func benchEq(a, b *HNode[benchEntry]) bool {
	return a.HCode == b.HCode && a.Owner.key == b.Owner.key
}

func benchKeys() []string {
	keys := make([]string, benchN)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
	}
	return keys
}

func buildHMap(keys []string) *HMap[benchEntry] {
	m := &HMap[benchEntry]{}
	for _, k := range keys {
		e := &benchEntry{key: k, val: k}
		e.node.Owner = e
		e.node.HCode = StrHash(k)
		m.Insert(&e.node)
	}
	return m
}

func buildGoMap(keys []string) map[string]*plainEntry {
	m := map[string]*plainEntry{}
	for _, k := range keys {
		m[k] = &plainEntry{key: k, val: k}
	}
	return m
}

func BenchmarkInsert(b *testing.B) {
	keys := benchKeys()
	b.Run("hmap", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if buildHMap(keys).Size() != benchN {
				b.Fatal("wrong size")
			}
			n++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*benchN), "ns/key")
	})
	b.Run("gomap", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if len(buildGoMap(keys)) != benchN {
				b.Fatal("wrong size")
			}
			n++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*benchN), "ns/key")
	})
}

func BenchmarkLookup(b *testing.B) {
	keys := benchKeys()
	b.Run("hmap", func(b *testing.B) {
		m := buildHMap(keys)
		// One reusable probe: a fresh one per lookup would escape through
		// the eq callback and cost an allocation.
		var p benchEntry
		p.node.Owner = &p
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p.key = keys[i%benchN]
			p.node.HCode = StrHash(p.key)
			if n := m.Lookup(&p.node, benchEq); n == nil || n.Owner.val != p.key {
				b.Fatal("lookup failed")
			}
			i++
		}
	})
	b.Run("gomap", func(b *testing.B) {
		m := buildGoMap(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i%benchN]
			if e := m[k]; e == nil || e.val != k {
				b.Fatal("lookup failed")
			}
			i++
		}
	})
}

// TestFuncVariantsByBytes: LookupFunc and PopFunc find keys given as byte
// slices, hashed with StrHash on the bytes, without allocating; StrHash
// gives bytes and strings the same hash.
func TestFuncVariantsByBytes(t *testing.T) {
	var m HMap[testEntry]
	const n = 1000
	for i := range n {
		e := newTestEntry(fmt.Sprintf("key-%d", i), i)
		m.Insert(&e.node)
	}
	find := func(key []byte) *HNode[testEntry] {
		return m.LookupFunc(StrHash(key), func(n *HNode[testEntry]) bool { return n.Owner.key == string(key) })
	}
	buf := []byte("key-123")
	if diff := cmp.Diff(&kv{"key-123", 123}, viewNode(find(buf))); diff != "" {
		t.Errorf("LookupFunc(key-123) (-want +got):\n%s", diff)
	}
	if got := find([]byte("key-1000")); got != nil {
		t.Errorf("LookupFunc(absent key) = %v, want nil", viewNode(got))
	}
	if allocs := testing.AllocsPerRun(100, func() { find(buf) }); allocs != 0 {
		t.Errorf("LookupFunc with a byte-slice key: %v allocations per call, want 0", allocs)
	}
	for i := range n {
		if StrHash([]byte(fmt.Sprint(i))) != StrHash(fmt.Sprint(i)) {
			t.Fatalf("StrHash differs for %d as bytes and as a string", i)
		}
	}
	key := []byte("key-7")
	got := m.PopFunc(StrHash(key), func(n *HNode[testEntry]) bool { return n.Owner.key == string(key) })
	if diff := cmp.Diff(&kv{"key-7", 7}, viewNode(got)); diff != "" {
		t.Errorf("PopFunc(key-7) (-want +got):\n%s", diff)
	}
	if m.Size() != n-1 || find(key) != nil {
		t.Errorf("after PopFunc: Size() = %d, key still found: %v", m.Size(), find(key) != nil)
	}
}
