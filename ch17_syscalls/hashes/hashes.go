// Package hashes is the server's hash value: a map of field names to string
// values in which any field may carry its own expiry time, as in Redis 7.4+
// and Valkey (HSET, HGET, HDEL, HLEN, HEXISTS, HGETALL, HEXPIRE and its
// variants, HPERSIST, HTTL, HEXPIRETIME, HSETEX, HGETEX).
//
// # Structure
//
// Every field is one allocation holding a hashtable.HNode, so the fields
// form the book's chaining hashtable. A field that has an expiry (a
// "volatile" field) is also in a per-hash min-heap of expiry times, the
// book's heap with back-indices: the heap item carries the expiry and points
// at the field, and the field keeps the item's position. The expiry time is
// stored once, in the heap item. A field without an expiry is in the
// hashtable only and costs nothing extra: its heap index fits in padding the
// allocator rounds every field up to anyway.
//
// The heap gives the earliest expiry in O(1) (NextExpiry) and reclaims the
// next expired field in O(log v) for v volatile fields, never looking at the
// others. The server keeps one timer per hash, keyed by NextExpiry, in a
// global heap: active expiry never visits a hash without volatile fields.
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
	"example.com/byor/ch17_syscalls/hashtable"
	"example.com/byor/ch17_syscalls/heap"
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

// field is one field of a hash. Its size is 56 bytes without heapIdx and 64
// with it; Go allocates both in the 64-byte size class, which is why fields
// without an expiry pay nothing for being able to have one.
type field struct {
	node    hashtable.HNode[field]
	name    string
	value   string
	heapIdx int // position of this field's item in Hash.ttls; -1 without an expiry
}

// Pair is one live field and its value, as HGETALL returns them.
type Pair struct {
	Name, Value string
}

// Hash is a hash value. The zero value is an empty hash ready to use.
type Hash struct {
	fields hashtable.HMap[field]  // name -> field, every stored field
	ttls   []heap.HeapItem[field] // the volatile fields, earliest expiry at index 0
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

// lookup returns the stored field called name, expired or not, or nil. Its
// search key, a bare field with the name and hash, escapes to Go's heap
// through the function value eqName is passed as: one 64-byte allocation a
// lookup, where the book's C++ builds its key on the stack.
func (h *Hash) lookup(name string) *field {
	key := field{name: name}
	key.node.HCode = hashtable.StrHash(name)
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
		return nil
	}
	return f
}

// remove takes a stored field out of the hashtable and, if it has an
// expiry, out of the heap.
func (h *Hash) remove(f *field) {
	h.fields.Pop(&f.node, sameNode)
	h.clearExpiry(f)
}

// setExpiry gives f the expiry at, adding it to the heap or moving it there.
func (h *Hash) setExpiry(f *field, at uint64) {
	if f.heapIdx >= 0 {
		h.nExpired -= h.countBefore(h.ttls[f.heapIdx].Val)
	}
	h.nExpired += h.countBefore(at)
	heap.Upsert(&h.ttls, f.heapIdx, heap.HeapItem[field]{Val: at, Ref: &f.heapIdx, Owner: f})
}

// clearExpiry takes f out of the heap if it is there.
func (h *Hash) clearExpiry(f *field) {
	if f.heapIdx < 0 {
		return
	}
	h.nExpired -= h.countBefore(h.ttls[f.heapIdx].Val)
	heap.Delete(&h.ttls, f.heapIdx)
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
	f.node.HCode = hashtable.StrHash(name)
	h.fields.Insert(&f.node)
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

// Expire sets the expiry of the field name to at, unix milliseconds, if
// cond holds (one field of the HEXPIRE family). It returns NoField if the
// field does not exist or has expired, NotMet if cond does not hold,
// Deleted if at is not after now (the field is deleted), else OK. As in
// Redis, the condition comes before the time: a failed one never deletes.
func (h *Hash) Expire(now uint64, name string, at uint64, cond Cond) int {
	// exercise: ch16-field-expiry
	f := h.live(now, name)
	if f == nil {
		return NoField
	}
	if !h.condHolds(f, at, cond) {
		return NotMet
	}
	if at <= now {
		h.remove(f)
		return Deleted
	}
	h.setExpiry(f, at)
	return OK
	// end exercise: ch16-field-expiry
}

// condHolds decides cond for giving f the expiry at. A field without an
// expiry is treated as expiring at infinity.
func (h *Hash) condHolds(f *field, at uint64, cond Cond) bool {
	// exercise: ch16-field-expiry
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
	// end exercise: ch16-field-expiry
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
	// exercise: ch16-field-expiry
	for removed < budget && len(h.ttls) > 0 && h.ttls[0].Val < now {
		h.remove(h.ttls[0].Owner)
		removed++
	}
	return removed
	// end exercise: ch16-field-expiry
}
