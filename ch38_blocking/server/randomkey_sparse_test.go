package server

import (
	"strconv"
	"strings"
	"testing"
)

// TestRandomKeySparse: a key table that deletes left sparse (100,000 keys
// made, all but 3 deleted) is shrunk by the first RANDOMKEY, whose work
// EXEC's weighing bounds; the RANDOMKEYs after it each probe a bounded
// stretch, as over a table of that size from the start, instead of
// walking every empty slot again.
func TestRandomKeySparse(t *testing.T) {
	resetData(t)
	const n = 100_000
	sparseKeys(n)
	bound := costRandomKey(&execPlan{}, nil)
	before := workDone
	if got := respRun(t, "RANDOMKEY"); !strings.HasPrefix(got, "$") || got == "$-1\r\n" {
		t.Fatalf("RANDOMKEY: %q", got)
	}
	if did := workDone - before; did > bound {
		t.Errorf("the first RANDOMKEY over a sparse table did %d units of work, weighed at %d", did, bound)
	}
	seen := map[string]bool{}
	for range 200 {
		before := workDone
		got := respRun(t, "RANDOMKEY")
		if !strings.HasPrefix(got, "$") || got == "$-1\r\n" {
			t.Fatalf("RANDOMKEY: %q", got)
		}
		seen[got] = true
		if did := workDone - before; did > kRandomTries*kRandomWork+8 {
			t.Fatalf("RANDOMKEY did %d units of work over %d keys left of %d", did, gData.db.Len(), n)
		}
	}
	// Not stuck on one key, as the walk from place 0 was: each of the 3
	// comes (not equally often, as in Redis).
	if len(seen) != 3 {
		t.Errorf("RANDOMKEY answered %d keys in 200 tries, want each of the 3", len(seen))
	}
}

// TestExecRandomKeySparse: a transaction of RANDOMKEYs over a sparse key
// table is weighed with the shrink the first one does.
func TestExecRandomKeySparse(t *testing.T) {
	resetTx(t)
	var runs int
	execDone = func(weighed, did []int) {
		runs++
		for i := range weighed {
			if did[i] > weighed[i] {
				t.Errorf("EXEC: command %d did %d units of work, weighed at %d", i, did[i], weighed[i])
			}
		}
	}
	t.Cleanup(func() { execDone = nil })
	const n = 100_000
	sparseKeys(n)
	a := newTxClient(t)
	a.do("MULTI")
	for range 50 {
		a.do("RANDOMKEY")
	}
	if got := a.do("EXEC"); !strings.HasPrefix(got, "*50") {
		t.Fatalf("EXEC: %.60q", got)
	}
	if runs != 1 {
		t.Fatalf("%d transactions ran, want 1", runs)
	}
}

// sparseKeys makes keys k0 to k(n-1), then deletes all but the last 3,
// which leaves the key table as large as n keys made it.
func sparseKeys(n int) {
	for i := range n {
		insertEntry(newEntry("k"+strconv.Itoa(i), []byte("v")))
	}
	for i := range n - 3 {
		ent := lookupEntry([]byte("k" + strconv.Itoa(i)))
		removeEntry(ent)
		entryDel(ent)
	}
}

// TestRandomKeyReachesEveryKey: in key spaces of five keys, each with its
// own salt, RANDOMKEY answers every key. A key placed just after the start
// of the key table's order was in almost no stretch before the stretches
// went on past the end of the order to its start, and one key space in a
// couple of hundred had such a key.
func TestRandomKeyReachesEveryKey(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e"}
	fewest := 500
	for space := range 1000 {
		resetData(t)
		for _, k := range keys {
			insertEntry(newEntry(k, []byte("v")))
		}
		seen := map[string]int{}
		for range 500 {
			seen[randomEntry().key()]++
		}
		for _, k := range keys {
			if seen[k] == 0 {
				t.Fatalf("key space %d: RANDOMKEY answered %v in 500 tries, never %q", space, seen, k)
			}
			fewest = min(fewest, seen[k])
		}
	}
	t.Logf("the least answered key: %d times in 500", fewest)
}
