package keytable

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// scanModel follows one scan through a table against a map of the keys
// present: which keys were present when the scan started and never left,
// which ever were, and how often the scan returned each.
type scanModel struct {
	t       testing.TB
	h       *Table[item]
	present map[string]bool // the keys in the table now
	stayed  map[string]bool // present at the start, never deleted since
	ever    map[string]bool // present at some time during the scan
	got     map[string]int  // returned by the scan, how often
	cursor  uint64
	steps   int
	resized bool     // a step ran while a resize was under way
	last    []string // the keys the last step returned
	grows   int      // new tables larger, and smaller, than the one before
	shrinks int
	salts   int // new salts the table took during this scan
	stalls  int // calls that returned their own cursor (a change of salt)
}

func newScanModel(t testing.TB) *scanModel {
	m := &scanModel{t: t, h: newItems(Hash[string]), present: map[string]bool{}}
	m.start()
	return m
}

// start begins a scan over the keys present now.
func (m *scanModel) start() {
	m.stayed, m.ever, m.got = map[string]bool{}, map[string]bool{}, map[string]int{}
	for k := range m.present {
		m.stayed[k], m.ever[k] = true, true
	}
	m.cursor, m.steps, m.resized, m.salts, m.stalls = 0, 0, false, 0, 0
}

func (m *scanModel) insert(k string) {
	if m.present[k] {
		return
	}
	size := len(m.h.cur.tags)
	m.h.Insert(Hash(k), &item{key: k})
	m.present[k], m.ever[k] = true, true
	m.resizes(size)
}

func (m *scanModel) delete(k string) {
	size := len(m.h.cur.tags)
	if del(m.h, Hash[string], k) == nil != !m.present[k] {
		m.t.Fatalf("Delete(%q) disagrees with the map", k)
	}
	delete(m.present, k)
	delete(m.stayed, k)
	m.resizes(size)
}

// resizes counts a change of cur's size from size.
func (m *scanModel) resizes(size int) {
	switch n := len(m.h.cur.tags); {
	case size != 0 && n > size:
		m.grows++
	case n < size:
		m.shrinks++
	}
}

// step runs one call of the scan with a budget of work and reports
// whether the scan is done; fn takes at most take groups of entries (all
// if take is 0). Every key it returns must be in the table now; m.last
// lists them. While the table changes its salt, a call returns no key and
// the cursor of the new epoch's start, and does the change's work.
func (m *scanModel) step(count, budget, take int) bool {
	m.resized = m.resized || m.h.resizing()
	m.last = m.last[:0]
	epoch, migrating := m.h.epoch, m.h.migrating()
	groups, prev := 0, int64(-1)
	next, work := m.h.Scan(m.cursor, count, budget, func(g []*item) bool {
		if take > 0 && groups == take {
			return false
		}
		groups++
		p := int64(place(m.h, Hash(g[0].key)))
		if p <= prev {
			m.t.Fatalf("Scan gave place %d after %d: not in order, or a place split", p, prev)
		}
		prev = p
		for _, it := range g {
			if !m.present[it.key] {
				m.t.Fatalf("Scan returned %q, which is not in the table", it.key)
			}
			if place(m.h, Hash(it.key)) != uint64(p) {
				m.t.Fatalf("Scan gave %q in a group of another place", it.key)
			}
			m.got[it.key]++
			m.last = append(m.last, it.key)
		}
		return true
	})
	switch {
	case migrating:
		if next != uint64(epoch)<<32 || len(m.last) > 0 || work <= 0 {
			m.t.Fatalf("Scan(%#x) during a change of salt = %#x, %d keys, work %d", m.cursor, next, len(m.last), work)
		}
		if m.cursor != 0 && m.cursor != next {
			m.salts++ // the walk starts over
		}
	case m.cursor != 0 && uint32(m.cursor>>32) != epoch:
		m.salts++ // the walk started over
	case work < 0 || next != 0 && next <= m.cursor:
		m.t.Fatalf("Scan(%d, %d) = %d, %d: the cursor must move forward", m.cursor, count, next, work)
	}
	if next != 0 && uint32(next>>32) != epoch {
		m.t.Fatalf("Scan returned cursor %#x in epoch %d", next, epoch)
	}
	if m.cursor != 0 && m.cursor == next {
		m.stalls++
	}
	m.cursor = next
	m.steps++
	return next == 0
}

// check verifies the guarantee once the scan is done: no key returned
// that was never present, every key present throughout returned; each
// exactly once if the salt never changed, else at least once, and at most
// once per pass (each new salt starts one).
func (m *scanModel) check() {
	m.t.Helper()
	most := 1 + m.salts
	for k, n := range m.got {
		if n > most {
			m.t.Fatalf("Scan returned %q %d times in %d passes", k, n, most)
		}
		if !m.ever[k] {
			m.t.Fatalf("Scan returned %q, never in the table", k)
		}
	}
	for k := range m.stayed {
		if n := m.got[k]; n < 1 || m.salts == 0 && n != 1 {
			m.t.Fatalf("%q was in the table throughout, and Scan returned it %d times in %d passes", k, n, most)
		}
	}
}

// band inserts n new keys, named from id on, keeping only those that fall
// in the first sixteenth of the hash's range now, as a client that reads
// Scan's order can; it returns the next id.
func (m *scanModel) band(id, n int) int {
	for range n {
		k := fmt.Sprintf("b%d", id)
		id++
		if m.insert(k); place(m.h, Hash(k)) >= 1<<28 {
			m.delete(k)
		}
	}
	return id
}

// anyKey returns a key present now, or "".
func (m *scanModel) anyKey() string {
	for k := range m.present {
		return k
	}
	return ""
}

// TestScanWhileChanging runs scans while every step inserts keys by the
// hundred and deletes them, so that the table grows and shrinks, and moves
// entries from one table to the next, in the middle of each scan. Some of
// the deletes take the keys the scan has just returned, in its order, as
// a client emptying the key space with SCAN and DEL does.
func TestScanWhileChanging(t *testing.T) {
	m := newScanModel(t)
	rng := rand.New(rand.NewPCG(7, 8))
	id := 0
	add := func(n int) {
		for range n {
			m.insert(fmt.Sprintf("k%d", id))
			id++
		}
	}
	add(3000)
	// Between 2,000 and 8,000 keys, the table grows by half and shrinks
	// by half several times in each scan of a few hundred steps.
	growing := true
	scans, resized := 0, 0
	for round := range 12 {
		m.start()
		for done := false; !done; {
			done = m.step(1+rng.IntN(64), 1<<30, 0)
			switch n := m.h.Len(); {
			case n < 2000:
				growing = true
			case n > 8000:
				growing = false
			}
			switch {
			case growing:
				add(100)
				for range 30 {
					m.delete(m.anyKey())
				}
			case round%2 == 1: // delete the keys just returned, in order
				for _, k := range m.last {
					m.delete(k)
				}
				for range 150 - len(m.last) {
					m.delete(m.anyKey())
				}
				add(10)
			default:
				for range 150 {
					m.delete(m.anyKey())
				}
				add(10)
			}
			for range 5 { // requests' steps move entries along a resize
				m.h.Step(64)
			}
		}
		m.check()
		scans++
		if m.resized {
			resized++
		}
	}
	t.Logf("%d scans, %d of them across a resize; %d tables grew, %d shrank", scans, resized, m.grows, m.shrinks)
	if resized < scans/2 || m.grows < scans || m.shrinks < scans {
		t.Errorf("%d of %d scans ran across a resize, %d grew, %d shrank: the test does not exercise resizes", resized, scans, m.grows, m.shrinks)
	}
}

// TestScanAcrossSalts: scans while a client keeps the keys it finds in a
// sixteenth of the hash's range and deletes the others, between the
// steps, until the table takes a new salt in the middle of each scan. A
// key present throughout is still returned (at least once), and none is
// returned that was never there.
func TestScanAcrossSalts(t *testing.T) {
	m := newScanModel(t)
	for i := range 3000 {
		m.insert(fmt.Sprintf("s%d", i))
	}
	id := 0
	for range 3 {
		m.start()
		for done := false; !done; {
			if done = m.step(16, 1<<30, 0); m.salts == 0 {
				id = m.band(id, 50)
			}
		}
		m.check()
		if m.salts == 0 {
			t.Fatalf("a scan of %d steps, %d inserts so far: the table kept its salt", m.steps, id)
		}
	}
	t.Logf("3 scans, each across a new salt; %d inserts, %d new salts", id, m.h.epoch)
}

// scanAll runs a whole scan of h with count and budget, and returns how
// often it returned each key and how many calls it took.
func scanAll(h *Table[item], count, budget int) (map[string]int, int) {
	got, calls := map[string]int{}, 0
	for c := uint64(0); ; {
		c, _ = h.Scan(c, count, budget, func(g []*item) bool {
			for _, it := range g {
				got[it.key]++
			}
			return true
		})
		calls++
		if c == 0 {
			return got, calls
		}
	}
}

// TestScanSmall: a scan of a table that fits in one step ends at once,
// and the empty and zero tables end at once too; a cursor of another
// epoch starts the scan over.
func TestScanSmall(t *testing.T) {
	var zero Table[item]
	if next, work := zero.Scan(0, 10, 100, func([]*item) bool { t.Error("a zero table returned an entry"); return true }); next != 0 || work != 0 {
		t.Errorf("zero table: Scan = %d, %d", next, work)
	}
	h := newItems(strHash)
	for i := range 3 {
		k := fmt.Sprint(i)
		h.Insert(strHash(k), &item{k, i})
	}
	n := 0
	count := func(g []*item) bool { n += len(g); return true }
	if next, _ := h.Scan(0, 10, 100, count); next != 0 || n != 3 {
		t.Errorf("3 keys, count 10: next %d, %d keys", next, n)
	}
	for _, c := range []uint64{1 << 32, 1<<64 - 1} {
		n = 0
		if next, _ := h.Scan(c, 10, 100, count); next != 0 || n != 3 {
			t.Errorf("cursor %#x: next %d, %d keys", c, next, n)
		}
	}
	// Count 1 covers one slot a call: the scan still ends, with every key.
	got, calls := scanAll(h, 1, 100)
	if len(got) != 3 || calls != len(h.cur.tags) {
		t.Errorf("count 1: %d keys in %d calls, table of %d slots", len(got), calls, len(h.cur.tags))
	}
}

// TestScanCollisions: keys that all share a hash code sit in one run of
// slots that wraps around the end of the table; a scan returns each once,
// all in one group (one place), whatever the count and budget.
func TestScanCollisions(t *testing.T) {
	for _, code := range []uint64{0, 1 << 63, 1<<64 - 1} {
		same := func(string) uint64 { return code }
		h := newItems(same)
		for i := range 50 {
			k := fmt.Sprint(i)
			h.Insert(same(k), &item{k, i})
		}
		for _, budget := range []int{1, 1 << 30} {
			got, _ := scanAll(h, 3, budget)
			for i := range 50 {
				if n := got[fmt.Sprint(i)]; n != 1 {
					t.Fatalf("code %#x, budget %d: key %d returned %d times", code, budget, i, n)
				}
			}
		}
	}
}

// TestScanBudget: a call's work passes its budget by at most a run of
// full slots and the weights in it, its stretch cut short at an empty slot;
// the calls still return every key once. Weighing the keys' bytes, a
// scan of long keys takes calls in proportion to their bytes, each with
// about the budget's work.
func TestScanBudget(t *testing.T) {
	for _, long := range []bool{false, true} {
		h := New(func(it *item) uint64 { return Hash(it.key) }, func(it *item) int { return len(it.key) })
		want := map[string]bool{}
		for i := range 5000 {
			k := fmt.Sprint("key:", i)
			if long {
				k += strings.Repeat("x", 1000)
			}
			h.Insert(Hash(k), &item{k, i})
			want[k] = true
		}
		finish(h)
		const budget = 20000
		got, calls, worst := map[string]int{}, 0, 0
		for c := uint64(0); ; {
			var work int
			c, work = h.Scan(c, 1<<14, budget, func(g []*item) bool {
				for _, it := range g {
					got[it.key]++
				}
				return true
			})
			calls++
			worst = max(worst, work)
			if c == 0 {
				break
			}
		}
		for k := range want {
			if got[k] != 1 {
				t.Fatalf("long %v: %q returned %d times", long, k, got[k])
			}
		}
		// A run of full slots is walked whole, in one call.
		run := longestRun(&h.cur)
		t.Logf("5,000 keys, long %v: %d calls of budget %d, the costliest %d; the longest run %d slots", long, calls, budget, worst, run)
		if weight := len("key:0000") + 1000; worst > budget+(run+1)*(weight+1) {
			t.Errorf("long %v: a call of budget %d did %d units of work", long, budget, worst)
		}
		if long && calls < 5000*1000/budget/2 {
			t.Errorf("5 MB of keys in %d calls of budget %d: their bytes are not weighed", calls, budget)
		}
	}
}

// longestRun returns the length of the longest run of full slots in t.
func longestRun(t *tab[item]) int {
	longest, run := 0, 0
	for range 2 { // twice round, for the run across the end
		for _, tag := range t.tags {
			if run++; tag == tagEmpty {
				run = 0
			}
			longest = max(longest, run)
		}
	}
	return min(longest, len(t.tags))
}

// TestScanTakesSome: fn takes one group a call, and the next call starts
// at the group it refused: every key once, a call per key.
func TestScanTakesSome(t *testing.T) {
	h := newItems(Hash[string])
	for i := range 300 {
		k := fmt.Sprint(i)
		h.Insert(Hash(k), &item{k, i})
	}
	got, calls := map[string]int{}, 0
	for c := uint64(0); ; calls++ {
		took := false
		c, _ = h.Scan(c, 1<<14, 1<<30, func(g []*item) bool {
			if took {
				return false
			}
			took = true
			for _, it := range g {
				got[it.key]++
			}
			return true
		})
		if c == 0 {
			break
		}
	}
	if len(got) != 300 || calls != 299 {
		t.Errorf("one group a call: %d keys in %d calls", len(got), calls+1)
	}
	for k, n := range got {
		if n != 1 {
			t.Fatalf("%q returned %d times", k, n)
		}
	}
}

// TestScanDuringChangeOfSalt: while the entries move to the array of a
// new salt, Scan walks nothing, returns the new epoch's start, and moves
// them along by its budget; once they have moved, that cursor walks the
// new epoch from its start, and returns every key once.
func TestScanDuringChangeOfSalt(t *testing.T) {
	h := newItems(Hash[string])
	for i := range 20000 {
		k := fmt.Sprint(i)
		h.Insert(Hash(k), &item{k, i})
	}
	finish(h)
	mid, _ := h.Scan(0, 100, 1<<30, func([]*item) bool { return true })
	h.resalt()
	calls, moved := 0, h.moved
	c := mid
	for h.migrating() {
		next, work := h.Scan(c, 100, StepWork, func([]*item) bool { t.Fatal("a key returned during the change"); return true })
		if next != uint64(h.epoch)<<32 || work < StepWork && h.migrating() {
			t.Fatalf("Scan during the change = %#x, work %d", next, work)
		}
		c = next
		calls++
	}
	t.Logf("%d slots moved in %d calls", h.moved-moved, calls)
	got, _ := scanAll(h, 100, 1<<30)
	if len(got) != 20000 {
		t.Errorf("after the change, a scan returned %d keys of 20000", len(got))
	}
}

// FuzzScan reads the input as operations on a table (insert or delete
// keys, singly or by the hundred; keep those of a band of the hash's
// range, which leads to new salts; Step, which moves a resize along)
// mixed with the steps of a scan, each with a budget of work and a number
// of groups it takes (from the byte before it: small budgets and few
// groups cut the stretches short), and checks the guarantee when the scan
// ends.
func FuzzScan(f *testing.F) {
	f.Add([]byte{0x80, 0x81, 0x00, 0x40, 0xC3, 0x82, 0xC1, 0x01, 0x41, 0xC5})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0xC0, 0x90, 0x90, 0x90, 0xC1, 0xC1, 0xC1, 0xC1})
	f.Add([]byte{0xC3, 0xA0, 0xA0, 0xC3, 0xA0, 0xA0, 0xA0, 0xC3, 0xA0, 0xA0, 0xA0, 0xC3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := newScanModel(t)
		id := 0
		for i := range 500 { // a table of some size to start with
			m.insert(fmt.Sprintf("s%d", i))
		}
		m.start()
		done := false
		prev := byte(0)
		for _, op := range ops {
			arg := int(op & 0x3F)
			budget, take := 1+int(prev&0x3F)*8, int(prev>>6)
			prev = op
			switch op >> 6 {
			case 0:
				m.insert(fmt.Sprintf("f%d", arg))
			case 1:
				m.delete(fmt.Sprintf("f%d", arg))
			case 2:
				switch {
				case arg&0x20 != 0:
					id = m.band(id, 400)
				case arg&0x10 == 0:
					for range 100 {
						m.insert(fmt.Sprintf("n%d", id))
						id++
					}
				default:
					for range 100 {
						m.delete(m.anyKey())
					}
				}
				m.h.Step(int(arg&0xF) * 16)
			case 3:
				if done {
					m.check()
					m.start()
				}
				// The low bits: the count; the operation before, the
				// budget and how many groups to take.
				done = m.step(1+arg, budget, take)
			}
		}
		for !done {
			done = m.step(64, 1<<30, 0)
		}
		m.check()
	})
}
