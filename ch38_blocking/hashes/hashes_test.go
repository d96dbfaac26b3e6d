package hashes

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"example.com/byor/ch38_blocking/hashtable"
)

// t0 is a realistic unix time in milliseconds; tests start their clocks here.
const t0 uint64 = 1_700_000_000_000

// fstate is what the tests know about one stored field.
type fstate struct {
	Value string
	TTL   bool   // the field has an expiry
	At    uint64 // the expiry, if TTL
}

// stored reads the hash's physical contents (expired fields not yet
// reclaimed included) straight from its internals, and checks on the way
// that the hashtable and the heap agree with each other.
func stored(t *testing.T, step int, h *Hash) map[string]fstate {
	t.Helper()
	got := map[string]fstate{}
	volatile := 0
	h.fields.Scan(func(node *hashtable.HNode[field]) {
		f := node.Owner
		if f == nil || &f.node != node {
			t.Fatalf("step %d: node with a wrong Owner", step)
		}
		if _, dup := got[f.name]; dup {
			t.Fatalf("step %d: field %q stored twice", step, f.name)
		}
		if node.HCode != hashtable.Hash(f.name) {
			t.Fatalf("step %d: field %q has a stale HCode", step, f.name)
		}
		st := fstate{Value: f.value}
		if f.heapIdx >= 0 {
			if f.heapIdx >= len(h.ttls) || h.ttls[f.heapIdx].Owner != f {
				t.Fatalf("step %d: field %q: heap index %d does not lead back to it", step, f.name, f.heapIdx)
			}
			st.TTL, st.At = true, h.ttls[f.heapIdx].Val
			volatile++
		} else if f.heapIdx != -1 {
			t.Fatalf("step %d: field %q: heap index %d", step, f.name, f.heapIdx)
		}
		got[f.name] = st
	})
	if len(got) != h.StoredLen() {
		t.Fatalf("step %d: StoredLen %d, scan found %d", step, h.StoredLen(), len(got))
	}
	if volatile != len(h.ttls) {
		t.Fatalf("step %d: %d fields point into a heap of %d items", step, volatile, len(h.ttls))
	}
	for i, it := range h.ttls {
		// Children are computed here, not with the heap package's helpers.
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h.ttls) && h.ttls[c].Val < it.Val {
				t.Fatalf("step %d: heap child %d (%d) < parent %d (%d)", step, c, h.ttls[c].Val, i, it.Val)
			}
		}
		if it.Owner.heapIdx != i {
			t.Fatalf("step %d: heap item %d: bad back-reference", step, i)
		}
		if h.lookup(it.Owner.name) != it.Owner {
			t.Fatalf("step %d: heap item %d: owner %q is not in the hashtable", step, i, it.Owner.name)
		}
	}
	return got
}

// model is the reference: a plain map of every field the hash should still
// be storing, including expired fields it has not yet had a reason to
// reclaim. Which fields are live is decided from now, by the Redis rule.
type model struct {
	m   map[string]fstate
	now uint64
}

func (md *model) expired(st fstate) bool { return st.TTL && st.At < md.now }

// live returns the field if it is live; an expired one is dropped, as any
// operation naming it reclaims it.
func (md *model) live(name string) (fstate, bool) {
	st, ok := md.m[name]
	if ok && md.expired(st) {
		delete(md.m, name)
		return fstate{}, false
	}
	return st, ok
}

// ghosts returns the expired fields still stored.
func (md *model) ghosts() map[string]fstate {
	g := map[string]fstate{}
	for name, st := range md.m {
		if md.expired(st) {
			g[name] = st
		}
	}
	return g
}

func (md *model) set(name, value string, keepTTL bool) bool {
	st, ok := md.live(name)
	if !keepTTL || !ok {
		st.TTL, st.At = false, 0
	}
	st.Value = value
	md.m[name] = st
	return !ok
}

func (md *model) expire(name string, at uint64, cond Cond) int {
	st, ok := md.live(name)
	if !ok {
		return NoField
	}
	var holds bool
	switch cond {
	case NX:
		holds = !st.TTL
	case XX:
		holds = st.TTL
	case GT:
		holds = st.TTL && at > st.At
	case LT:
		holds = !st.TTL || at < st.At
	default:
		holds = true
	}
	if !holds {
		return NotMet
	}
	if at <= md.now {
		delete(md.m, name)
		return Deleted
	}
	st.TTL, st.At = true, at
	md.m[name] = st
	return OK
}

func (md *model) persist(name string) int {
	st, ok := md.live(name)
	switch {
	case !ok:
		return NoField
	case !st.TTL:
		return NoTTL
	}
	st.TTL, st.At = false, 0
	md.m[name] = st
	return OK
}

// ttl returns HPTTL's and HPEXPIRETIME's answers.
func (md *model) ttl(name string) (int64, int64) {
	st, ok := md.live(name)
	switch {
	case !ok:
		return NoField, NoField
	case !st.TTL:
		return NoTTL, NoTTL
	}
	return int64(st.At - md.now), int64(st.At)
}

func (md *model) livePairs() []Pair {
	var out []Pair
	for name, st := range md.m {
		if !md.expired(st) {
			out = append(out, Pair{name, st.Value})
		}
	}
	return sortPairs(out)
}

func sortPairs(p []Pair) []Pair {
	slices.SortFunc(p, func(a, b Pair) int { return cmp.Compare(a.Name, b.Name) })
	if p == nil {
		p = []Pair{}
	}
	return p
}

// check compares the hash's whole physical state with the model, and its
// NextExpiry with the model's earliest expiry over the fields it stores.
// When no expired field is waiting, that is the earliest expiry among live
// volatile fields.
func check(t *testing.T, step int, h *Hash, md *model) {
	t.Helper()
	// maps.Equal first: go-cmp is only needed to explain a difference, and
	// running it on every step would dominate the test's time.
	if got := stored(t, step, h); !maps.Equal(md.m, got) {
		t.Fatalf("step %d: stored fields (-model +hash):\n%s", step, gocmp.Diff(md.m, got))
	}
	var want struct {
		At uint64
		OK bool
	}
	for _, st := range md.m {
		if st.TTL && (!want.OK || st.At < want.At) {
			want.At, want.OK = st.At, true
		}
	}
	var got struct {
		At uint64
		OK bool
	}
	got.At, got.OK = h.NextExpiry()
	if got != want {
		t.Fatalf("step %d: NextExpiry (-model +hash):\n%s", step, gocmp.Diff(want, got))
	}
	checkOrder(t, step, h)
}

// checkOrder checks that h.order holds every stored field once, each at
// the place it records.
func checkOrder(t *testing.T, step int, h *Hash) {
	t.Helper()
	if len(h.order) != h.StoredLen() {
		t.Fatalf("step %d: %d places for %d stored fields", step, len(h.order), h.StoredLen())
	}
	for i, f := range h.order {
		if f.pos != i {
			t.Fatalf("step %d: field %q at place %d records place %d", step, f.name, i, f.pos)
		}
	}
}

// TestAgainstModel runs random operations and clock advances on one hash
// and on the model, comparing every answer and, after every step, the whole
// state. Few names and short TTLs make collisions, expiries, ties and
// lazily reclaimed fields common.
func TestAgainstModel(t *testing.T) {
	steps := 30000
	if testing.Short() {
		steps = 5000
	}
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runModel(t, seed, steps)
		})
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	names := make([]string, 24)
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
	}
	h := &Hash{}
	md := &model{m: map[string]fstate{}, now: t0}
	name := func() string { return names[r.IntN(len(names))] }
	value := func() string { return fmt.Sprint("v", r.IntN(1000)) }
	// expiry picks times around now, including now itself, the millisecond
	// either side, times in the past, and a stored field's exact expiry so
	// that GT and LT meet equal times.
	expiry := func() uint64 {
		switch r.IntN(8) {
		case 0:
			return md.now
		case 1:
			return md.now - 1
		case 2:
			return md.now + 1
		case 3:
			return md.now - r.Uint64N(50)
		case 4:
			if st, ok := md.m[name()]; ok && st.TTL {
				return st.At
			}
		}
		return md.now + r.Uint64N(120)
	}
	conds := []Cond{Always, NX, XX, GT, LT}
	stats := map[string]int{}
	for step := range steps {
		now := md.now
		switch op := r.IntN(17); op {
		case 0, 1: // HSET
			n, v := name(), value()
			if got, want := h.Set(now, n, v), md.set(n, v, false); got != want {
				t.Fatalf("step %d: Set(%q) = %v, want %v", step, n, got, want)
			}
		case 2: // HSETEX KEEPTTL
			n, v := name(), value()
			if got, want := h.SetKeepTTL(now, n, v), md.set(n, v, true); got != want {
				t.Fatalf("step %d: SetKeepTTL(%q) = %v, want %v", step, n, got, want)
			}
		case 3, 4: // HSETEX PXAT
			n, v, at := name(), value(), expiry()
			_, was := md.live(n)
			got := h.SetExpireAt(now, n, v, at)
			if got != !was {
				t.Fatalf("step %d: SetExpireAt(%q, %d) = %v, want %v", step, n, at, got, !was)
			}
			if at <= now {
				delete(md.m, n)
			} else {
				md.m[n] = fstate{Value: v, TTL: true, At: at}
			}
		case 5: // HDEL
			n := name()
			_, want := md.live(n)
			delete(md.m, n)
			if got := h.Delete(now, n); got != want {
				t.Fatalf("step %d: Delete(%q) = %v, want %v", step, n, got, want)
			}
		case 6: // HGET and HEXISTS
			n := name()
			st, want := md.live(n)
			got, ok := h.Get(now, n)
			if ok != want || got != st.Value {
				t.Fatalf("step %d: Get(%q) = %q, %v, want %q, %v", step, n, got, ok, st.Value, want)
			}
			if e := h.Exists(now, n); e != want {
				t.Fatalf("step %d: Exists(%q) = %v, want %v", step, n, e, want)
			}
		case 7, 8, 9: // HPEXPIREAT with a condition
			n, at, c := name(), expiry(), conds[r.IntN(len(conds))]
			want := md.expire(n, at, c)
			if got := h.Expire(now, n, at, c); got != want {
				t.Fatalf("step %d: Expire(%q, now%+d, %d) = %d, want %d", step, n, int64(at-now), c, got, want)
			}
			stats[fmt.Sprintf("expire cond %d code %d", c, want)]++
		case 10: // HPERSIST
			n := name()
			want := md.persist(n)
			if got := h.Persist(now, n); got != want {
				t.Fatalf("step %d: Persist(%q) = %d, want %d", step, n, got, want)
			}
			stats[fmt.Sprint("persist code ", want)]++
		case 11: // HPTTL and HPEXPIRETIME
			n := name()
			wantTTL, wantAt := md.ttl(n)
			if got := h.TTL(now, n); got != wantTTL {
				t.Fatalf("step %d: TTL(%q) = %d, want %d", step, n, got, wantTTL)
			}
			if got := h.ExpireTime(now, n); got != wantAt {
				t.Fatalf("step %d: ExpireTime(%q) = %d, want %d", step, n, got, wantAt)
			}
		case 12: // HGETEX: read, then set or drop the expiry as the server will
			n := name()
			st, want := md.live(n)
			got, ok := h.Get(now, n)
			if ok != want || got != st.Value {
				t.Fatalf("step %d: HGETEX Get(%q) = %q, %v, want %q, %v", step, n, got, ok, st.Value, want)
			}
			if !ok {
				break
			}
			if r.IntN(3) == 0 {
				if code, want := h.Persist(now, n), md.persist(n); code != want {
					t.Fatalf("step %d: HGETEX PERSIST %q = %d, want %d", step, n, code, want)
				}
			} else {
				at := expiry()
				if code, want := h.Expire(now, n, at, Always), md.expire(n, at, Always); code != want {
					t.Fatalf("step %d: HGETEX PXAT %q = %d, want %d", step, n, code, want)
				}
			}
		case 13: // HLEN: exact, and reclaims nothing (check compares the stored fields)
			want := len(md.livePairs())
			if got := h.Len(now); got != want {
				t.Fatalf("step %d: Len = %d, want %d", step, got, want)
			}
		case 14: // HGETALL: skips expired fields and reclaims nothing
			want := md.livePairs()
			if diff := gocmp.Diff(want, sortPairs(h.GetAll(now))); diff != "" {
				t.Fatalf("step %d: GetAll (-want +got):\n%s", step, diff)
			}
		case 15: // the clock moves on
			md.now += r.Uint64N(40)
		case 16: // active expiry with a small budget
			budget := r.IntN(6)
			ghosts := md.ghosts()
			before := stored(t, step, h)
			got := h.ExpireSome(now, budget)
			if want := min(budget, len(ghosts)); got != want {
				t.Fatalf("step %d: ExpireSome(budget %d) = %d with %d expired fields, want %d", step, budget, got, len(ghosts), want)
			}
			after := stored(t, step, h)
			// Whatever went must have been expired, and must have been the
			// earliest: no expired field left behind expires before one taken.
			var gone []uint64
			for n := range before {
				if _, ok := after[n]; ok {
					continue
				}
				st, ok := ghosts[n]
				if !ok {
					t.Fatalf("step %d: ExpireSome removed %q, which had not expired", step, n)
				}
				gone = append(gone, st.At)
				delete(ghosts, n)
				delete(md.m, n)
			}
			if len(gone) != got {
				t.Fatalf("step %d: ExpireSome reported %d, removed %d", step, got, len(gone))
			}
			for n, st := range ghosts {
				if len(gone) > 0 && st.At < slices.Max(gone) {
					t.Fatalf("step %d: ExpireSome kept %q (at %d) but removed a later field (at %d)", step, n, st.At, slices.Max(gone))
				}
			}
			stats[fmt.Sprint("expiresome removed>0 ", got > 0)]++
		}
		check(t, step, h, md)
	}
	// The operations must really have reached every outcome, or the test
	// proves less than it seems to.
	for _, c := range conds {
		for _, code := range []int{NoField, NotMet, OK, Deleted} {
			// No condition cannot fail, and GT cannot delete: a live field's
			// expiry is at or after now, so a later time is in the future.
			if (c == Always && code == NotMet) || (c == GT && code == Deleted) {
				continue
			}
			if stats[fmt.Sprintf("expire cond %d code %d", c, code)] == 0 {
				t.Errorf("no Expire with cond %d returned %d", c, code)
			}
		}
	}
	for _, k := range []string{"persist code -2", "persist code -1", "persist code 1", "expiresome removed>0 true"} {
		if stats[k] == 0 {
			t.Errorf("outcome %q never happened", k)
		}
	}
}

// fixture builds a hash at time t0 and returns it with the time at which
// the cases query it, T = t0+100. At T it holds "plain" with no expiry,
// "vol" expiring at T+1000, "edge" expiring exactly at T (alive, its last
// millisecond) and "gone", which expired at t0+50 and is still stored.
func fixture(t *testing.T) (*Hash, uint64) {
	t.Helper()
	T := t0 + 100
	h := &Hash{}
	h.Set(t0, "plain", "p")
	h.SetExpireAt(t0, "vol", "v", T+1000)
	h.SetExpireAt(t0, "edge", "e", T)
	h.SetExpireAt(t0, "gone", "g", t0+50)
	if h.StoredLen() != 4 {
		t.Fatalf("fixture has %d fields", h.StoredLen())
	}
	return h, T
}

// view is a field as the commands see it at time now.
type view struct {
	Exists   bool
	Value    string
	TTL      int64
	ExpireAt int64
}

func look(h *Hash, now uint64, name string) view {
	v, ok := h.Get(now, name)
	return view{ok, v, h.TTL(now, name), h.ExpireTime(now, name)}
}

func TestExpireCodes(t *testing.T) {
	tests := []struct {
		name  string
		field string
		at    int64 // relative to T
		cond  Cond
		code  int
		after view // the field afterwards, at T
	}{
		{"missing field", "nope", 10, Always, NoField, view{TTL: -2, ExpireAt: -2}},
		{"expired field", "gone", 10, Always, NoField, view{TTL: -2, ExpireAt: -2}},
		{"no condition", "plain", 10, Always, OK, view{true, "p", 10, 10}},
		{"no condition, same time", "vol", 1000, Always, OK, view{true, "v", 1000, 1000}},
		{"last millisecond field", "edge", 7, Always, OK, view{true, "e", 7, 7}},
		{"NX without TTL", "plain", 10, NX, OK, view{true, "p", 10, 10}},
		{"NX with TTL", "vol", 10, NX, NotMet, view{true, "v", 1000, 1000}},
		{"XX without TTL", "plain", 10, XX, NotMet, view{true, "p", -1, -1}},
		{"XX with TTL", "vol", 10, XX, OK, view{true, "v", 10, 10}},
		{"GT without TTL (infinite)", "plain", 10, GT, NotMet, view{true, "p", -1, -1}},
		{"GT later", "vol", 2000, GT, OK, view{true, "v", 2000, 2000}},
		{"GT equal", "vol", 1000, GT, NotMet, view{true, "v", 1000, 1000}},
		{"GT earlier", "vol", 500, GT, NotMet, view{true, "v", 1000, 1000}},
		{"LT without TTL (infinite)", "plain", 10, LT, OK, view{true, "p", 10, 10}},
		{"LT earlier", "vol", 500, LT, OK, view{true, "v", 500, 500}},
		{"LT equal", "vol", 1000, LT, NotMet, view{true, "v", 1000, 1000}},
		{"LT later", "vol", 2000, LT, NotMet, view{true, "v", 1000, 1000}},
		{"now deletes", "plain", 0, Always, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"past deletes", "vol", -1, Always, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"time zero deletes", "vol", -int64(t0 + 100), Always, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"NX past deletes", "plain", -5, NX, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"XX past deletes", "vol", 0, XX, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"LT past deletes field without TTL", "plain", -5, LT, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"LT past deletes", "vol", -5, LT, Deleted, view{TTL: -2, ExpireAt: -2}},
		{"GT past: condition first, kept", "vol", -5, GT, NotMet, view{true, "v", 1000, 1000}},
		{"NX past on TTL: kept", "vol", -5, NX, NotMet, view{true, "v", 1000, 1000}},
		{"XX past without TTL: kept", "plain", -5, XX, NotMet, view{true, "p", -1, -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, T := fixture(t)
			at := uint64(int64(T) + tc.at)
			if got := h.Expire(T, tc.field, at, tc.cond); got != tc.code {
				t.Fatalf("Expire = %d, want %d", got, tc.code)
			}
			want := tc.after
			if want.ExpireAt > 0 {
				want.ExpireAt += int64(T) // the table holds it relative to T
			}
			if diff := gocmp.Diff(want, look(h, T, tc.field)); diff != "" {
				t.Fatalf("field afterwards (-want +got):\n%s", diff)
			}
			// The others are untouched (gone is reclaimed by looking at it).
			others := map[string]view{
				"plain": {true, "p", -1, -1},
				"vol":   {true, "v", 1000, int64(T) + 1000},
				"edge":  {true, "e", 0, int64(T)},
				"gone":  {TTL: -2, ExpireAt: -2},
			}
			for name, w := range others {
				if name == tc.field {
					continue
				}
				if diff := gocmp.Diff(w, look(h, T, name)); diff != "" {
					t.Errorf("%s afterwards (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestPersistTTLExpireTime(t *testing.T) {
	tests := []struct {
		field      string
		ttl, at    int64 // before; at relative to T
		persist    int
		afterTTL   int64
		afterExist bool
	}{
		{"nope", -2, -2, NoField, -2, false},
		{"gone", -2, -2, NoField, -2, false},
		{"plain", -1, -1, NoTTL, -1, true},
		{"vol", 1000, 1000, OK, -1, true},
		{"edge", 0, 0, OK, -1, true}, // at == now is still alive
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			h, T := fixture(t)
			wantAt := tc.at
			if wantAt >= 0 {
				wantAt += int64(T)
			}
			if got := h.TTL(T, tc.field); got != tc.ttl {
				t.Errorf("TTL = %d, want %d", got, tc.ttl)
			}
			if got := h.ExpireTime(T, tc.field); got != wantAt {
				t.Errorf("ExpireTime = %d, want %d", got, wantAt)
			}
			if got := h.Persist(T, tc.field); got != tc.persist {
				t.Errorf("Persist = %d, want %d", got, tc.persist)
			}
			if got := h.TTL(T, tc.field); got != tc.afterTTL {
				t.Errorf("TTL after Persist = %d, want %d", got, tc.afterTTL)
			}
			if got := h.Exists(T, tc.field); got != tc.afterExist {
				t.Errorf("Exists after Persist = %v, want %v", got, tc.afterExist)
			}
		})
	}
}

// TestExpiryBoundary pins the Redis rule: alive through its expiry
// millisecond, gone one millisecond later.
func TestExpiryBoundary(t *testing.T) {
	h, T := fixture(t)
	if got := look(h, T, "edge"); got != (view{true, "e", 0, int64(T)}) {
		t.Fatalf("at its expiry time: %+v", got)
	}
	if got := look(h, T+1, "edge"); got != (view{TTL: -2, ExpireAt: -2}) {
		t.Fatalf("one millisecond later: %+v", got)
	}
	if h.StoredLen() != 3 { // edge reclaimed; gone still waits
		t.Fatalf("StoredLen = %d, want 3", h.StoredLen())
	}
}

func TestSetVariants(t *testing.T) {
	tests := []struct {
		name  string
		do    func(h *Hash, T uint64) bool
		field string
		added bool
		after view
	}{
		{"Set clears TTL", func(h *Hash, T uint64) bool { return h.Set(T, "vol", "x") }, "vol", false, view{true, "x", -1, -1}},
		{"Set on expired is new", func(h *Hash, T uint64) bool { return h.Set(T, "gone", "x") }, "gone", true, view{true, "x", -1, -1}},
		{"Set new", func(h *Hash, T uint64) bool { return h.Set(T, "nope", "x") }, "nope", true, view{true, "x", -1, -1}},
		{"KeepTTL keeps", func(h *Hash, T uint64) bool { return h.SetKeepTTL(T, "vol", "x") }, "vol", false, view{true, "x", 1000, 1000}},
		{"KeepTTL plain", func(h *Hash, T uint64) bool { return h.SetKeepTTL(T, "plain", "x") }, "plain", false, view{true, "x", -1, -1}},
		{"KeepTTL on expired drops old TTL", func(h *Hash, T uint64) bool { return h.SetKeepTTL(T, "gone", "x") }, "gone", true, view{true, "x", -1, -1}},
		{"SetExpireAt plain", func(h *Hash, T uint64) bool { return h.SetExpireAt(T, "plain", "x", T+5) }, "plain", false, view{true, "x", 5, 5}},
		{"SetExpireAt replaces TTL", func(h *Hash, T uint64) bool { return h.SetExpireAt(T, "vol", "x", T+5) }, "vol", false, view{true, "x", 5, 5}},
		{"SetExpireAt new", func(h *Hash, T uint64) bool { return h.SetExpireAt(T, "nope", "x", T+5) }, "nope", true, view{true, "x", 5, 5}},
		{"SetExpireAt now deletes", func(h *Hash, T uint64) bool { return h.SetExpireAt(T, "vol", "x", T) }, "vol", false, view{TTL: -2, ExpireAt: -2}},
		{"SetExpireAt past on missing", func(h *Hash, T uint64) bool { return h.SetExpireAt(T, "nope", "x", T-1) }, "nope", true, view{TTL: -2, ExpireAt: -2}},
		{"Delete live", func(h *Hash, T uint64) bool { return h.Delete(T, "vol") }, "vol", true, view{TTL: -2, ExpireAt: -2}},
		{"Delete expired reports absent", func(h *Hash, T uint64) bool { return h.Delete(T, "gone") }, "gone", false, view{TTL: -2, ExpireAt: -2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, T := fixture(t)
			if got := tc.do(h, T); got != tc.added {
				t.Fatalf("returned %v, want %v", got, tc.added)
			}
			want := tc.after
			if want.ExpireAt > 0 {
				want.ExpireAt += int64(T)
			}
			if diff := gocmp.Diff(want, look(h, T, tc.field)); diff != "" {
				t.Fatalf("field afterwards (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLenAndGetAllOnlyRead pins the HLEN and HGETALL decision: exact
// answers that skip expired fields without reclaiming them, next to
// StoredLen, Redis's O(1) count that includes them.
func TestLenAndGetAllOnlyRead(t *testing.T) {
	h, T := fixture(t)
	if got := h.Len(T); got != 3 {
		t.Fatalf("Len = %d, want 3", got)
	}
	if got := h.StoredLen(); got != 4 {
		t.Fatalf("StoredLen after Len = %d, want 4 (gone still stored)", got)
	}
	want := []Pair{{"plain", "p"}, {"vol", "v"}}
	if diff := gocmp.Diff(want, sortPairs(h.GetAll(T+1))); diff != "" {
		t.Fatalf("GetAll one millisecond later (-want +got):\n%s", diff)
	}
	if got := h.Len(T + 1); got != 2 {
		t.Fatalf("Len one millisecond later = %d, want 2", got)
	}
	if got := h.StoredLen(); got != 4 {
		t.Fatalf("StoredLen after GetAll = %d, want 4", got)
	}
	if got := h.ExpireSome(T+1, 10); got != 2 {
		t.Fatalf("ExpireSome reclaimed %d, want 2 (gone and edge)", got)
	}
	if at, ok := h.NextExpiry(); !ok || at != T+1000 {
		t.Fatalf("NextExpiry = %d, %v, want %d", at, ok, T+1000)
	}
	h.Persist(T, "vol")
	if at, ok := h.NextExpiry(); ok {
		t.Fatalf("NextExpiry = %d after the last TTL went, want none", at)
	}
}

// TestCountExpired checks the pruned heap walk behind Len against a plain
// count over every item, on heaps with many equal and nearby times.
func TestCountExpired(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	h := &Hash{}
	for i := range 3000 {
		h.SetExpireAt(t0, fmt.Sprint("f", i), "x", t0+1+r.Uint64N(300))
	}
	for now := t0; now <= t0+310; now += 7 {
		want := 0
		for _, it := range h.ttls {
			if it.Val < now {
				want++
			}
		}
		if got := h.countExpired(now); got != want {
			t.Fatalf("now %+d: countExpired = %d, want %d", now-t0, got, want)
		}
	}
}

// TestMassExpiry expires 100,000 fields at the same millisecond, among
// fields without TTL and fields expiring later, and reclaims them with
// ExpireSome: no call exceeds its budget, each does all the budget it can,
// nothing unexpired goes, and the heap gives its memory back.
func TestMassExpiry(t *testing.T) {
	const (
		n      = 100_000
		budget = 3000
		plain  = 1000
		later  = 500
	)
	T := t0 + 1000
	h := &Hash{}
	for i := range plain {
		h.Set(t0, fmt.Sprint("p", i), "x")
	}
	for i := range n {
		if !h.SetExpireAt(t0, fmt.Sprint("e", i), "x", T) {
			t.Fatalf("field e%d not new", i)
		}
	}
	for i := range later {
		h.SetExpireAt(t0, fmt.Sprint("l", i), "x", T+10+uint64(i))
	}
	peakCap := cap(h.ttls)
	if got := h.ExpireSome(T, math.MaxInt); got != 0 {
		t.Fatalf("ExpireSome at the expiry millisecond removed %d", got)
	}
	now := T + 1
	total, calls := 0, 0
	for {
		before := h.StoredLen()
		got := h.ExpireSome(now, budget)
		calls++
		if got > budget {
			t.Fatalf("call %d removed %d, budget %d", calls, got, budget)
		}
		if want := min(budget, n-total); got != want {
			t.Fatalf("call %d removed %d, want %d", calls, got, want)
		}
		if h.StoredLen() != before-got {
			t.Fatalf("call %d: StoredLen went from %d to %d, reported %d", calls, before, h.StoredLen(), got)
		}
		total += got
		if at, ok := h.NextExpiry(); total < n && (!ok || at != T) {
			t.Fatalf("call %d: NextExpiry = %d, %v with expired fields left", calls, at, ok)
		}
		if got == 0 {
			break
		}
	}
	if total != n || calls != (n+budget-1)/budget+1 {
		t.Fatalf("removed %d in %d calls", total, calls)
	}
	if got := h.Len(now); got != plain+later {
		t.Fatalf("Len = %d, want %d", got, plain+later)
	}
	for _, name := range []string{"p0", fmt.Sprint("p", plain-1), "l0", fmt.Sprint("l", later-1)} {
		if !h.Exists(now, name) {
			t.Fatalf("%s went missing", name)
		}
	}
	if at, ok := h.NextExpiry(); !ok || at != T+10 {
		t.Fatalf("NextExpiry = %d, %v, want %d", at, ok, T+10)
	}
	if c := cap(h.ttls); c > 4*later || c >= peakCap {
		t.Fatalf("heap capacity %d after the mass expiry (peak %d, %d items)", c, peakCap, len(h.ttls))
	}
	stored(t, 0, h)
}

// TestZeroValueAndEmpty checks that a zero Hash works and that emptying the
// heap releases it.
func TestZeroValueAndEmpty(t *testing.T) {
	var h Hash
	if _, ok := h.Get(t0, "a"); ok {
		t.Fatal("Get on empty hash found a field")
	}
	if h.Len(t0) != 0 || h.ExpireSome(t0, 10) != 0 || len(h.GetAll(t0)) != 0 {
		t.Fatal("empty hash is not empty")
	}
	if _, ok := h.NextExpiry(); ok {
		t.Fatal("empty hash has a NextExpiry")
	}
	h.SetExpireAt(t0, "a", "1", t0+1)
	h.Delete(t0, "a")
	if h.ttls != nil {
		t.Fatalf("heap not released: len %d cap %d", len(h.ttls), cap(h.ttls))
	}
}
