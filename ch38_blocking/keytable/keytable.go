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
// share a slot.
//
// Both arrays of a table (the new one and the old one while a resize is
// under way) mix the hash codes with the same salt, and so does every
// array after them, so a key keeps its place in the hash's range from one
// array to the next: that is what lets Scan hand out a cursor that
// survives resizes. It also means a listing of the keys (Scan's order, or
// All's) shows a client the order of the hash, and lets it choose the keys
// it keeps: those in one narrow stretch of the range, deleting the rest.
// Every new array is sized for the number of keys, not for that stretch,
// and crowds them into one long run of slots, walked by every put into
// it: quadratic. So the table adds up the walks of the puts into its
// current array (inserts, and moves during a resize), and once they pass
// what a random key set practically never makes them walk (see kPutWalk),
// it takes a new salt: a new array mixing with it, into which every entry
// moves as in a resize, a bounded share at a time (see resalt). The keys
// are spread again, whatever order they were chosen in, and no request
// pays for more than its share of the move (rebuilding the table at once
// held one request 0.2 s at 300,000 keys and 3 s at 3,000,000). The moves
// come at most once per O(n) of the client's requests: to crowd the keys
// again it must learn the new order and choose its keys all over. The
// epoch counts the salts, and Scan's cursors carry it (see Scan).
//
// The puts' bound leaves slack, though: ordinary puts walk less than
// kPutWalk, and what they leave unspent pays for one long run built
// afterwards and kept just under the bound, for good. Puts into it are
// few, but every lookup of a key homed at its start walks all of it. So
// the table weighs finds too (lookups, and the find of a delete), in
// windows of kFindWindow finds, each counted afresh so that what a long
// quiet stretch leaves unspent cannot be spent later: a window whose
// finds walked more than kFindWalk slots on average ends with a new salt.
// In every window that keeps the salt, then, a client's finds cost at
// most kFindWalk slots each on average, against 1.5 to 8.5 for random
// keys; the one window that passes it scatters the run, and to walk it
// again the client must build it again, a put at a time.
package keytable

import (
	"cmp"
	"hash/maphash"
	"math/rand/v2"
	"slices"
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
	// kInsertMoves is how many slots of the old arrays every insert looks
	// at while a resize is under way, moving the entries it finds to the
	// new one. Inserts are what fill the new array, so they are what must
	// empty the old ones in time: a resize sizes the new array so that the
	// inserts can never fill it first (see newSizeFor). Lookups and
	// deletes move nothing, and stay a find in each array.
	kInsertMoves = 16
	// kPutWalk and kPutWalkSlack bound the walks of the puts into one
	// array (see crowded): past kPutWalk slots per put on average, plus
	// kPutWalkSlack, the table takes a new salt.
	//
	// With linear probing at a load a, an insert walks 1/2(1+1/(1-a)^2)
	// slots on average (Knuth): 2.5 into a half-full table, 8.5 into one
	// three quarters full, where it resizes again. Averaged over the
	// inserts that fill a new table from empty, that is 1.5 up to half full
	// and 2.5 up to three quarters. A sum over many inserts stays close to
	// its mean, and over a few the slack covers it: for one walk to pass k
	// slots the k slots after its home must all be taken, a chance of
	// about e^(-k(a-1-ln a)) (the Chernoff bound for more than k keys
	// hashing into k slots), 10^-43 for k = 512 at a half, 10^-7 at three
	// quarters. A put may also take a slot marked deleted, which ends its
	// walk as an empty one would, so walks see at most the live entries,
	// never more than three quarters of the slots. A false alarm only
	// costs the moves of a resize, and a restart of the scans under way.
	//
	// Keys chosen in one stretch of the hash's range (or left there by
	// ordered deletes) fill their stretch of the array to a load of 1 or
	// more: each walk grows with the number of keys before it, and the
	// sum passes the bound after a few hundred.
	kPutWalk      = 4
	kPutWalkSlack = 512
	// kFindWindow and kFindWalk bound the walks of finds (see weighFind):
	// past kFindWalk slots a find on average over a window of kFindWindow
	// finds, the table takes a new salt.
	//
	// At a load a a find walks 1/2(1+1/(1-a)) slots on average for a key
	// that is there and 1/2(1+1/(1-a)^2) for one that is not (Knuth): 1.5
	// and 2.5 half full, 2.5 and 8.5 three quarters full. During a resize a
	// miss walks both arrays, 17 at worst. The mean of a thousand walks
	// stays close to that; what passes 32 is a key set that crowds, or a
	// few keys looked up again and again that happen to sit in one of the
	// long runs a large table has by chance: that false alarm costs the
	// moves of a resize and a restart of the scans under way, and leaves
	// those keys somewhere else at random, in a table half full.
	kFindWindow = 1024
	kFindWalk   = 32
	// kReuseLive is how many slots puts may have filled in the new array
	// of a resize for a change of salt to reuse it rather than allocate
	// another (see reuseCur). A turn of 64 requests moves some 17,000
	// slots of a resize (kInsertMoves and StepWork each), holding 9,000
	// entries: a crowded stretch shows within about that. Putting 16,384
	// entries again costs less than a turn's work (kMaxTurnWork in the
	// server), once per change of salt.
	kReuseLive = 1 << 14
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
	probes  int    // slots looked at by walks (find, put): for the tests and weighFind
	puts    int    // entries put here, and the slots their walks looked at:
	putWalk int    // for crowded
	stuck   bool   // crowded under a new salt: no other salt would help
	// filled lists the slots puts have filled, while there are at most
	// kReuseLive, in the new array of a resize (nil otherwise): the
	// only slots not empty, for reuseCur.
	filled []int32
}

func newTab[T any](n int, salt uint64) tab[T] {
	return tab[T]{tags: make([]uint8, n), ents: make([]*T, n), salt: salt}
}

// home returns the slot where the walk for mixed hash m starts: the top 32
// bits of m, read as a fraction of 2^32, scaled to the table's length
// (multiply, keep the high half). Unlike masking the low bits, this works
// for any length, not only powers of two, so the table can grow by half
// rather than double, which keeps it fuller (see sizeFor).
func (t *tab[T]) home(m uint64) int {
	return int((m >> 32) * uint64(len(t.tags)) >> 32)
}

// mix spreads a hash code over 64 bits: it adds the table's salt and
// scrambles the sum (the finalizer of the SplitMix64 generator: every bit
// of the input affects every bit of the result). The top bits pick the
// slot (see home) and the tag comes from bits further down, so both depend
// on every bit of the code, whatever hash the caller uses. Hash is seeded
// already; the salt is also for callers with a public hash function of
// their own (the tests use the book's). Every array of a Table has its
// salt: the package doc says why, and what that costs.
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
	if t.filled != nil {
		if len(t.filled) < cap(t.filled) {
			t.filled = append(t.filled, int32(i))
		} else {
			t.filled = nil // too many to reuse the array for a new salt
		}
	}
	t.tags[i] = tagOf(m)
	t.ents[i] = ent
	t.live++
	t.puts++
	t.putWalk += n
	return n
}

// crowded reports whether the entries put in t walked much further than a
// random key set would (see kPutWalk), unless t is stuck.
func (t *tab[T]) crowded() bool {
	return !t.stuck && t.putWalk > kPutWalk*t.puts+kPutWalkSlack
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
// While a resize is under way the entries are spread over the new array
// and the old one being emptied into it (two old ones, if a new salt was
// taken in the middle of a resize), and a lookup consults each. The old
// ones are emptied a few slots at every insert (kInsertMoves) and by
// Step, which the caller runs once per request with a budget: no request
// pays for a whole resize, nor for more than it is charged.
type Table[T any] struct {
	hash   func(*T) uint64
	weight func(*T) int // what hashing an entry's key costs; nil: nothing
	cur    tab[T]       // every insertion goes here
	// olds are being emptied into cur, the first one from slot next on;
	// none when no resize is under way.
	olds  []*tab[T]
	next  int
	work  int // work of the resizes since the last Step, which returns it
	moved int // slots of old arrays looked at by resizes: for the tests
	gone  int // probes of the arrays dropped so far: for the tests
	// salt is every new array's, and epoch counts its changes (mod 2^32,
	// as Scan's cursors carry it, skipping 0).
	salt  uint64
	epoch uint32
	// finds counts the finds of the current window, and findWalk the slots
	// they looked at (see weighFind).
	finds, findWalk int
	// found and group are Scan's, kept for the next call.
	found []placed[T]
	group []*T
	// filled is the array a resize's new array lists its filled slots in
	// (tab.filled), kept for the next resize.
	filled []int32
	// warmed is what Warm read, kept so that its reads are kept.
	warmed byte
}

// New returns an empty table whose entries hash with hash. weight, if not
// nil, is the work of hashing an entry's key, in the caller's units beyond
// the one every slot looked at costs (a server counts the key's bytes,
// since hashing a long key costs more than a short one); see Step and
// Scan.
func New[T any](hash func(*T) uint64, weight func(*T) int) *Table[T] {
	return &Table[T]{hash: hash, weight: weight, salt: rand.Uint64()}
}

// Len returns the number of entries.
func (h *Table[T]) Len() int {
	n := h.cur.live
	for _, t := range h.olds {
		n += t.live
	}
	return n
}

// Lookup returns the entry with hash code hcode that match accepts, or nil.
// match is only called for entries whose tag equals the key's. It moves
// nothing: a request of many lookups (MGET) costs its lookups.
func (h *Table[T]) Lookup(hcode uint64, match func(*T) bool) *T {
	before := h.probes()
	ent := h.lookup(hcode, match)
	h.weighFind(h.probes() - before)
	return ent
}

// lookup is Lookup's find, in every array.
func (h *Table[T]) lookup(hcode uint64, match func(*T) bool) *T {
	if i := h.cur.find(hcode, match); i >= 0 {
		return h.cur.ents[i]
	}
	for _, t := range h.olds {
		if i := t.find(hcode, match); i >= 0 {
			return t.ents[i]
		}
	}
	return nil
}

// Insert adds ent, whose key has hash code hcode. The key must not be in
// the table already: callers look it up first. While a resize is under
// way it first moves kInsertMoves slots of it, counted for Step to report.
func (h *Table[T]) Insert(hcode uint64, ent *T) {
	if h.cur.tags == nil {
		h.cur = newTab[T](kMinSlots, h.salt)
	}
	h.work += h.moveSlots(kInsertMoves)
	if h.cur.full() {
		if h.resizing() {
			h.rebuild() // never, with newSizeFor: a guard
		} else {
			h.startResizing()
		}
	}
	h.putCur(hcode, ent)
}

// Delete removes the entry with hash code hcode that match accepts and
// returns it, or returns nil if there is none.
func (h *Table[T]) Delete(hcode uint64, match func(*T) bool) *T {
	before := h.probes()
	ent := h.delete(hcode, match)
	h.weighFind(h.probes() - before)
	return ent
}

// delete is Delete's find and removal.
func (h *Table[T]) delete(hcode uint64, match func(*T) bool) *T {
	if i := h.cur.find(hcode, match); i >= 0 {
		ent := h.cur.remove(i)
		// Deleted marks lengthen every walk that crosses them; when they
		// fill a quarter of the table, a resize (to the same size, or a
		// smaller one) sweeps them away.
		if h.cur.deleted*4 > len(h.cur.tags) && !h.resizing() {
			h.startResizing()
		}
		return ent
	}
	for _, t := range h.olds {
		if i := t.find(hcode, match); i >= 0 {
			return t.remove(i)
		}
	}
	return nil
}

// Step moves a resize under way along by about budget units of work (the
// slot it ends on may take it past), and returns the work resizes have
// done since the last Step: its own and the inserts' in between. A unit
// is a slot of an old array looked at; an entry moved adds the slots its
// put looks at in the new one and its weight (see New). A server calls
// Step once per request and counts what it returns as that request's
// work: a resize is then paid for a bounded share at a time, by the
// requests that happen to follow it, and a table that only answers
// lookups still finishes its resizes. Step also starts the shrink of a
// table that deletes left sparse (see kSparseFill), which no insert would
// start. Step(0) only returns the work.
func (h *Table[T]) Step(budget int) int {
	if budget > 0 && !h.resizing() {
		if sparse, _ := h.sparse(); sparse {
			h.startResizing()
		}
	}
	h.work += h.moveWork(budget)
	work := h.work
	h.work = 0
	return work
}

// kSparseFill is the fill below which Step and Compact shrink a table:
// fewer than one slot in kSparseFill holding an entry. Deletes leave a
// table as large as it grew (a resize sweeps away their marks, but sizes
// the new array by the slots to empty too, see newSizeFor), and what
// walks the table's order rather than finding keys, a random pick, then
// walks mostly empty slots. Redis shrinks its tables below a tenth full
// too. A quarter would be too close to what a resize can leave: newSizeFor
// may size a change of salt's array for four slots a key.
const kSparseFill = 10

// sparse reports whether the table's arrays together are larger than its
// entries need by more than kSparseFill times, and returns their slots.
func (h *Table[T]) sparse() (bool, int) {
	slots := len(h.cur.tags)
	for _, t := range h.olds {
		slots += len(t.tags)
	}
	return slots > kMinSlots && h.Len()*kSparseFill < slots, slots
}

// CompactWork returns a bound on the work Compact would do now: none
// unless the table is sparse; else the slots of its arrays and of the
// shrinks' old arrays (each at most a twelfth of the one before, so
// together at most 1.1 times the first), and the moves of the entries,
// each put and its weight, once per shrink.
func (h *Table[T]) CompactWork() int {
	sparse, slots := h.sparse()
	if !sparse {
		return 0
	}
	return slots + slots/8 + 64*h.Len()
}

// Compact shrinks a table that deletes have left sparse until it is not,
// at once, finishing the resize under way first, and returns the work
// (as Step counts it). A growing table is never sparse, so Compact never
// speeds up a growth the caller did not ask for. The caller is one that
// would otherwise walk the empty slots, again and again: the shrink looks
// at each of them once, and the next walks find entries close together.
func (h *Table[T]) Compact() int {
	work := 0
	for sparse, _ := h.sparse(); sparse; sparse, _ = h.sparse() {
		if !h.resizing() {
			h.startResizing()
		}
		for h.resizing() {
			work += h.moveSlots(len(h.olds[0].tags) - h.next)
		}
	}
	return work
}

// moveWork moves a resize along by about budget units of work, and
// returns the work.
func (h *Table[T]) moveWork(budget int) int {
	own := 0
	for h.resizing() && own < budget {
		own += h.moveSlots(1)
	}
	return own
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

// newSizeFor returns the size of the new array of a resize from arrays of
// n slots (those not yet looked at) holding live entries: sizeFor(live),
// unless the inserts that empty the old arrays, kInsertMoves slots each,
// could fill that before they are done. Then it is as large as the moved
// entries and those inserts need, which bounds how far one resize shrinks
// a table (to about a twelfth of its slots; the next resize shrinks it
// again). A growing table never needs more: it is at least half full when
// it resizes, so its n slots take 2*live/kInsertMoves inserts to empty,
// fewer than the half of live that sizeFor leaves room for.
func newSizeFor(live, n int) int {
	inserts := (n+kInsertMoves-1)/kInsertMoves + 1
	return max(sizeFor(live), (4*(live+inserts)+2)/3+1)
}

// startResizing makes cur the old array, to be emptied a little at every
// insert and Step, and puts a new one in its place, with the same salt,
// sized for the entries there are: larger after inserts, the same or
// smaller after deletions (see newSizeFor).
func (h *Table[T]) startResizing() {
	n := newSizeFor(h.cur.live, len(h.cur.tags))
	old := h.cur
	h.olds = []*tab[T]{&old}
	h.cur = newTab[T](n, h.salt)
	h.next = 0
	if h.filled == nil {
		h.filled = make([]int32, 0, kReuseLive)
	}
	h.cur.filled = h.filled[:0]
}

// resalt takes a new salt (see the package doc): cur joins the old arrays
// (after the one a resize under way is emptying, if any), and a new array
// mixing with the new salt takes their entries, moved in bounded steps as
// in any resize: the change of salt costs no request more than a resize
// does. The epoch moves on at once. While the old arrays are emptied the
// entries are under two salts, in no one order, and Scan walks nothing:
// it moves the change along instead, and hands out a cursor of the new
// epoch, which starts the walk once the change is done (see Scan). A
// resize that has only begun lends its new array instead (see reuseCur):
// the change of salt then allocates nothing.
//
// If the entries crowd the new array too, their hash codes themselves are
// alike, which no salt separates: the array is marked stuck rather than
// given salt after salt (see putCur).
func (h *Table[T]) resalt() {
	h.salt = rand.Uint64()
	if h.epoch++; h.epoch == 0 {
		h.epoch = 1 // 0 would make a new scan's cursor 0, which means done
	}
	if h.resizing() && len(h.olds) == 1 && h.olds[0].salt == h.cur.salt && h.cur.filled != nil {
		h.reuseCur()
		h.finds, h.findWalk = 0, 0
		return
	}
	old := h.cur
	h.olds = append(h.olds, &old)
	n := len(h.olds[0].tags) - h.next
	for _, t := range h.olds[1:] {
		n += len(t.tags)
	}
	h.cur = newTab[T](newSizeFor(h.Len(), n), h.salt)
	h.finds, h.findWalk = 0, 0
}

// reuseCur gives the new salt to cur, the new array of a resize that
// has only begun (its puts have filled at most kReuseLive slots, which
// it lists), instead of allocating another array beside it: its entries
// are taken out and put back under the new salt, and the resize goes on
// from where it was, now a change of salt. A client who crowds a stretch
// of the hash's order makes the first moves of a resize walk far (the
// resize moves the slots in order, and with them the crowded stretch at
// once), so the change of salt follows the resize's start closely, often
// in the same request; a second new array there doubled the memory
// allocated in one request (two arrays of 19 MB at 1,000,000 keys), and
// the second, allocated while the collection the first one started was
// under way, was paid for by the event loop in mark assists (about 28
// ms). This costs a look at each listed slot and a put per entry, at
// most kReuseLive of each whatever the table's size: less than zeroing
// a new array.
func (h *Table[T]) reuseCur() {
	t := &h.cur
	ents := h.group[:0]
	for _, i := range t.filled {
		if t.tags[i] > tagDeleted {
			ents = append(ents, t.ents[i])
			t.ents[i] = nil
		}
		t.tags[i] = tagEmpty
	}
	h.work += len(t.filled)
	h.gone += t.probes
	*t = tab[T]{tags: t.tags, ents: t.ents, salt: h.salt}
	for _, ent := range ents {
		h.work += t.put(h.hash(ent), ent) + h.weigh(ent)
	}
	clear(ents) // keep no entry alive
	h.group = ents[:0]
}

// migrating reports whether a change of salt is under way: old arrays
// whose salt is not cur's.
func (h *Table[T]) migrating() bool {
	return h.resizing() && h.olds[0].salt != h.cur.salt
}

// rebuild moves every entry of every array into a new one at once, and
// counts the work for Step. It would be needed if inserts filled the new
// array before they had emptied the old ones; newSizeFor sizes the new
// array so that they cannot (TestShrinkThenInsert tries the worst case),
// and this keeps the rule that no array is ever more than three quarters
// full if that reasoning were ever wrong.
func (h *Table[T]) rebuild() {
	t := newTab[T](sizeFor(h.Len()), h.salt)
	for _, from := range h.arrays() {
		for i, tag := range from.tags {
			h.work++
			if tag > tagDeleted {
				ent := from.ents[i]
				h.work += t.put(h.hash(ent), ent) + h.weigh(ent)
			}
		}
		h.gone += from.probes
	}
	for i, o := range h.olds {
		h.moved += len(o.tags)
		if i == 0 {
			h.moved -= h.next
		}
	}
	h.cur, h.olds, h.next = t, nil, 0
}

// putCur puts an entry in cur, and takes a new salt if the walks of the
// puts into cur show the keys crowded (see the package doc), or marks cur
// stuck if it has a new salt already. It returns the slots the put looked
// at, and whether it took a new salt.
func (h *Table[T]) putCur(hcode uint64, ent *T) (int, bool) {
	walk := h.cur.put(hcode, ent)
	if !h.cur.crowded() {
		return walk, false
	}
	if h.migrating() {
		h.cur.stuck = true
		return walk, false
	}
	h.resalt()
	return walk, true
}

// weighFind counts a find (of a Lookup or a Delete, once it is done with
// the slot it found) that looked at walk slots. At the end of each window
// of kFindWindow finds it takes a new salt if they walked more than
// kFindWalk slots on average (see the package doc), unless cur is stuck
// (no salt would spread the keys, and changing it would only cost). While
// a change of salt is under way finds are not weighed: they walk the old
// arrays it is emptying, and the next window starts once it is done.
func (h *Table[T]) weighFind(walk int) {
	if h.migrating() {
		h.finds, h.findWalk = 0, 0 // the next window starts after the move
		return
	}
	h.finds++
	h.findWalk += walk
	if h.finds < kFindWindow {
		return
	}
	if h.findWalk > kFindWindow*kFindWalk && !h.cur.stuck && !h.migrating() {
		h.resalt()
	}
	h.finds, h.findWalk = 0, 0
}

// moveSlots looks at the next n slots of the old arrays (fewer if they
// end first), moving the entries it finds to cur, drops each old array
// once every slot of it has been seen, and returns the work done (see
// Step). A moved slot is marked deleted, not emptied, so that walks
// through the old array stay intact meanwhile. A move may take a new salt
// (see putCur): cur then joins the old arrays, after the one being
// emptied, which goes on.
func (h *Table[T]) moveSlots(n int) int {
	work := 0
	for ; n > 0 && h.resizing(); n-- {
		old := h.olds[0]
		i := h.next
		h.next++
		h.moved++
		work++
		if old.tags[i] > tagDeleted {
			ent := old.remove(i)
			walk, _ := h.putCur(h.hash(ent), ent)
			work += walk + h.weigh(ent)
		}
		if h.next == len(old.tags) {
			h.gone += old.probes
			h.olds, h.next = h.olds[1:], 0
			if len(h.olds) == 0 {
				h.olds = nil
				h.cur.filled = nil // only a resize lends its new array
			}
		}
	}
	return work
}

// resizing reports whether a resize is under way.
func (h *Table[T]) resizing() bool { return len(h.olds) > 0 }

// arrays returns the arrays that hold entries: cur, then the old ones.
func (h *Table[T]) arrays() []*tab[T] { return append([]*tab[T]{&h.cur}, h.olds...) }

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
	for _, t := range h.arrays() {
		h.gone += t.probes
	}
	h.cur, h.olds, h.next = tab[T]{}, nil, 0
}

// probes returns how many slots walks have looked at since the table was
// made: the work of lookups, inserts, deletes and resizes, which the tests
// count where a clock would depend on the machine. Lookup and Delete weigh
// their finds with it.
func (h *Table[T]) probes() int {
	n := h.gone + h.cur.probes
	for _, t := range h.olds {
		n += t.probes
	}
	return n
}

// All calls fn for every entry, in no particular order: the order of the
// slots, in the new array and then the old ones. Like Lookup, it does not
// advance a resize, so no entry moves during the walk; fn must not insert
// or delete.
func (h *Table[T]) All(fn func(*T)) {
	for _, t := range h.arrays() {
		for i, tag := range t.tags {
			if tag > tagDeleted {
				fn(t.ents[i])
			}
		}
	}
}

// placed is an entry Scan found, with its place in the hash's range.
type placed[T any] struct {
	place uint32
	ent   *T
}

// Scan calls fn for the entries of one stretch of the hash's range, the
// one that starts at cursor, and returns where the next one starts: a
// cursor for the next call, or 0 once the range is covered. Start with 0.
//
// A cursor holds, in its low 32 bits, a place in the range of the top 32
// bits of the mixed hash codes, and in its top 32 bits the epoch it was
// made in (see the package doc). Within an epoch every array mixes alike
// (see mix): a key's place never changes, so the stretches of the
// successive calls divide the range between them whatever happens in
// between. A key present from the first call to the last is visited
// exactly once; a key inserted or deleted meanwhile is visited at most
// once. That is better than Redis's SCAN, which visits each such key at
// least once and may visit it again after a resize: its cursor counts
// buckets, whose number changes.
//
// A cursor of another epoch (the table took a new salt since the scan
// began, which scatters the keys' places) starts the walk over, from the
// start of the range in the current epoch, as cursor 0 does. A key
// present throughout is still visited, in the new pass, but may have been
// visited before the change too: at least once, as Redis promises. A
// client that chooses its keys by their order makes the table change its
// salt; otherwise it changes only on the rare false alarm kFindWalk
// describes, and exactly once holds.
//
// While the entries move to the array of a new salt (see resalt), they
// are under two salts, and no stretch of either order can be walked
// without walking every array whole. So Scan walks nothing then: it moves
// the change along by budget, as Step does, and returns the cursor that
// starts the new epoch's walk (not 0: the epoch is never 0 then) and no
// entries. The next calls go on with the change until it is done, and
// then walk. The key space's entries move once per change, however many
// scans wait, and a scan waits for at most what one resize takes.
//
// With one, a scan still ends unless it is much slower than that client.
// After each new salt the client must learn the new order and fill a
// stretch of an array from half full to full: whatever the stretch's
// width, that is about Len keys inserted, and most of them deleted again
// (some 0.7 to 1 Len inserts per salt, measured), while a whole
// pass takes about Len/count calls of Scan. The server serves its clients
// in turn, each turn bounded, so a scan whose calls see count keys while
// the other client's requests insert fewer in the same turns ends.
//
// The stretch covers count slots of the larger array, so the calls take
// about Len/count steps. Work is the slots looked at, in every array,
// plus the weight of each entry whose key is hashed (every entry in the
// slots walked, whether in the stretch or not: its place is its hash's).
// Once the work passes budget the walk ends early, and the stretch is cut
// short at the last empty slot it saw: there the entries of every place
// before it have been seen (see scanTab). The walk passes budget by one
// entry's weight, and by a run of slots at the start of the stretch if
// it has to walk that to find an empty slot.
//
// fn is then called with the entries of the stretch, in the order of
// their places, those of one place together (almost always one entry;
// keys whose hash codes are alike share it): it returns false to end the
// call before them, which makes their place the next cursor. It should
// take the first group, whatever its size, else the call returns its own
// cursor. Like All, Scan does not advance a resize (but the change of
// salt above), and fn must not insert or delete. Any cursor is safe: each
// is an epoch and a place.
func (h *Table[T]) Scan(cursor uint64, count, budget int, fn func([]*T) bool) (next uint64, work int) {
	if h.migrating() {
		return uint64(h.epoch) << 32, h.moveWork(budget)
	}
	big, small := &h.cur, (*tab[T])(nil)
	if h.resizing() {
		small = h.olds[0] // one old array, with cur's salt
		if len(small.tags) > len(big.tags) {
			big, small = small, big
		}
	}
	n := uint64(len(big.tags))
	if n == 0 {
		return 0, 0
	}
	// exercise: ch25-scan-cursor
	if uint32(cursor>>32) != h.epoch {
		cursor = 0 // another epoch's place: start over
	}
	lo := cursor & (1<<32 - 1)
	// The stretch ends where slot home(lo)+count of the larger array
	// starts: the first place p with p*n >= slot*2^32 (see home).
	hi := uint64(1 << 32)
	if end := lo*n>>32 + uint64(max(count, 1)); end < n {
		hi = (end<<32 + n - 1) / n
	}
	var w int
	hi, work = h.scanTab(big, lo, hi, budget)
	if small != nil {
		hi, w = h.scanTab(small, lo, hi, budget-work)
		work += w
	}
	next = hi
	slices.SortFunc(h.found, func(a, b placed[T]) int { return cmp.Compare(a.place, b.place) })
	for i := 0; i < len(h.found); {
		p := h.found[i].place
		if uint64(p) >= hi {
			break
		}
		h.group = h.group[:0]
		for ; i < len(h.found) && h.found[i].place == p; i++ {
			h.group = append(h.group, h.found[i].ent)
		}
		if !fn(h.group) {
			next = uint64(p)
			break
		}
	}
	// end exercise: ch25-scan-cursor
	clear(h.found) // keep no entry alive
	clear(h.group)
	h.found, h.group = h.found[:0], h.group[:0]
	if next == 1<<32 {
		return 0, work
	}
	// next > 0 (or the cursor's own place, if fn took nothing), so a
	// cursor of epoch 0 is never 0 before the walk is done.
	return uint64(h.epoch)<<32 | next, work
}

// scanTab adds to h.found the entries of t whose place (the top 32 bits
// of the mixed hash) is in [lo, hi), and returns where the stretch ended
// (hi, or less if its work passed budget) and the work. Their homes are
// the slots from home(lo) to home(hi-1), and each sits between its home
// and the first empty slot after it: so the walk goes from home(lo) to the
// first empty slot at or past home(hi-1), around the end of the array if
// it must, and no further than once around. The slots of the entries a
// resize moved are marked deleted, not empty, so walks through the old
// array stay whole.
//
// Past its budget the walk stops, and cuts the stretch short at the last
// empty slot e it saw: every entry homed before e sits before it, and has
// been seen; those are the entries whose place is below e's first place,
// which is where the stretch now ends. Entries seen past e have their
// places past that, and wait for the next call. Without such a slot yet,
// the walk goes on to the first one: a run of slots at the stretch's
// start (none, when the stretch starts where the last call's was cut).
func (h *Table[T]) scanTab(t *tab[T], lo, hi uint64, budget int) (end uint64, work int) {
	// exercise: ch25-scan-cursor
	n := len(t.tags)
	if n == 0 {
		return hi, 0
	}
	first := t.home(lo << 32)
	span := t.home((hi-1)<<32) - first // slots before the last home
	i, k, cut := first, 0, -1
	for ; k < n && (k <= span || t.tags[i] != tagEmpty); i, k = t.after(i), k+1 {
		if cut >= 0 && work+k >= budget {
			return (uint64(cut)<<32 + uint64(n) - 1) / uint64(n), work + k
		}
		switch {
		case t.tags[i] > tagDeleted:
			ent := t.ents[i]
			work += h.weigh(ent)
			if p := t.mix(h.hash(ent)) >> 32; lo <= p && p < hi {
				h.found = append(h.found, placed[T]{uint32(p), ent})
			}
		case t.tags[i] == tagEmpty && k > 0 && k <= span:
			cut = i // first+k: no wrap, since homes grow with places
		}
	}
	return hi, work + k
	// end exercise: ch25-scan-cursor
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
