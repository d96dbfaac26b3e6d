package hostile

import (
	"testing"
	"time"
)

// TestCraftedKeysCostNoMore: keys crafted to share one hash code must cost
// the server no more than random keys of the same length. With the book's
// unseeded hash in the key space, every such key walked the run of slots
// of all the keys before it: 100,000 of them took 15.7 s of the server's
// CPU against 0.2 s for random keys. Each kind loads its own server, and
// the verdict compares the two CPU times of the same run, not a time.
func TestCraftedKeysCostNoMore(t *testing.T) {
	n, rounds := 10000, 10
	// For measuring by hand: HOSTILE_CRAFTED_KEYS=100000.
	n = envInt("HOSTILE_CRAFTED_KEYS", n)
	eachChapter(t, costlyBook, func(t *testing.T, ch string) {
		crafted := keyWork(t, ch, collidingKeys(t, n), rounds)
		random := keyWork(t, ch, randomKeys(n), rounds)
		t.Logf("%d keys set, then each got %d times: server CPU %v for crafted keys, %v for random ones", n, rounds, crafted, random)
		if crafted > 2*random+50*time.Millisecond {
			t.Errorf("crafted keys cost the server %v of CPU, random ones %v", crafted, random)
		}
	})
}

// keyWork starts a server, sets every key and gets each rounds times, and
// returns the server's CPU time for that work.
func keyWork(t *testing.T, ch string, keys []string, rounds int) time.Duration {
	p := startServer(t, ch, 0, longIdle...)
	defer p.Stop(5 * time.Second)
	c := dial(t, p.Addr)
	cpu0 := cpuTime(t, p.Pid())
	var reqs [][]string
	for _, k := range keys {
		reqs = append(reqs, []string{"set", k, "v"})
	}
	c.pipeline(reqs)
	reqs = reqs[:0]
	for range rounds {
		for _, k := range keys {
			reqs = append(reqs, []string{"get", k})
		}
	}
	c.pipeline(reqs)
	return cpuTime(t, p.Pid()) - cpu0
}
