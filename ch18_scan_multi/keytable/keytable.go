// Package keytable is the hashtable of chapter 16's key space: open
// addressing with linear probing, and a resize that, like the book's,
// moves entries a few at a time so that no single request pays for it.
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
	// kResizingWork bounds how many slots of the old table one operation
	// looks at, moving the entries it finds to the new one.
	kResizingWork = 128
)

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
// of its walk. Reusing a deleted slot is safe here because the caller has
// made sure the key is absent.
func (t *tab[T]) put(hcode uint64, ent *T) {
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
// both.
type Table[T any] struct {
	hash func(*T) uint64
	cur  tab[T] // every insertion goes here
	old  tab[T] // being emptied into cur; zero when no resize is under way
	next int    // the first slot of old not yet moved
	gone int    // probes of the tables dropped so far: for the tests
}

// New returns an empty table whose entries hash with hash.
func New[T any](hash func(*T) uint64) *Table[T] {
	return &Table[T]{hash: hash}
}

// Len returns the number of entries.
func (h *Table[T]) Len() int { return h.cur.live + h.old.live }

// Lookup returns the entry with hash code hcode that match accepts, or nil.
// match is only called for entries whose tag equals the key's.
func (h *Table[T]) Lookup(hcode uint64, match func(*T) bool) *T {
	h.helpResizing()
	if i := h.cur.find(hcode, match); i >= 0 {
		return h.cur.ents[i]
	}
	if i := h.old.find(hcode, match); i >= 0 {
		return h.old.ents[i]
	}
	return nil
}

// Insert adds ent, whose key has hash code hcode. The key must not be in
// the table already: callers look it up first.
func (h *Table[T]) Insert(hcode uint64, ent *T) {
	if h.cur.tags == nil {
		h.cur = newTab[T](kMinSlots)
	}
	h.helpResizing()
	if h.cur.full() {
		if h.old.tags != nil {
			h.rebuild()
		} else {
			h.startResizing()
		}
	}
	h.cur.put(hcode, ent)
}

// Delete removes the entry with hash code hcode that match accepts and
// returns it, or returns nil if there is none.
func (h *Table[T]) Delete(hcode uint64, match func(*T) bool) *T {
	h.helpResizing()
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

// startResizing makes cur the old table, to be emptied a little at every
// operation, and puts a new table in its place, sized for the entries
// there are: larger after inserts, the same or smaller after deletions.
func (h *Table[T]) startResizing() {
	n := sizeFor(h.cur.live)
	h.old = h.cur
	h.cur = newTab[T](n)
	h.next = 0
}

// rebuild moves every entry of both tables into a new one at once. It is
// the rare case where the new table fills up before the old one is empty:
// a resize started by deletions leaves a small new table and a large, sparse
// old one, and inserts may then fill the new table faster than the walk
// through the old one ends. It costs one pause, and keeps the rule that no
// table is ever more than three quarters full.
func (h *Table[T]) rebuild() {
	t := newTab[T](sizeFor(h.Len()))
	for _, from := range []*tab[T]{&h.cur, &h.old} {
		for i, tag := range from.tags {
			if tag > tagDeleted {
				ent := from.ents[i]
				t.put(h.hash(ent), ent)
			}
		}
	}
	h.gone += h.cur.probes + h.old.probes
	h.cur, h.old, h.next = t, tab[T]{}, 0
}

// helpResizing moves the entries of a bounded number of old's slots to cur,
// and drops old once every slot has been seen. A moved slot is marked
// deleted, not emptied, so that walks through old stay intact meanwhile.
func (h *Table[T]) helpResizing() {
	if h.old.tags == nil {
		return
	}
	end := min(h.next+kResizingWork, len(h.old.tags))
	for i := h.next; i < end; i++ {
		if h.old.tags[i] > tagDeleted {
			if h.cur.full() {
				h.rebuild()
				return
			}
			ent := h.old.remove(i)
			h.cur.put(h.hash(ent), ent)
		}
	}
	h.next = end
	if h.next == len(h.old.tags) {
		h.gone += h.old.probes
		h.old = tab[T]{}
	}
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
// slots, in the new table and then the old one. It does not advance a
// resize, so no entry moves during the walk; fn must not insert or delete.
func (h *Table[T]) All(fn func(*T)) {
	for _, t := range []*tab[T]{&h.cur, &h.old} {
		for i, tag := range t.tags {
			if tag > tagDeleted {
				fn(t.ents[i])
			}
		}
	}
}
