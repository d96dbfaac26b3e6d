package keytable

import (
	"fmt"
	"math/rand/v2"
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
	m.cursor, m.steps, m.resized, m.salts = 0, 0, false, 0
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

// step runs one call of the scan and reports whether the scan is done.
// Every key it returns must be in the table now; m.last lists them.
func (m *scanModel) step(count int) bool {
	m.resized = m.resized || m.h.old.tags != nil
	m.last = m.last[:0]
	epoch := m.h.epoch
	next, work := m.h.Scan(m.cursor, count, func(it *item) {
		if !m.present[it.key] {
			m.t.Fatalf("Scan returned %q, which is not in the table", it.key)
		}
		m.got[it.key]++
		m.last = append(m.last, it.key)
	})
	if m.cursor != 0 && uint32(m.cursor>>32) != epoch {
		m.salts++ // the walk started over
	} else if work < 0 || next != 0 && next <= m.cursor {
		m.t.Fatalf("Scan(%d, %d) = %d, %d: the cursor must move forward", m.cursor, count, next, work)
	}
	if next != 0 && uint32(next>>32) != epoch {
		m.t.Fatalf("Scan returned cursor %#x in epoch %d", next, epoch)
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
			done = m.step(1 + rng.IntN(64))
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
			for range 5 { // lookups move entries along a resize
				get(m.h, Hash[string], "none")
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
			if done = m.step(16); m.salts == 0 {
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

// TestScanSmall: a scan of a table that fits in one step ends at once,
// and the empty and zero tables end at once too; a cursor of another
// epoch starts the scan over.
func TestScanSmall(t *testing.T) {
	var zero Table[item]
	if next, work := zero.Scan(0, 10, func(*item) { t.Error("a zero table returned an entry") }); next != 0 || work != 0 {
		t.Errorf("zero table: Scan = %d, %d", next, work)
	}
	h := newItems(strHash)
	for i := range 3 {
		k := fmt.Sprint(i)
		h.Insert(strHash(k), &item{k, i})
	}
	n := 0
	if next, _ := h.Scan(0, 10, func(*item) { n++ }); next != 0 || n != 3 {
		t.Errorf("3 keys, count 10: next %d, %d keys", next, n)
	}
	for _, c := range []uint64{1 << 32, 1<<64 - 1} {
		n := 0
		if next, _ := h.Scan(c, 10, func(*item) { n++ }); next != 0 || n != 3 {
			t.Errorf("cursor %#x: next %d, %d keys", c, next, n)
		}
	}
	// Count 1 covers one slot a call: the scan still ends, with every key.
	n, steps := 0, 0
	for c := uint64(0); ; steps++ {
		c, _ = h.Scan(c, 1, func(*item) { n++ })
		if c == 0 {
			break
		}
	}
	if n != 3 || steps != len(h.cur.tags)-1 {
		t.Errorf("count 1: %d keys in %d calls, table of %d slots", n, steps+1, len(h.cur.tags))
	}
}

// TestScanCollisions: keys that all share a hash code sit in one run of
// slots that wraps around the end of the table; a scan returns each once.
func TestScanCollisions(t *testing.T) {
	for _, code := range []uint64{0, 1 << 63, 1<<64 - 1} {
		same := func(string) uint64 { return code }
		h := newItems(same)
		for i := range 50 {
			k := fmt.Sprint(i)
			h.Insert(same(k), &item{k, i})
		}
		got := map[string]int{}
		for c := uint64(0); ; {
			c, _ = h.Scan(c, 3, func(it *item) { got[it.key]++ })
			if c == 0 {
				break
			}
		}
		for i := range 50 {
			if n := got[fmt.Sprint(i)]; n != 1 {
				t.Fatalf("code %#x: key %d returned %d times", code, i, n)
			}
		}
	}
}

// FuzzScan reads the input as operations on a table (insert or delete
// keys, singly or by the hundred; keep those of a band of the hash's
// range, which leads to new salts; look one up, which moves a resize
// along) mixed with the steps of a scan, and checks the guarantee when the
// scan ends.
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
		for _, op := range ops {
			arg := int(op & 0x3F)
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
				for range arg & 0xF {
					get(m.h, Hash[string], "none")
				}
			case 3:
				if done {
					m.check()
					m.start()
				}
				done = m.step(1 + arg)
			}
		}
		for !done {
			done = m.step(64)
		}
		m.check()
	})
}
