// Package hashes is the server's hash value: a map of field names to string
// values in which any field may carry its own expiry time, as in Redis 7.4+
// and Valkey (HSET, HGET, HDEL, HLEN, HEXISTS, HGETALL, HEXPIRE and its
// variants, HPERSIST, HTTL, HEXPIRETIME, HSETEX, HGETEX), which HSCAN can
// walk and HRANDFIELD pick from.
//
// # Structure
//
// Every field is one allocation holding a hashtable.HNode, so the fields
// form the book's chaining hashtable, placed by a seeded hash of their names
// (hashtable.Hash) so that no client can choose names that share a chain. A
// field that has an expiry (a "volatile" field) is also in a per-hash
// min-heap of expiry times, the book's heap with back-indices: the heap item
// carries the expiry and points at the field, and the field keeps the item's
// position. The expiry time is stored once, in the heap item. A field
// without an expiry is in the hashtable only and costs nothing extra: its
// heap index fits in padding the allocator rounds every field up to anyway.
//
// The heap gives the earliest expiry in O(1) (NextExpiry) and reclaims the
// next expired field in O(log v) for v volatile fields, never looking at the
// others. The server keeps one timer per hash, keyed by NextExpiry, in a
// global heap: active expiry never visits a hash without volatile fields.
//
// Every field also has a place in a dense array (Hash.order), and keeps its
// index there, as the heap's items keep theirs. The array is what HSCAN's
// cursor and HRANDFIELD's picks are made of; the hashtable cannot serve
// either. Its buckets are no order a cursor could keep: every table a resize
// makes takes a new salt (see package hashtable), so a field's bucket in the
// next table says nothing of its bucket in this one. And a random bucket is
// no fair pick: tables never shrink, so a hash that once held a million
// fields and holds one now has a million empty places to try. In the array
// a pick is one random index, and a walk downward from the top, the cursor
// being the next index, sees every field present from its first call to
// its last at least once, whatever is added or deleted meanwhile (see
// Scan). That costs a field 24 to 32 bytes: 16 for the index, which takes
// the field from Go's 64-byte size class to the 80-byte one, and the
// array's slot with the slack of a growing slice.
//
// # Time
//
// Times are unix milliseconds, as the commands take absolute times
// (HPEXPIREAT, HSETEX PXAT). The package reads no clock: an operation that
// can see expiry takes now, so that tests are reproducible and a command
// uses one timestamp throughout. As in Redis, a field expiring at t is alive
// while now <= t, and setting an expiry at or before now deletes the field
// at once; the two rules meet only when the clock moves on.
//
// # Expiry
//
// Every operation treats expired fields as absent. One that names a field
// reclaims it then if it has expired (lazy expiry, O(log v)); ExpireSome
// reclaims the earliest expired fields within a bound the caller sets
// (active expiry). Len and GetAll, which cover the whole hash, only skip
// expired fields, so that no command pays for an unbounded backlog.
package hashes

import (
	"example.com/byor/ch38_blocking/hashtable"
	"example.com/byor/ch38_blocking/heap"
)

// Per-field reply codes of the expiry commands, the same integers Redis and
// Valkey send.
const (
	NoField = -2 // HEXPIRE*, HPERSIST, HTTL*, HEXPIRETIME*: no such field
	NoTTL   = -1 // HPERSIST, HTTL*, HEXPIRETIME*: the field has no expiry
	NotMet  = 0  // HEXPIRE*: the NX, XX, GT or LT condition was not met
	OK      = 1  // HEXPIRE*: the expiry was set; HPERSIST: it was removed
	Deleted = 2  // HEXPIRE*: the time was not in the future, so the field was deleted
)

// Cond is the condition option of the HEXPIRE family.
type Cond uint8

// The conditions. For GT and LT a field without an expiry counts as never
// expiring, so GT never holds for it and LT always does.
const (
	Always Cond = iota // no option: always set the expiry
	NX                 // only if the field has no expiry
	XX                 // only if the field has an expiry
	GT                 // only if the new time is later than the current one
	LT                 // only if the new time is earlier than the current one
)

// field is one field of a hash. Its size is 56 bytes without heapIdx and
// pos, 64 with heapIdx alone and 72 with both; Go allocates the first two in
// the 64-byte size class, which is why fields without an expiry pay nothing
// for being able to have one, and the last in the 80-byte one (see the
// package doc for what pos buys).
type field struct {
	node    hashtable.HNode[field]
	name    string
	value   string
	heapIdx int // position of this field's item in Hash.ttls; -1 without an expiry
	pos     int // position of this field in Hash.order
}

// heapIdxOf tells the heap where a field keeps its position.
func heapIdxOf(f *field) *int { return &f.heapIdx }

// Pair is one live field and its value, as HGETALL returns them.
type Pair struct {
	Name, Value string
}

// Hash is a hash value. The zero value is an empty hash ready to use.
type Hash struct {
	fields hashtable.HMap[field]  // name -> field, every stored field
	ttls   []heap.HeapItem[field] // the volatile fields, earliest expiry at index 0
	order  []*field               // every stored field, each at its pos, in no set order
	// nExpired is the number of items in ttls whose time is before
	// nExpiredAt, kept exact by every change to ttls (see countBefore), so
	// that countExpired need not walk the heap again for the same now.
	// nExpiredAt is 0 when nothing has been counted yet.
	nExpiredAt uint64
	nExpired   int
}

// minShrinkCap is the heap capacity below which the heap is never
// reallocated smaller: tiny slices are not worth copying.
const minShrinkCap = 64

// eqName is the hashtable's equality for lookups by name: the hash first,
// as it is cheap and rejects almost every non-match.
func eqName(a, b *hashtable.HNode[field]) bool {
	return a.HCode == b.HCode && a.Owner.name == b.Owner.name
}

// sameNode is the equality for removing a field already in hand, as the
// book's server pops an expired entry by identity.
func sameNode(a, b *hashtable.HNode[field]) bool {
	return a == b
}

// Expired counts the fields that every Hash has removed because their
// expiry had come: found expired when named, reclaimed by ExpireSome, or
// given a time not in the future (Valkey counts those as expired too).
// The server reports it as INFO's expired_fields; one event loop updates
// it, so it is a plain integer.
var Expired int64

// lookup returns the stored field called name, expired or not, or nil. Its
// search key, a bare field with the name and hash, escapes to Go's heap
// through the function value eqName is passed as: one 64-byte allocation a
// lookup, where the book's C++ builds its key on the stack.
func (h *Hash) lookup(name string) *field {
	key := field{name: name}
	key.node.HCode = hashtable.Hash(name)
	key.node.Owner = &key
	if node := h.fields.Lookup(&key.node, eqName); node != nil {
		return node.Owner
	}
	return nil
}

// expired reports whether f has an expiry and now is past it.
func (h *Hash) expired(f *field, now uint64) bool {
	return f.heapIdx >= 0 && h.ttls[f.heapIdx].Val < now
}

// live returns the field called name if it exists and has not expired. An
// expired field is reclaimed here, so that no caller ever sees one: this is
// lazy expiry.
func (h *Hash) live(now uint64, name string) *field {
	f := h.lookup(name)
	if f != nil && h.expired(f, now) {
		h.remove(f)
		Expired++
		return nil
	}
	return f
}

// remove takes a stored field out of the hashtable and, if it has an
// expiry, out of the heap.
func (h *Hash) remove(f *field) {
	h.fields.Pop(&f.node, sameNode)
	h.clearExpiry(f)
	h.unplace(f)
}

// place gives a new field the next place in h.order.
func (h *Hash) place(f *field) {
	f.pos = len(h.order)
	h.order = append(h.order, f)
}

// unplace takes f out of h.order: the last field moves into its place, so
// the array stays dense. Only the last field ever moves, and only down,
// which is what Scan's promise rests on.
func (h *Hash) unplace(f *field) {
	// exercise: ch30-hscan-order
	last := len(h.order) - 1
	moved := h.order[last]
	h.order[f.pos] = moved
	moved.pos = f.pos
	h.order[last] = nil
	h.order = h.order[:last]
	// Give memory back as shrinkTTLs does: the copy keeps every index.
	if n, c := len(h.order), cap(h.order); n == 0 {
		h.order = nil
	} else if c >= minShrinkCap && n <= c/4 {
		h.order = append(make([]*field, 0, 2*n), h.order...)
	}
	// end exercise: ch30-hscan-order
}

// setExpiry gives f the expiry at, adding it to the heap or moving it there.
func (h *Hash) setExpiry(f *field, at uint64) {
	if f.heapIdx >= 0 {
		h.nExpired -= h.countBefore(h.ttls[f.heapIdx].Val)
	}
	h.nExpired += h.countBefore(at)
	heap.Upsert(&h.ttls, f.heapIdx, heap.HeapItem[field]{Val: at, Owner: f}, heapIdxOf)
}

// clearExpiry takes f out of the heap if it is there.
func (h *Hash) clearExpiry(f *field) {
	if f.heapIdx < 0 {
		return
	}
	h.nExpired -= h.countBefore(h.ttls[f.heapIdx].Val)
	heap.Delete(&h.ttls, f.heapIdx, heapIdxOf)
	h.shrinkTTLs()
}

// countBefore returns 1 if an item with time at is one of those counted
// in h.nExpired, else 0.
func (h *Hash) countBefore(at uint64) int {
	if at < h.nExpiredAt {
		return 1
	}
	return 0
}

// shrinkTTLs gives memory back after many volatile fields have gone (a mass
// expiry): once the heap uses a quarter of its capacity or less it moves to
// an array twice its length. Items point at fields, not into the array, and
// the copy comes after 3/4 of the capacity was deleted: O(1) amortised.
func (h *Hash) shrinkTTLs() {
	n, c := len(h.ttls), cap(h.ttls)
	switch {
	case n == 0:
		h.ttls = nil
	case c >= minShrinkCap && n <= c/4:
		h.ttls = append(make([]heap.HeapItem[field], 0, 2*n), h.ttls...)
	}
}

// put stores value under name, creating the field if it is absent (or
// expired, which put reclaims first). The expiry of an existing live field
// is left alone. added reports whether the field was created.
func (h *Hash) put(now uint64, name, value string) (f *field, added bool) {
	if f = h.live(now, name); f != nil {
		f.value = value
		return f, false
	}
	f = &field{name: name, value: value, heapIdx: -1}
	f.node.Owner = f
	f.node.HCode = hashtable.Hash(name)
	h.fields.Insert(&f.node)
	h.place(f)
	return f, true
}

// Set stores value under name and removes any expiry the field had, as
// HSET does. It reports whether the field is new; a field that had expired
// counts as new.
func (h *Hash) Set(now uint64, name, value string) (added bool) {
	f, added := h.put(now, name, value)
	h.clearExpiry(f)
	return added
}

// SetKeepTTL stores value under name but keeps the expiry of an existing
// live field (HSETEX KEEPTTL; also what HINCRBY needs). A new field has no
// expiry. It reports whether the field is new.
func (h *Hash) SetKeepTTL(now uint64, name, value string) (added bool) {
	_, added = h.put(now, name, value)
	return added
}

// SetExpireAt stores value under name with the expiry at, replacing any
// expiry it had (HSETEX with EX, PX, EXAT or PXAT). If at is not after now
// the write is immediately undone by expiry: the field is deleted, as Redis
// does. It reports whether the field was absent before the call.
func (h *Hash) SetExpireAt(now uint64, name, value string, at uint64) (added bool) {
	if at <= now { // nothing would survive: build no field just to delete it
		f := h.live(now, name)
		if f != nil {
			h.remove(f)
			Expired++
		}
		return f == nil
	}
	f, added := h.put(now, name, value)
	h.setExpiry(f, at)
	return added
}

// Get returns the value of the live field name (HGET).
func (h *Hash) Get(now uint64, name string) (value string, ok bool) {
	if f := h.live(now, name); f != nil {
		return f.value, true
	}
	return "", false
}

// Exists reports whether the live field name exists (HEXISTS).
func (h *Hash) Exists(now uint64, name string) bool {
	return h.live(now, name) != nil
}

// Delete removes the field name and reports whether it existed and had not
// expired (HDEL). An expired field is removed too but reported as absent.
func (h *Hash) Delete(now uint64, name string) bool {
	f := h.live(now, name)
	if f == nil {
		return false
	}
	h.remove(f)
	return true
}

// Len returns the number of live fields (HLEN), exactly, and only reads: it
// subtracts the expired fields still stored and leaves reclaiming them to
// ExpireSome, as reclaiming costs some 100 times what counting does (30 ms
// for 100,000 fields against 0.3 ms) and a constant-time command must not
// pay for a backlog. Counting k expired fields is O(k) once a millisecond:
// the count is kept exact as fields come and go until the clock moves on.
// Every hash command runs through Len, so without this 300,000 fields
// expiring together made other clients wait seconds. Redis answers with
// StoredLen instead, which counts fields not yet reclaimed.
func (h *Hash) Len(now uint64) int {
	return h.fields.Size() - h.countExpired(now)
}

// countExpired counts the stored fields that have expired at now: the
// count kept for now if there is one, else a walk of the heap, whose
// result is kept. By the heap order nothing below an unexpired item has
// expired either, so the expired items form a subtree hanging from the
// root, and a walk that stops at unexpired items visits only them and
// their children: at most 2k+1 items.
func (h *Hash) countExpired(now uint64) int {
	if len(h.ttls) == 0 || h.ttls[0].Val >= now {
		return 0
	}
	if now == h.nExpiredAt {
		return h.nExpired
	}
	// The walk's stack holds at most one waiting sibling per level plus the
	// current pair, so 64 entries cover any heap that fits in memory and
	// the walk does not allocate.
	var buf [64]int
	stack := append(buf[:0], 0)
	n := 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= len(h.ttls) || h.ttls[i].Val >= now {
			continue
		}
		n++
		stack = append(stack, 2*i+1, 2*i+2)
	}
	h.nExpiredAt, h.nExpired = now, n
	return n
}

// StoredLen returns the number of stored fields in O(1), including expired
// fields not yet reclaimed. It is what Redis's HLEN reports.
func (h *Hash) StoredLen() int {
	return h.fields.Size()
}

// GetAll returns every live field with its value, in no particular order
// (HGETALL). Like Len it skips expired fields without reclaiming them,
// which would cost several times the O(n) walk itself; Redis and the
// Valkey proposal do the same in HGETALL and HSCAN.
func (h *Hash) GetAll(now uint64) []Pair {
	out := make([]Pair, 0, h.Len(now))
	h.fields.Scan(func(node *hashtable.HNode[field]) {
		if f := node.Owner; !h.expired(f, now) {
			out = append(out, Pair{f.name, f.value})
		}
	})
	return out
}

// Each calls fn with every live field and its value, in GetAll's order,
// until fn returns false, and returns how many stored fields it went by,
// expired ones too: GetAll without its list, for a caller that writes the
// fields out as it goes and may stop part way (a reply that outgrows its
// budget), so that nothing is held but what it writes.
func (h *Hash) Each(now uint64, fn func(name, value string) bool) (visited int) {
	h.fields.ScanUntil(func(node *hashtable.HNode[field]) bool {
		visited++
		f := node.Owner
		return h.expired(f, now) || fn(f.name, f.value)
	})
	return visited
}

// Expire sets the expiry of the field name to at, unix milliseconds, if
// cond holds (one field of the HEXPIRE family). It returns NoField if the
// field does not exist or has expired, NotMet if cond does not hold,
// Deleted if at is not after now (the field is deleted), else OK. As in
// Redis, the condition comes before the time: a failed one never deletes.
func (h *Hash) Expire(now uint64, name string, at uint64, cond Cond) int {
	f := h.live(now, name)
	if f == nil {
		return NoField
	}
	if !h.condHolds(f, at, cond) {
		return NotMet
	}
	if at <= now {
		h.remove(f)
		Expired++
		return Deleted
	}
	h.setExpiry(f, at)
	return OK
}

// condHolds decides cond for giving f the expiry at. A field without an
// expiry is treated as expiring at infinity.
func (h *Hash) condHolds(f *field, at uint64, cond Cond) bool {
	hasTTL := f.heapIdx >= 0
	switch cond {
	case NX:
		return !hasTTL
	case XX:
		return hasTTL
	case GT:
		return hasTTL && at > h.ttls[f.heapIdx].Val
	case LT:
		return !hasTTL || at < h.ttls[f.heapIdx].Val
	default:
		return true
	}
}

// Persist removes the expiry of the field name (HPERSIST). It returns
// NoField if the field does not exist or has expired, NoTTL if it has no
// expiry, and OK if an expiry was removed.
func (h *Hash) Persist(now uint64, name string) int {
	f := h.live(now, name)
	switch {
	case f == nil:
		return NoField
	case f.heapIdx < 0:
		return NoTTL
	}
	h.clearExpiry(f)
	return OK
}

// TTL returns the milliseconds the field name has left (HPTTL): NoField if
// it does not exist or has expired, NoTTL if it has no expiry. A field at
// its very last millisecond has 0 left. The server rounds for HTTL, and must
// keep expiry times within int64 (Redis caps them far lower).
func (h *Hash) TTL(now uint64, name string) int64 {
	at := h.ExpireTime(now, name)
	if at < 0 {
		return at // NoField or NoTTL
	}
	return at - int64(now)
}

// ExpireTime returns the unix time in milliseconds at which the field name
// expires (HPEXPIRETIME): NoField if it does not exist or has expired, NoTTL
// if it has no expiry.
func (h *Hash) ExpireTime(now uint64, name string) int64 {
	f := h.live(now, name)
	switch {
	case f == nil:
		return NoField
	case f.heapIdx < 0:
		return NoTTL
	}
	return int64(h.ttls[f.heapIdx].Val)
}

// NextExpiry returns the earliest expiry among the stored fields, and false
// if no field has one; a time before now means expired fields await
// reclaiming. The server keys its one timer for this hash on it, read
// again after every operation on the hash, since any may change it.
func (h *Hash) NextExpiry() (at uint64, ok bool) {
	if len(h.ttls) == 0 {
		return 0, false
	}
	return h.ttls[0].Val, true
}

// ExpireSome reclaims up to budget expired fields, earliest expiry first,
// and returns how many it removed (active expiry): fewer only when none is
// left. Each removal is O(log v) and no field without an expiry is looked
// at, so the work is bounded as the book bounds its server's expiry.
func (h *Hash) ExpireSome(now uint64, budget int) (removed int) {
	for removed < budget && len(h.ttls) > 0 && h.ttls[0].Val < now {
		h.remove(h.ttls[0].Owner)
		removed++
		Expired++
	}
	return removed
}

// Scan walks h.order for HSCAN, downward, from the place cursor names: 0
// starts at the top, and c > 0 means place c-1 is next (a cursor past the
// top, the array having shrunk since, starts at the top). It visits up to
// count places, or, whatever the cursor, every place if the hash has no
// more than all stored fields (HSCAN answers a small hash whole in one
// call, as Redis answers one in its compact encoding), and calls
// fn with each live field there; fn may stop the walk before a field by
// answering false (the reply is full), and that field's place is then the
// next one. It returns the next cursor, 0 once the bottom is passed, and
// how many places it visited.
//
// A field present from a walk's first call to its last is visited at least
// once: fields only move when one is deleted, and then it is the last one,
// at the top, that moves down into the hole. While the top is above the
// walk's place, the top field was visited already or came after the walk
// began; once the walk is at the top, the field that moves stays below it.
// A visited field moved below the walk's place is visited again, as Redis
// allows.
func (h *Hash) Scan(now uint64, cursor uint64, count, all int, fn func(name, value string) bool) (next uint64, visited int) {
	// exercise: ch30-hscan-order
	n := len(h.order)
	i := n - 1
	if cursor > 0 && cursor-1 < uint64(n) {
		i = int(cursor - 1)
	}
	if n <= all {
		i, count = n-1, n
	}
	for ; i >= 0 && visited < count; i-- {
		if f := h.order[i]; !h.expired(f, now) && !fn(f.name, f.value) {
			break
		}
		visited++
	}
	if i < 0 {
		return 0, visited
	}
	return uint64(i) + 1, visited
	// end exercise: ch30-hscan-order
}

// At returns the field at place i of h.order, 0 <= i < StoredLen, and
// whether it is live at now (HRANDFIELD's picks; the server reclaims
// expired fields first, with ExpireSome, so that every place holds a live
// one).
func (h *Hash) At(now uint64, i int) (p Pair, live bool) {
	f := h.order[i]
	return Pair{f.name, f.value}, !h.expired(f, now)
}

// ExpireAt returns the unix time in milliseconds at which the field at
// place i of h.order expires, -1 if it has no expiry: ExpireTime by
// place, without a lookup by name (a snapshot's walk of the order).
func (h *Hash) ExpireAt(i int) int64 {
	if f := h.order[i]; f.heapIdx >= 0 {
		return int64(h.ttls[f.heapIdx].Val)
	}
	return -1
}

// VolatileLen returns the number of stored fields with an expiry, expired
// or not: the most ExpireSome can reclaim.
func (h *Hash) VolatileLen() int {
	return len(h.ttls)
}
