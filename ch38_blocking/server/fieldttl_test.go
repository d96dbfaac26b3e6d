package server

import (
	"fmt"
	"testing"
	"time"

	"example.com/byor/ch38_blocking/proto"
)

// TestMassFieldExpiryIsBounded: 100,000 fields of one hash that expire at
// the same moment are reclaimed kMaxWorks at a time, one batch per loop
// iteration, while other commands are answered between batches; fields
// without an expiry are never touched, and the hash's timer goes once no
// field has an expiry left.
func TestMassFieldExpiryIsBounded(t *testing.T) {
	const n = 100_000
	// The TTLs are set in batches whose reply (one integer per field) fits
	// in a message, prepared before the time is chosen.
	const batch = 400
	var expires [][]string
	for i := 0; i < n; i += batch {
		expire := []string{"hpexpireat", "h", "", "FIELDS", fmt.Sprint(min(batch, n-i))}
		for j := i; j < min(i+batch, n); j++ {
			expire = append(expire, fmt.Sprintf("f%d", j))
		}
		expires = append(expires, expire)
	}
	// The expiry time must be far enough ahead that every field is still
	// live when the last batch is set: a time already past deletes the
	// field at once. How long setting them takes depends on the machine
	// (the race detector, a loaded CI box), so a margin that proves too
	// short is doubled and the hash set up again.
	var at uint64
	for margin := uint64(250); ; margin *= 2 {
		resetData(t)
		set := []string{"hset", "h", "keeper", "v"}
		for i := 0; i < n; i++ {
			set = append(set, fmt.Sprintf("f%d", i), "v")
		}
		run(set...) // in-process, so no request size limit applies
		run("set", "s", "v")
		at = getUnixMs() + margin
		for _, expire := range expires {
			expire[2] = fmt.Sprint(at)
			run(expire...)
		}
		if getUnixMs() < at {
			break
		}
		if margin > 100_000 {
			t.Fatalf("setting %d TTLs took more than %d ms", n, margin)
		}
		t.Logf("setting the TTLs took more than %d ms; again with twice the margin", margin)
	}
	if len(gData.fieldHeap) != 1 {
		t.Fatalf("%d hash timers, want 1 (one per hash, not per field)", len(gData.fieldHeap))
	}

	// Wait for the wall clock to pass the expiry time.
	for deadline := time.UnixMilli(int64(at)).Add(10 * time.Second); getUnixMs() <= at; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the wall clock did not move")
		}
	}

	ent := lookupEntry("h")
	for left := n; left > 0; {
		processTimers()
		removed := left - (ent.obj.hash.StoredLen() - 1)
		if want := min(kMaxWorks, left); removed != want {
			t.Fatalf("one processTimers call reclaimed %d fields, want %d (with %d due)", removed, want, left)
		}
		left -= removed
		for _, c := range []struct {
			cmd  []string
			want string
		}{
			{[]string{"hget", "h", "keeper"}, string(proto.OutStr(nil, "v"))},
			{[]string{"get", "s"}, string(proto.OutStr(nil, "v"))},
		} {
			if got := run(c.cmd...); got != c.want {
				t.Fatalf("%q between batches = %q, want %q", c.cmd, got, c.want)
			}
		}
	}
	if len(gData.fieldHeap) != 0 {
		t.Errorf("the hash still has a timer, with no field left to expire")
	}
	if got := run("hlen", "h"); got != string(proto.OutInt(nil, 1)) {
		t.Errorf("hlen = %q, want 1", got)
	}
}

// TestDeletingHashDropsItsTimer: del, and an hset that clears the last
// expiry, take the hash's timer out of the global heap.
func TestDeletingHashDropsItsTimer(t *testing.T) {
	resetData(t)
	for _, key := range []string{"a", "b", "c"} {
		run("hset", key, "f", "v", "g", "v")
		run("hpexpire", key, "100000", "FIELDS", "1", "f")
	}
	run("del", "a")
	run("hset", "b", "f", "v2")
	run("hpersist", "c", "FIELDS", "1", "f")
	if len(gData.fieldHeap) != 0 {
		t.Fatalf("%d hash timers left, want 0", len(gData.fieldHeap))
	}
	run("hpexpire", "b", "100000", "FIELDS", "1", "g")
	if len(gData.fieldHeap) != 1 || gData.fieldHeap[0].Owner.key() != "b" {
		t.Fatalf("want exactly b's timer, got %d timers", len(gData.fieldHeap))
	}
}
