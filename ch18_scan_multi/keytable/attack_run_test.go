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
// the puts pass kPutWalk a put on average plus kPutWalkSlack; the walks of
// lookups are never weighed. A client keeps the keys it finds homed in one
// stretch of a freshly resized table, and stops putting just before the
// sum of the put walks would pass the bound: the slack banked by the
// ordinary puts before it (about 2.5 a put) pays for one run thousands of
// slots long, which stays for good. Every lookup of an absent key homed at
// its start then walks all of it: GET, EXISTS, and MGET of 8191 such keys
// counted as 8192 items of work.
func TestAttackLookupRunUnderBound(t *testing.T) {
	h := newItems(Hash[string])
	// Ordinary keys, until a resize has started past 60,000 of them;
	// then lookups finish it, so cur is a new array about half full.
	for i := 0; i < 60000 || h.old.tags == nil; i++ {
		k := fmt.Sprintf("bank:%d", i)
		h.Insert(Hash(k), &item{k, i})
	}
	for h.old.tags != nil {
		get(h, Hash[string], "absent")
	}
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
	if h.epoch != epoch {
		t.Fatalf("the salt changed: the attack was noticed")
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
	crafted := absentWalk(h, func(k string) bool {
		s := cur.home(cur.mix(Hash(k)))
		return s >= runStart && s < runStart+8
	})
	t.Logf("%d keys, %d slots; %d keys kept in a stretch of %d slots, put walks %d for %d puts (bound %d); longest run %d slots; an absent key's lookup walks %.0f slots homed at its start, %.1f at random before the attack",
		h.Len(), n, kept, width, cur.putWalk, cur.puts, kPutWalk*cur.puts+kPutWalkSlack, runLen, crafted, honest)
	if crafted > 64*honest {
		t.Errorf("a lookup at the crowded stretch walks %.0f slots, %.0f times a random one's before the attack, and the salt stays", crafted, crafted/honest)
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
