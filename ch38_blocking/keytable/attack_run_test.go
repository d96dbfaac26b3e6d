package keytable

import (
	"fmt"
	"testing"
)

// walkFrom returns how many slots a put with mixed hash m would look at
// in t now: what a client can work out from Scan's order and cursors
// (a Scan of COUNT 1 covers one slot, so its cursors give each key's home).
func walkFrom(t *tab[item], m uint64) int {
	i, n := t.home(m), 1
	for ; t.tags[i] > tagDeleted; n++ {
		i = t.after(i)
	}
	return n
}

// TestAttackLookupRunUnderBound: the new salt is taken when the walks of
// the puts pass kPutWalk a put on average plus kPutWalkSlack. A client
// keeps the keys it finds homed in one stretch of a freshly resized table,
// and stops putting just before the sum of the put walks would pass the
// bound: the slack banked by the ordinary puts before it (about 2.5 a put)
// pays for one run thousands of slots long. Every lookup of an absent key
// homed at its start walks all of it (GET, EXISTS, and MGET of 8191 such
// keys counted as 8192 items of work), and were the walks of lookups not
// weighed, the run would stay for good. They are, by windows of
// kFindWindow finds: the window in which the client looks its keys up
// ends with a new salt, and from then on the same lookups cost what
// random ones do. The find of a delete (DEL of absent keys) walks the run
// as a lookup does, and is weighed alike.
func TestAttackLookupRunUnderBound(t *testing.T) {
	t.Run("Lookup", func(t *testing.T) {
		attackRun(t, func(h *Table[item], k string) { get(h, Hash[string], k) })
	})
	t.Run("Delete", func(t *testing.T) {
		attackRun(t, func(h *Table[item], k string) { del(h, Hash[string], k) })
	})
}

// attackRun builds the run and finds absent keys homed at its start with
// find, again and again.
func attackRun(t *testing.T, find func(h *Table[item], k string)) {
	h := newItems(Hash[string])
	// Ordinary keys, until a resize has started past 60,000 of them;
	// then lookups finish it, so cur is a new array about half full.
	for i := 0; i < 60000 || !h.resizing(); i++ {
		k := fmt.Sprintf("bank:%d", i)
		h.Insert(Hash(k), &item{k, i})
	}
	finish(h)
	honest := absentWalk(h, func(string) bool { return true })
	cur := &h.cur
	n := len(cur.tags)
	start, width := n/3, 4000
	in := func(k string) bool {
		s := cur.home(cur.mix(Hash(k)))
		return s >= start && s < start+width
	}
	epoch, kept := h.epoch, 0
	for j := 0; ; j++ {
		k := fmt.Sprintf("crowd:%d", j)
		if !in(k) {
			continue
		}
		walk := walkFrom(cur, cur.mix(Hash(k)))
		if cur.putWalk+walk > kPutWalk*(cur.puts+1)+kPutWalkSlack-8 {
			break // the next put could pass the bound: stop here
		}
		h.Insert(Hash(k), &item{k, j})
		kept++
	}
	puts, putWalk := cur.puts, cur.putWalk
	if h.epoch != epoch {
		t.Fatalf("the salt changed: the puts' bound noticed the attack, and this test no longer shows the lookups' part")
	}
	// The longest run of taken slots, and absent keys homed at its start.
	runStart, runLen := 0, 0
	for i := 0; i < n; {
		j := i
		for j < n && cur.tags[j] > tagEmpty {
			j++
		}
		if j-i > runLen {
			runStart, runLen = i, j-i
		}
		i = j + 1
	}
	var crafted []string
	for j := 0; len(crafted) < 100; j++ {
		k := fmt.Sprintf("absent:%d", j)
		if s := cur.home(cur.mix(Hash(k))); s >= runStart && s < runStart+8 {
			crafted = append(crafted, k)
		}
	}
	// lookUp finds the crafted keys, m times in turn, each a request with
	// the Step the server takes after it, and returns the slots a find
	// walked on average.
	next := 0
	lookUp := func(m int) float64 {
		before := h.probes()
		for range m {
			find(h, crafted[next%len(crafted)])
			next++
			h.Step(StepWork)
		}
		return float64(h.probes()-before) / float64(m)
	}
	// The first lookup walks the run: no window can end before it has.
	first := lookUp(1)
	// A window ends within the next kFindWindow lookups with a new salt;
	// the entries then move to the new array as in a resize, a Step at a
	// time, while the finds walk the old one too. The ones after the move
	// are measured.
	lookUp(kFindWindow)
	steps := 0
	for ; h.resizing(); steps++ {
		lookUp(1)
	}
	after := lookUp(kFindWindow)
	t.Logf("%d keys, %d slots; %d keys kept in a stretch of %d slots, put walks %d for %d puts (bound %d); longest run %d slots; an absent key homed at its start walks %.0f slots, %.1f at random; %d new salts, moved in %d more requests, then %.1f slots a lookup over the next %d",
		h.Len(), n, kept, width, putWalk, puts, kPutWalk*puts+kPutWalkSlack, runLen, first, honest, h.epoch-epoch, steps, after, kFindWindow)
	if first < 64*honest {
		t.Fatalf("a lookup at the crowded stretch walks %.0f slots, a random one %.1f: the attack did not crowd the table", first, honest)
	}
	if steps > 3*n/StepWork {
		t.Errorf("the change of salt took %d requests, for %d slots", steps, n)
	}
	if after > kFindWalk {
		t.Errorf("after %d lookups along the run, one still walks %.0f slots on average, %.0f times a random one's, after %d new salts", kFindWindow, after, after/honest, h.epoch-epoch)
	}
}

// absentWalk returns the slots a lookup of an absent key that pick accepts
// looks at, on average over 100 of them.
func absentWalk(h *Table[item], pick func(string) bool) float64 {
	before, found := h.probes(), 0
	for j := 0; found < 100; j++ {
		k := fmt.Sprintf("absent:%d", j)
		if pick(k) {
			get(h, Hash[string], k)
			found++
		}
	}
	return float64(h.probes()-before) / 100
}
