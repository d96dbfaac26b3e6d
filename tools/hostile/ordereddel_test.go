package hostile

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"example.com/byor/tools/internal/wire"
)

// TestOrderedDeletesCostNoMore: deleting keys in the key table's own order
// must cost the server no more than deleting them in a random order. The
// table's order is the order of the mixed hash, which a client could
// compute while the hash was the book's, unseeded; and every table kept
// that order, so the keys left after deleting the first ones were bunched
// in one stretch of the hash's range, which the smaller table of the next
// resize crowded into one long run of slots: 1,000,000 keys took 28.3 s
// of CPU to delete in that order, 1.7 s in a random one. Each order deletes
// from its own server; the verdict compares the two CPU times.
func TestOrderedDeletesCostNoMore(t *testing.T) {
	// For measuring by hand: HOSTILE_DELETE_KEYS=1000000.
	n := envInt("HOSTILE_DELETE_KEYS", 300000)
	keys := numberedKeys(n)
	// The table's order under the book's hash: the top bits of the hash
	// code times 2^64 over the golden ratio pick the slot, in every table.
	tableOrder := slices.Clone(keys)
	slot := func(k string) uint64 { return uint64(bookHash(k)) * 0x9E3779B97F4A7C15 >> 32 }
	slices.SortFunc(tableOrder, func(a, b string) int { return cmp.Compare(slot(a), slot(b)) })
	randomOrder := shuffled(keys, 5, 6)

	eachChapter(t, costlyBook, func(t *testing.T, ch string) {
		ordered := deleteWork(t, ch, keys, tableOrder)
		random := deleteWork(t, ch, keys, randomOrder)
		t.Logf("deleting %d keys: server CPU %v in the table's order, %v in a random order", n, ordered, random)
		if ordered > 2*random+50*time.Millisecond {
			t.Errorf("deleting in the table's order cost the server %v of CPU, in a random order %v", ordered, random)
		}
	})
	// Chapter 18 mixes every table's hash codes alike, so that SCAN's
	// cursor survives resizes: the order SCAN returns the keys in is the
	// hash's order in every table, and the table takes a new salt when
	// the walks of its puts show the keys crowding instead.
	t.Run("ch18_scan_multi", func(t *testing.T) {
		ordered := deleteWork(t, "ch18_scan_multi", keys, nil)
		random := deleteWork(t, "ch18_scan_multi", keys, randomOrder)
		t.Logf("deleting %d keys: server CPU %v in SCAN's order, %v in a random order", n, ordered, random)
		if ordered > 2*random+50*time.Millisecond {
			t.Errorf("deleting in SCAN's order cost the server %v of CPU, in a random order %v", ordered, random)
		}
	})
}

// deleteWork starts a server, sets keys, deletes them in the order given
// and returns the server's CPU time for the deletes. A nil order is the
// order the server's scan lists the keys in.
func deleteWork(t *testing.T, ch string, keys, order []string) time.Duration {
	p := startServer(t, ch, 0, longIdle...)
	defer p.Stop(5 * time.Second)
	c := dial(t, p.Addr)
	var reqs [][]string
	for _, k := range keys {
		reqs = append(reqs, []string{"set", k, "v"})
	}
	c.pipeline(reqs)
	if order == nil {
		order = scanOrder(t, c)
		if len(order) != len(keys) {
			t.Fatalf("scan listed %d keys of %d", len(order), len(keys))
		}
	}
	reqs = reqs[:0]
	for _, k := range order {
		reqs = append(reqs, []string{"del", k})
	}
	cpu0 := cpuTime(t, p.Pid())
	c.pipeline(reqs)
	return cpuTime(t, p.Pid()) - cpu0
}

// TestFlushAllCostNoMore: FLUSHALL (chapter 17, in Redis's protocol)
// deletes every key in the table's order, so it paid the same quadratic
// cost: 300,000 keys took 2.2 s of CPU, 1,000,000 took 29 s with the loop
// blocked. Its twin deletes the same keys one DEL at a time in a random
// order, parsing a request for each: FLUSHALL must cost no more than
// twice that.
func TestFlushAllCostNoMore(t *testing.T) {
	// For measuring by hand: HOSTILE_FLUSH_KEYS=1000000.
	keys := numberedKeys(envInt("HOSTILE_FLUSH_KEYS", 300000))
	randomOrder := shuffled(keys, 7, 8)
	eachChapter(t, costlyRESP, func(t *testing.T, ch string) { testFlushAllCost(t, ch, keys, randomOrder) })
}

func testFlushAllCost(t *testing.T, ch string, keys, randomOrder []string) {
	n := len(keys)
	random := deleteWork(t, ch, keys, randomOrder)

	p := startServer(t, ch, 0, longIdle...)
	c := dial(t, p.Addr)
	var reqs [][]string
	for _, k := range keys {
		reqs = append(reqs, []string{"set", k, "v"})
	}
	c.pipeline(reqs)
	r := dialRESP(t, respAddr(t, p))
	cpu0, start := cpuTime(t, p.Pid()), time.Now()
	if got := r.do(2*time.Minute, "FLUSHALL"); got != "+OK" {
		t.Fatalf("FLUSHALL: %q", got)
	}
	flush, wall := cpuTime(t, p.Pid())-cpu0, time.Since(start)
	if got := r.do(time.Minute, "DBSIZE"); got != ":0" {
		t.Fatalf("DBSIZE after FLUSHALL: %q", got)
	}
	t.Logf("%d keys: server CPU %v for FLUSHALL (answered in %v), %v for DELs in a random order", n, flush, wall.Round(time.Millisecond), random)
	if flush > 2*random+50*time.Millisecond {
		t.Errorf("FLUSHALL of %d keys cost the server %v of CPU, deleting them one by one %v", n, flush, random)
	}
}

// scanOrder lists the keys with the book protocol's scan (chapter 18), in
// the order it returns them.
func scanOrder(t *testing.T, c *client) []string {
	var keys []string
	for cursor := int64(0); ; {
		v := c.do("scan", fmt.Sprint(cursor), "1000")
		if v.Tag != wire.TagArr || len(v.Arr) != 2 || v.Arr[0].Tag != wire.TagInt {
			t.Fatalf("scan: %v", v)
		}
		for _, k := range v.Arr[1].Arr {
			keys = append(keys, string(k.Str))
		}
		if cursor = v.Arr[0].Int; cursor == 0 {
			return keys
		}
	}
}

// numberedKeys returns the n keys "key:0" to "key:n-1".
func numberedKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("key:%d", i)
	}
	return keys
}

// shuffled returns a copy of keys in the random order the seeds give.
func shuffled(keys []string, seed1, seed2 uint64) []string {
	out := slices.Clone(keys)
	rng := rand.New(rand.NewPCG(seed1, seed2))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
