package keytable

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// item is a test entry: a key and a value.
type item struct {
	key string
	val int
}

// strHash is the book's string hash (package hashtable's StrHash), copied
// so the tests exercise the table with the codes the server gives it.
func strHash(s string) uint64 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h = (h + uint32(s[i])) * 0x01000193
	}
	return uint64(h)
}

func newItems(hash func(string) uint64) *Table[item] {
	return New(func(it *item) uint64 { return hash(it.key) }, nil)
}

// finish ends the resize under way, if any.
func finish(h *Table[item]) {
	for h.resizing() {
		h.Step(1 << 30)
	}
}

func get(h *Table[item], hash func(string) uint64, key string) *item {
	return h.Lookup(hash(key), func(it *item) bool { return it.key == key })
}

func del(h *Table[item], hash func(string) uint64, key string) *item {
	return h.Delete(hash(key), func(it *item) bool { return it.key == key })
}

// check compares the table with the map it should equal: same length,
// every key found with its value, All visiting each entry exactly once,
// and no table more than three quarters full.
func check(t *testing.T, h *Table[item], hash func(string) uint64, want map[string]int) {
	t.Helper()
	if h.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", h.Len(), len(want))
	}
	seen := map[string]int{}
	h.All(func(it *item) { seen[it.key]++ })
	if len(seen) != len(want) {
		t.Fatalf("All visited %d keys, want %d", len(seen), len(want))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("All visited %q %d times", k, n)
		}
		if _, ok := want[k]; !ok {
			t.Fatalf("All visited %q, which was deleted", k)
		}
	}
	for k, v := range want {
		it := get(h, hash, k)
		if it == nil || it.val != v {
			t.Fatalf("Lookup(%q) = %v, want value %d", k, it, v)
		}
	}
	for _, tb := range h.arrays() {
		if tb.tags != nil && (tb.live+tb.deleted)*4 > len(tb.tags)*3 {
			t.Fatalf("a table of %d slots holds %d entries and %d deleted marks", len(tb.tags), tb.live, tb.deleted)
		}
	}
}

// TestSize: a growing table, once its resizes are done, is between half
// and three quarters full.
func TestSize(t *testing.T) {
	h := newItems(strHash)
	for i := range 100000 {
		k := fmt.Sprint(i)
		h.Insert(strHash(k), &item{k, i})
		if h.resizing() || i < 100 {
			continue
		}
		if load := float64(h.Len()) / float64(len(h.cur.tags)); load < 0.49 || load > 0.75 {
			t.Fatalf("%d entries in a table of %d slots", h.Len(), len(h.cur.tags))
		}
	}
}

func TestEmpty(t *testing.T) {
	var h Table[item] // the zero value answers lookups and deletes
	if h.Len() != 0 || get(&h, strHash, "a") != nil || del(&h, strHash, "a") != nil {
		t.Error("an empty table found something")
	}
	h.All(func(*item) { t.Error("All visited an entry of an empty table") })
}

func TestInsertLookupDelete(t *testing.T) {
	h := newItems(strHash)
	want := map[string]int{}
	for i := range 1000 {
		k := fmt.Sprintf("key:%06d", i)
		h.Insert(strHash(k), &item{k, i})
		want[k] = i
	}
	check(t, h, strHash, want)
	if get(h, strHash, "key:001000") != nil {
		t.Error("found a key never inserted")
	}
	for i := 0; i < 1000; i += 3 {
		k := fmt.Sprintf("key:%06d", i)
		if it := del(h, strHash, k); it == nil || it.key != k {
			t.Fatalf("Delete(%q) = %v", k, it)
		}
		if del(h, strHash, k) != nil {
			t.Fatalf("second Delete(%q) found it again", k)
		}
		delete(want, k)
	}
	check(t, h, strHash, want)
}

// TestResizeUnderLoad checks the table in the middle of resizes: after
// every insert and delete of a long run, the keys inserted so far are all
// there, whether they sit in the new table or in the old one.
func TestResizeUnderLoad(t *testing.T) {
	h := newItems(strHash)
	want := map[string]int{}
	sawResize := false
	for i := range 3000 {
		k := fmt.Sprintf("k%d", i)
		h.Insert(strHash(k), &item{k, i})
		want[k] = i
		if i%7 == 0 {
			dk := fmt.Sprintf("k%d", i/2)
			_, had := want[dk]
			if (del(h, strHash, dk) != nil) != had {
				t.Fatalf("Delete(%q) disagrees with the map", dk)
			}
			delete(want, dk)
		}
		sawResize = sawResize || h.resizing()
		if i%97 == 0 {
			check(t, h, strHash, want)
		}
	}
	check(t, h, strHash, want)
	if !sawResize {
		t.Error("3000 inserts never resized the table")
	}
}

// TestCollisions gives every key the same hash code: one long walk, which
// must still find, skip and delete the right entries.
func TestCollisions(t *testing.T) {
	same := func(string) uint64 { return 42 }
	h := newItems(same)
	want := map[string]int{}
	for i := range 200 {
		k := fmt.Sprint(i)
		h.Insert(same(k), &item{k, i})
		want[k] = i
	}
	for i := 0; i < 200; i += 2 {
		del(h, same, fmt.Sprint(i))
		delete(want, fmt.Sprint(i))
	}
	check(t, h, same, want)
}

// TestDeletionsShrink: deleting most keys resizes the table to a smaller
// one, and lookups of the deleted keys end (walks meet empty slots).
func TestDeletionsShrink(t *testing.T) {
	h := newItems(strHash)
	for i := range 10000 {
		k := fmt.Sprint(i)
		h.Insert(strHash(k), &item{k, i})
	}
	big := len(h.cur.tags)
	want := map[string]int{}
	for i := range 10000 {
		k := fmt.Sprint(i)
		if i%100 == 0 {
			want[k] = i
			continue
		}
		del(h, strHash, k)
	}
	for range 10000 { // steps, a request's each, move the resize along
		h.Step(StepWork)
	}
	check(t, h, strHash, want)
	if h.resizing() || len(h.cur.tags) >= big {
		t.Errorf("after deleting 99%% of %d slots: %d slots, old table %v", big, len(h.cur.tags), h.resizing())
	}
}

// TestShrinkThenInsert: a resize started by deletions leaves a large,
// sparse old table, and only inserts follow. Their moves, kInsertMoves
// slots each, must empty the old table before they fill the new one,
// which newSizeFor makes large enough: no insert finds the new table full
// and moves all the rest at once, no table is ever more than three
// quarters full (check), and the old one is gone after len/kInsertMoves
// inserts. The sparsest such table: a resize mostly done, during which the
// keys moved to the new table are deleted (no resize starts while one is
// under way), leaves that one full of deleted marks and nearly empty.
func TestShrinkThenInsert(t *testing.T) {
	h := newItems(strHash)
	for i := range 100000 {
		k := fmt.Sprint(i)
		h.Insert(strHash(k), &item{k, i})
	}
	finish(h)
	want := map[string]int{}
	for i := range 100000 {
		want[fmt.Sprint(i)] = i
	}
	for i := 0; !h.resizing(); i++ {
		del(h, strHash, fmt.Sprint(i))
		delete(want, fmt.Sprint(i))
	}
	for range len(h.arrays()[1].tags) * 7 / 8 / StepWork {
		h.Step(StepWork)
	}
	for k := range want {
		if len(want) == 10 {
			break
		}
		del(h, strHash, k)
		delete(want, k)
	}
	finish(h)
	for k := range want {
		del(h, strHash, k) // the deleted marks start a resize
		delete(want, k)
		break
	}
	if !h.resizing() {
		t.Fatal("the deletes started no resize")
	}
	oldSlots := len(h.arrays()[1].tags)
	for i := 0; h.resizing(); i++ {
		if i > oldSlots/kInsertMoves+1 {
			t.Fatalf("%d inserts, %d slots each, and the old table of %d slots is not empty", i, kInsertMoves, oldSlots)
		}
		k := fmt.Sprintf("new%d", i)
		moved := h.moved
		h.Insert(strHash(k), &item{k, i})
		if h.moved-moved > kInsertMoves {
			t.Fatalf("insert %d filled the new table and moved the %d slots left of the old one at once", i, h.moved-moved)
		}
		want[k] = i
		if i%1000 == 0 {
			check(t, h, strHash, want)
		}
	}
	check(t, h, strHash, want)
	t.Logf("an old table of %d slots, a new one of %d for %d entries", oldSlots, len(h.cur.tags), h.Len())
}

// TestAgainstMap runs random operations on the table and on a map and
// compares them throughout, with a good hash and with a very poor one.
func TestAgainstMap(t *testing.T) {
	poor := func(s string) uint64 { return uint64(len(s) + int(s[len(s)-1])%4) }
	for name, hash := range map[string]func(string) uint64{"strHash": strHash, "poor": poor} {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			h := newItems(hash)
			want := map[string]int{}
			for i := range 20000 {
				k := fmt.Sprint(rng.IntN(500))
				switch rng.IntN(3) {
				case 0:
					if it := get(h, hash, k); it != nil {
						it.val = i
					} else {
						h.Insert(hash(k), &item{k, i})
					}
					want[k] = i
				case 1:
					_, had := want[k]
					if (del(h, hash, k) != nil) != had {
						t.Fatalf("op %d: Delete(%q) disagrees with the map", i, k)
					}
					delete(want, k)
				case 2:
					_, had := want[k]
					if (get(h, hash, k) != nil) != had {
						t.Fatalf("op %d: Lookup(%q) disagrees with the map", i, k)
					}
				}
				if i%1000 == 0 {
					check(t, h, hash, want)
				}
			}
			check(t, h, hash, want)
		})
	}
}

// FuzzAgainstMap reads the input as operations (insert, delete or look up
// one of 64 keys) and compares the table with a map after each.
func FuzzAgainstMap(f *testing.F) {
	f.Add([]byte{0, 1, 2, 64, 65, 128, 3, 67})
	f.Fuzz(func(t *testing.T, ops []byte) {
		h := newItems(strHash)
		want := map[string]int{}
		for i, op := range ops {
			k := fmt.Sprint(op % 64)
			_, had := want[k]
			switch op / 64 {
			case 0, 3:
				if !had {
					h.Insert(strHash(k), &item{k, i})
					want[k] = i
				}
			case 1:
				if (del(h, strHash, k) != nil) != had {
					t.Fatalf("Delete(%q) disagrees with the map", k)
				}
				delete(want, k)
			case 2:
				if (get(h, strHash, k) != nil) != had {
					t.Fatalf("Lookup(%q) disagrees with the map", k)
				}
			}
		}
		check(t, h, strHash, want)
		got := []string{}
		h.All(func(it *item) { got = append(got, it.key) })
		slices.Sort(got)
		if len(slices.Compact(got)) != len(want) {
			t.Fatalf("All gave %d distinct keys, want %d", len(got), len(want))
		}
	})
}

func TestLookupDoesNotAllocate(t *testing.T) {
	h := newItems(strHash)
	for i := range 1000 {
		k := fmt.Sprint(i)
		h.Insert(strHash(k), &item{k, i})
	}
	key := []byte("500")
	allocs := testing.AllocsPerRun(100, func() {
		if h.Lookup(strHash(string(key)), func(it *item) bool { return it.key == string(key) }) == nil {
			t.Fatal("not found")
		}
	})
	if allocs != 0 {
		t.Errorf("Lookup allocates %v times", allocs)
	}
}

// TestWarmReadsEachKeysSlot: for each of the first kMaxWarm codes, Warm
// reads the key of the entry a lookup would try first (the first slot of
// the code's walk with its tag: the key's own, unless another key's tag
// is alike), none for a code whose walk finds no such slot, and changes
// nothing: the same entries, and no probes counted.
func TestWarmReadsEachKeysSlot(t *testing.T) {
	h := newItems(strHash)
	h.Warm([]uint64{1, 2}, func(*item) string { t.Fatal("key on an empty table"); return "" })
	want := map[string]int{}
	var codes []uint64
	for i := range 100 {
		k := fmt.Sprint("key:", i)
		want[k] = i
		h.Insert(strHash(k), &item{key: k, val: i})
		codes = append(codes, strHash(k))
	}
	finish(h)
	codes = append(codes[:kMaxWarm-2], strHash("absent:1"), strHash("absent:2"), codes[kMaxWarm])
	var first []*item // what a lookup tries first, for each code
	for _, c := range codes[:kMaxWarm] {
		if i := h.cur.find(c, func(*item) bool { return true }); i >= 0 {
			first = append(first, h.cur.ents[i])
		}
	}
	probes := h.probes()
	var touched []*item
	h.Warm(codes, func(it *item) string {
		touched = append(touched, it)
		return it.key
	})
	if len(touched) < kMaxWarm-2 || !slices.Equal(touched, first) {
		t.Errorf("touched %d entries, want the %d that the first %d codes' lookups try first", len(touched), len(first), kMaxWarm)
	}
	if h.probes() != probes {
		t.Errorf("Warm counted %d probes", h.probes()-probes)
	}
	check(t, h, strHash, want)
}
