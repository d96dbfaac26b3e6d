// Package keytable is the hashtable of chapter 18's key space: open
// addressing with linear probing, and a resize that, like the book's,
// moves entries a few at a time so that no single request pays for it:
// a few slots at every insert, and a step of bounded work once per
// request (Step), which returns its work for the server to count.
// Lookups move nothing: the book's table moved entries at every lookup
// too, so a request of thousands of lookups during a resize paid for
// much of it, and its work was counted nowhere.
//
// The book's table (package hashtable, still used by sorted sets and
// hashes) chains nodes in buckets and allows eight nodes per bucket on
// average, so a lookup follows a linked list: every node is another
// pointer to chase and, in a large key space, another cache miss. Here
// the table is two flat arrays side by side: a byte per slot (a tag: a
// few bits of the key's hash, or "empty", or "deleted") and a pointer per
// slot. A lookup hashes the key to a slot and walks forward through the
// tags, which sit 64 to a cache line, and only follows a pointer when the
// tag matches, which for another key happens once in 254 times. At most
// three quarters of the slots are in use, so the walk is short.
//
// What it costs: a key's slot depends on its hash and on which slots were
// taken before it, so a deleted slot cannot simply be emptied (a later
// key may have walked past it); it is marked deleted and skipped by
// lookups, and a resize clears those marks. And the table stores no hash
// codes, so a resize hashes every key again: the caller supplies the
// hash function.
//
// Against a client who has read this code: a walk is short only if the
// keys are spread evenly over the slots. Hash seeds the key's hash with a
// number chosen when the process starts, so no one can make up keys that
// share a slot; and every new table mixes the hash codes with a number of
// its own, so the order of the slots (which a listing of the keys shows)
// says nothing about where the keys go in the next table.
package keytable

import (
	"hash/maphash"
	"math/rand/v2"
)

// seed keys Hash: chosen when the process starts, unknown outside it.
var seed = maphash.MakeSeed()

// Hash returns the hash code of a key, given as a string or as bytes (the
// same code for both). The book's string hash is public and easily
// inverted: keys that all hash alike can be computed in advance, and
// every one of them then walks the same ever longer run of slots. This one
// is keyed by a seed chosen when the process starts.
func Hash[S ~string | ~[]byte](key S) uint64 {
	switch k := any(key).(type) {
	case string:
		return maphash.String(seed, k)
	case []byte:
		return maphash.Bytes(seed, k)
	}
	return maphash.String(seed, string(key))
}

// Tags of slots that hold no entry. Every other tag is an occupied slot.
const (
	tagEmpty   = 0 // never used since the table was made: ends a walk
	tagDeleted = 1 // held an entry once: a walk goes on past it
)

const (
	// kMinSlots is the size of the first table.
	kMinSlots = 8
	// kInsertMoves is how many slots of the old table every insert looks
	// at while a resize is under way, moving the entries it finds to the
	// new one. Inserts are what fill the new table, so they are what must
	// empty the old one in time: startResizing sizes the new table so that
	// the inserts can never fill it first (see newSizeFor). Lookups and
	// deletes move nothing, and stay a find in each table.
	kInsertMoves = 16
)

// StepWork is the work a server gives Step once per request: enough that
// a resize ends after some thousands of requests even when none inserts,
// little enough beside what a request costs anyway.
const StepWork = 256

// tab is one table: tags and entries, both of the same length.
type tab[T any] struct {
	tags    []uint8
	ents    []*T
	live    int    // slots holding an entry
	deleted int    // slots marked deleted
	salt    uint64 // mixed into every hash code (see mix)
	probes  int    // slots looked at by walks (find, put): for the tests
}

func newTab[T any](n int) tab[T] {
	return tab[T]{tags: make([]uint8, n), ents: make([]*T, n), salt: rand.Uint64()}
}

// home returns the slot where the walk for mixed hash m starts: the top 32
// bits of m, read as a fraction of 2^32, scaled to the table's length
// (multiply, keep the high half). Unlike masking the low bits, this works
// for any length, not only powers of two, so the table can grow by half
// rather than double, which keeps it fuller (see sizeFor).
func (t *tab[T]) home(m uint64) int {
	return int((m >> 32) * uint64(len(t.tags)) >> 32)
}

// mix spreads a hash code over 64 bits, differently in every table: it
// adds the table's salt and scrambles the sum (the finalizer of the
// SplitMix64 generator: every bit of the input affects every bit of the
// result). The top bits pick the slot (see home) and the tag comes from
// bits further down, so both depend on every bit of the code, whatever
// hash the caller uses.
//
// Why a salt per table: home keeps the order of the mixed codes, so with
// one mix for every table, the keys that follow one another in a table
// would follow one another in every table after it. A client who lists
// the keys (in slot order) and deletes them in that order leaves the ones
// that remain bunched in one stretch of the hash's range; the smaller
// table a resize then makes is sized for their number, not for the
// stretch, and crowds them into one long run of slots, walked by every
// insert that moves one of them: quadratic. With a salt per table, the
// order in one table says nothing about the order in the next.
func (t *tab[T]) mix(hcode uint64) uint64 {
	z := hcode + t.salt
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// tagOf returns the tag of a mixed hash: a byte that is never empty or
// deleted.
func tagOf(m uint64) uint8 {
	t := uint8(m >> 8)
	if t <= tagDeleted {
		t += 2
	}
	return t
}

// find returns the slot of the entry with hash code hcode that match
// accepts, or -1. The walk ends at the first empty slot: an entry is never
// stored past one.
func (t *tab[T]) find(hcode uint64, match func(*T) bool) int {
	if t.tags == nil {
		return -1
	}
	m := t.mix(hcode)
	tag := tagOf(m)
	for i, n := t.home(m), 1; ; i, n = t.after(i), n+1 {
		switch t.tags[i] {
		case tagEmpty:
			t.probes += n
			return -1
		case tag:
			if match(t.ents[i]) {
				t.probes += n
				return i
			}
		}
	}
}

// after returns the slot after i; the last slot is followed by the first.
func (t *tab[T]) after(i int) int {
	if i++; i == len(t.tags) {
		return 0
	}
	return i
}

// put stores ent, whose key has hash code hcode, in the first free slot
// of its walk, and returns how many slots the walk looked at. Reusing a
// deleted slot is safe here because the caller has made sure the key is
// absent.
func (t *tab[T]) put(hcode uint64, ent *T) int {
	m := t.mix(hcode)
	i, n := t.home(m), 1
	for ; t.tags[i] > tagDeleted; n++ {
		i = t.after(i)
	}
	t.probes += n
	if t.tags[i] == tagDeleted {
		t.deleted--
	}
	t.tags[i] = tagOf(m)
	t.ents[i] = ent
	t.live++
	return n
}

// remove marks slot i deleted and returns its entry.
func (t *tab[T]) remove(i int) *T {
	ent := t.ents[i]
	t.tags[i] = tagDeleted
	t.ents[i] = nil // the table must not keep the entry alive
	t.live--
	t.deleted++
	return ent
}

// Table maps keys to entries of type T. The caller hashes keys (any
// function of the key; package hashtable's StrHash in this server) and
// compares them, through the match functions, so the table never sees a
// key. Hash must return the hash code of an entry's key: a resize uses it
// to place the entries again.
//
// While a resize is under way the entries are spread over two tables, the
// new one and the old one being emptied into it, and a lookup consults
// both. The old one is emptied a few slots at every insert (kInsertMoves)
// and by Step, which the caller runs once per request with a budget: no
// request pays for a whole resize, nor for more than it is charged.
type Table[T any] struct {
	hash   func(*T) uint64
	weight func(*T) int // what hashing an entry's key costs; nil: nothing
	cur    tab[T]       // every insertion goes here
	old    tab[T]       // being emptied into cur; zero when no resize is under way
	next   int          // the first slot of old not yet moved
	work   int          // work of the resizes since the last Step, which returns it
	moved  int          // slots of old tables looked at by resizes: for the tests
	gone   int          // probes of the tables dropped so far: for the tests
	warmed byte         // what Warm read, kept so that its reads are kept
}

// New returns an empty table whose entries hash with hash. weight, if not
// nil, is the work of hashing an entry's key, in the caller's units beyond
// the one every slot a resize looks at costs (a server counts the key's
// bytes, since hashing a long key costs more than a short one); see Step.
func New[T any](hash func(*T) uint64, weight func(*T) int) *Table[T] {
	return &Table[T]{hash: hash, weight: weight}
}

// Len returns the number of entries.
func (h *Table[T]) Len() int { return h.cur.live + h.old.live }

// Lookup returns the entry with hash code hcode that match accepts, or nil.
// match is only called for entries whose tag equals the key's. It moves
// nothing: a request of many lookups (MGET) costs its lookups.
func (h *Table[T]) Lookup(hcode uint64, match func(*T) bool) *T {
	if i := h.cur.find(hcode, match); i >= 0 {
		return h.cur.ents[i]
	}
	if i := h.old.find(hcode, match); i >= 0 {
		return h.old.ents[i]
	}
	return nil
}

// Insert adds ent, whose key has hash code hcode. The key must not be in
// the table already: callers look it up first. While a resize is under
// way it first moves kInsertMoves slots of it, counted for Step to report.
func (h *Table[T]) Insert(hcode uint64, ent *T) {
	if h.cur.tags == nil {
		h.cur = newTab[T](kMinSlots)
	}
	h.work += h.moveSlots(kInsertMoves)
	if h.cur.full() {
		if h.old.tags != nil {
			h.rebuild() // never, with newSizeFor: a guard
		} else {
			h.startResizing()
		}
	}
	h.cur.put(hcode, ent)
}

// Delete removes the entry with hash code hcode that match accepts and
// returns it, or returns nil if there is none.
func (h *Table[T]) Delete(hcode uint64, match func(*T) bool) *T {
	if i := h.cur.find(hcode, match); i >= 0 {
		ent := h.cur.remove(i)
		// Deleted marks lengthen every walk that crosses them; when they
		// fill a quarter of the table, a resize (to the same size, or a
		// smaller one) sweeps them away.
		if h.cur.deleted*4 > len(h.cur.tags) && h.old.tags == nil {
			h.startResizing()
		}
		return ent
	}
	if i := h.old.find(hcode, match); i >= 0 {
		return h.old.remove(i)
	}
	return nil
}

// Step moves a resize under way along by about budget units of work (the
// slot it ends on may take it past), and returns the work resizes have
// done since the last Step: its own and the inserts' in between. A unit
// is a slot of the old table looked at; an entry moved adds the slots its
// put looks at in the new one and its weight (see New). A server calls
// Step once per request and counts what it returns as that request's
// work: a resize is then paid for a bounded share at a time, by the
// requests that happen to follow it, and a table that only answers
// lookups still finishes its resizes. Step(0) only returns the work.
func (h *Table[T]) Step(budget int) int {
	for own := 0; h.old.tags != nil && own < budget; {
		w := h.moveSlots(1)
		own += w
		h.work += w
	}
	work := h.work
	h.work = 0
	return work
}

// full reports whether one more entry would leave less than a quarter of
// the slots empty. Keeping a quarter empty keeps walks short, and makes
// sure every walk ends.
func (t *tab[T]) full() bool {
	return (t.live+t.deleted+1)*4 > len(t.tags)*3
}

// sizeFor returns the number of slots of a new table for n entries: twice
// as many, so it starts half full. It resizes again at three quarters, so
// a growing table grows by half each time and is between half and three
// quarters full. Doubling would leave it between three eighths and three
// quarters full, and the pointer array is most of the table's memory.
func sizeFor(n int) int {
	return max(kMinSlots, 2*(n+1))
}

// newSizeFor returns the size of the new table of a resize from a table of
// n slots holding live entries: sizeFor(live), unless the inserts that
// empty the old table, kInsertMoves slots each, could fill that before
// they are done. Then it is as large as the moved entries and those
// inserts need, which bounds how far one resize shrinks a table (to about
// a twelfth of its slots; the next resize shrinks it again). A growing
// table never needs more: it is at least half full when it resizes, so
// its n slots take 2*live/kInsertMoves inserts to empty, fewer than the
// half of live that sizeFor leaves room for.
func newSizeFor(live, n int) int {
	inserts := (n+kInsertMoves-1)/kInsertMoves + 1
	return max(sizeFor(live), (4*(live+inserts)+2)/3+1)
}

// startResizing makes cur the old table, to be emptied a little at every
// insert and Step, and puts a new table in its place, sized for the
// entries there are: larger after inserts, the same or smaller after
// deletions (see newSizeFor).
func (h *Table[T]) startResizing() {
	n := newSizeFor(h.cur.live, len(h.cur.tags))
	h.old = h.cur
	h.cur = newTab[T](n)
	h.next = 0
}

// rebuild moves every entry of both tables into a new one at once, and
// counts the work for Step. It would be needed if inserts filled the new
// table before they had emptied the old one; newSizeFor sizes the new
// table so that they cannot (TestShrinkThenInsert tries the worst case),
// and this keeps the rule that no table is ever more than three quarters
// full if that reasoning were ever wrong.
func (h *Table[T]) rebuild() {
	t := newTab[T](sizeFor(h.Len()))
	for _, from := range h.arrays() {
		for i, tag := range from.tags {
			h.work++
			if tag > tagDeleted {
				ent := from.ents[i]
				h.work += t.put(h.hash(ent), ent) + h.weigh(ent)
			}
		}
	}
	h.moved += len(h.old.tags) - h.next
	h.gone += h.cur.probes + h.old.probes
	h.cur, h.old, h.next = t, tab[T]{}, 0
}

// moveSlots looks at the next n slots of old (fewer if it ends first),
// moving the entries it finds to cur, drops old once every slot has been
// seen, and returns the work done (see Step). A moved slot is marked
// deleted, not emptied, so that walks through old stay intact meanwhile.
func (h *Table[T]) moveSlots(n int) int {
	if h.old.tags == nil {
		return 0
	}
	end := min(h.next+n, len(h.old.tags))
	work := end - h.next
	for i := h.next; i < end; i++ {
		if h.old.tags[i] > tagDeleted {
			ent := h.old.remove(i)
			work += h.cur.put(h.hash(ent), ent) + h.weigh(ent)
		}
	}
	h.moved += end - h.next
	h.next = end
	if h.next == len(h.old.tags) {
		h.gone += h.old.probes
		h.old = tab[T]{}
	}
	return work
}

// resizing reports whether a resize is under way.
func (h *Table[T]) resizing() bool { return h.old.tags != nil }

// arrays returns the tables that hold entries: cur, then old.
func (h *Table[T]) arrays() []*tab[T] { return []*tab[T]{&h.cur, &h.old} }

// weigh returns the weight of ent (see New).
func (h *Table[T]) weigh(ent *T) int {
	if h.weight == nil {
		return 0
	}
	return h.weight(ent)
}

// Clear removes every entry at once, for a caller that empties the whole
// key space, which would otherwise look each entry up to delete it. The
// caller disposes of the entries first (All lists them).
func (h *Table[T]) Clear() {
	h.gone += h.cur.probes + h.old.probes
	h.cur, h.old, h.next = tab[T]{}, tab[T]{}, 0
}

// probes returns how many slots walks have looked at since the table was
// made: the work of lookups, inserts, deletes and resizes, which the tests
// count where a clock would depend on the machine.
func (h *Table[T]) probes() int { return h.gone + h.cur.probes + h.old.probes }

// All calls fn for every entry, in no particular order: the order of the
// slots, in the new table and then the old one. Like Lookup, it does not
// advance a resize, so no entry moves during the walk; fn must not insert or delete.
func (h *Table[T]) All(fn func(*T)) {
	for _, t := range h.arrays() {
		for i, tag := range t.tags {
			if tag > tagDeleted {
				fn(t.ents[i])
			}
		}
	}
}

// Warm asks the processor for the memory that lookups of the given hash
// codes will read, all of it at once. It changes nothing but a byte made
// of what it read, which the table keeps so that the compiler keeps the
// reads.
//
// Why: in a large key space each lookup misses the cache three or four
// times in a row (the slot's tag, its pointer, the entry, the key's
// bytes), and each miss waits for the one before it, since it needs the
// address the previous read brought. A pipelined batch of requests does
// those lookups one after another, so the misses of a batch of 16 are 64
// waits end to end. But misses of different keys do not depend on each
// other: read every key's slot first, then every entry, and the processor
// keeps them all in flight together; the batch's lookups then find their
// lines in the cache.
//
// Four rounds, each of reads that do not wait for one another: every
// code's first slot (its tag and its pointer, which sit in different
// arrays); then, in tags and pointers now in the cache, each key's walk to
// its own tag, as find walks; then the entries there, for their keys (key
// returns an entry's key); then each key's first byte. Only the current
// table is looked at: a key still in the old table of a resize is simply
// not warmed.
func (h *Table[T]) Warm(hcodes []uint64, key func(*T) string) {
	t := &h.cur
	if len(t.tags) == 0 {
		return
	}
	var slots [kMaxWarm]int
	var ents [kMaxWarm]*T
	var keys [kMaxWarm]string
	var sum byte
	hcodes = hcodes[:min(len(hcodes), kMaxWarm)]
	for k, hc := range hcodes {
		i := t.home(t.mix(hc))
		slots[k] = i
		sum ^= t.tags[i]
		ents[k] = t.ents[i]
	}
	// The tags and pointers are in the cache now: find each key's slot
	// as find does, without comparing keys.
	for k, hc := range hcodes {
		m := t.mix(hc)
		tag := tagOf(m)
		i := slots[k]
		for n := 0; t.tags[i] != tag && t.tags[i] != tagEmpty && n < kMaxWarmWalk; n++ {
			i = t.after(i)
		}
		ents[k] = nil
		if t.tags[i] == tag {
			ents[k] = t.ents[i]
		}
	}
	for k, ent := range ents[:len(hcodes)] {
		if ent != nil {
			keys[k] = key(ent)
		}
	}
	for _, s := range keys[:len(hcodes)] {
		if len(s) > 0 {
			sum ^= s[0]
		}
	}
	h.warmed ^= sum
}

// kMaxWarm is the most hash codes one Warm looks at: a batch of pipelined
// requests, as clients send them.
const kMaxWarm = 32

// kMaxWarmWalk bounds each of Warm's walks: a cache line of tags. Warm's
// walks are not counted with the lookups' (they only read), so a key whose
// walk is long, in a run of slots crowded by the keys someone chose, must
// not make every look-ahead pay for that run; its lookup still does, and
// is counted.
const kMaxWarmWalk = 64
