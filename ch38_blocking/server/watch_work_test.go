package server

import (
	"fmt"
	"testing"
)

// watchEntries counts the connections watching each key, summed over the
// keys: the entries of the maps in watchers.
func watchEntries() int {
	n := 0
	for _, set := range watchers {
		n += len(set)
	}
	return n
}

// TestWatchWriteCost: a write costs what the written key's watchers cost.
// Twenty clients each watch the same 5,000 keys; one SET of one of them
// removes the 20 watches of that key and no other. Each watcher then stops
// watching its other keys at its own EXEC, which counts them in its work.
// Before, the SET unwatched every key of every watcher at once: 100,000
// map operations in one request (with 34 clients of 10,000 keys, hundreds
// of milliseconds). What the watches held is given back either way.
func TestWatchWriteCost(t *testing.T) {
	const clients, keys = 20, 5000
	resetTx(t)
	args := []string{"WATCH"}
	for i := range keys {
		args = append(args, fmt.Sprint("key:", i))
	}
	var cs []*txClient
	for range clients {
		c := newTxClient(t)
		c.expect(okReply, args...)
		cs = append(cs, c)
	}
	if n := watchEntries(); n != clients*keys {
		t.Fatalf("%d watches, want %d", n, clients*keys)
	}
	held := inputHeld
	w := newTxClient(t)
	w.expect(okReply, "SET", "key:7", "v")
	if n := watchEntries(); n != clients*(keys-1) {
		t.Fatalf("one SET of a key watched by %d clients left %d watches, want %d: it removed %d",
			clients, n, clients*(keys-1), clients*keys-n)
	}
	if _, ok := watchers["key:7"]; ok {
		t.Errorf("the key written is still in watchers")
	}
	if inputHeld != held {
		t.Errorf("inputHeld went from %d to %d at the SET: the watches are still held", held, inputHeld)
	}
	w.expect(okReply, "SET", "key:8", "v") // each watcher is already dirty
	for i, c := range cs {
		c.expect(okReply, "MULTI")
		c.expect(queued, "SET", "ran", "1")
		before := workDone
		c.expect(nullArray, "EXEC")
		if done := workDone - before; done < keys {
			t.Fatalf("client %d's EXEC unwatched %d keys counting %d items of work", i, keys, done)
		}
	}
	if len(watchers) != 0 || inputHeld != 0 || lookupEntry("ran") != nil {
		t.Fatalf("after every EXEC: %d keys watched, inputHeld %d, ran %v", len(watchers), inputHeld, lookupEntry("ran") != nil)
	}
}

// TestWatchDirtyThenWatchedAgain: a key whose write dropped a dirty
// watcher may be watched again by another connection before the dirty
// one ends its transaction; the dirty one's unwatching leaves the new
// watch alone, and the new watcher sees the next write.
func TestWatchDirtyThenWatchedAgain(t *testing.T) {
	resetTx(t)
	a, b, w := newTxClient(t), newTxClient(t), newTxClient(t)
	a.expect(okReply, "WATCH", "k", "other")
	w.expect(okReply, "SET", "k", "1")
	b.expect(okReply, "WATCH", "k")
	a.expect(okReply, "UNWATCH")
	if set := watchers["k"]; len(set) != 1 {
		t.Fatalf("after the dirty watcher's UNWATCH, %d watch k, want 1", len(set))
	}
	w.expect(okReply, "SET", "k", "2")
	b.expect(okReply, "MULTI")
	b.expect(nullArray, "EXEC")
	a.expect(okReply, "MULTI")
	a.expect("*0\r\n", "EXEC")
	if len(watchers) != 0 || inputHeld != 0 {
		t.Fatalf("at the end: %d keys watched, inputHeld %d", len(watchers), inputHeld)
	}
}
