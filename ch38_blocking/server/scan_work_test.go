package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestRESPScanWeighsKeyBytes: SCAN hashes every key it walks past, so its
// work counts each key's bytes (kKeyBytesPerItem to an item), not one
// item a key; and a call's walk hashes about as many bytes of keys as its
// reply has room for, and never goes back over them. Over 100 keys of
// 100 KB with COUNT 1000, the whole scan's work is at least the keys'
// bytes in items, and at most eight times that, besides its replies'
// bytes, which every reply is charged; every key comes back once. Each
// key is hashed once, and again where a call's walk ran past the place
// its full reply stopped at, or stopped inside a run of long keys and
// retried with twice the room: 2.0 to 6.7 times in all over 250 salts,
// 2.7 at the median (the bound was 4, which one salt in twenty or so
// passed).
func TestRESPScanWeighsKeyBytes(t *testing.T) {
	resetData(t)
	const n, size = 100, 100_000
	pad := strings.Repeat("x", size-8)
	for i := range n {
		insertEntry(newEntry(fmt.Sprintf("%s%08d", pad, i), []byte("v")))
	}
	for range 10_000 { // finish the resizes, as requests would
		stepKeySpace()
	}
	items := n * size / kKeyBytesPerItem
	before := workDone
	got, calls := scanAll(t, nil, "COUNT", "1000")
	work := workDone - before
	t.Logf("%d keys of %d bytes (%d items of hashing): %d calls, %d items of work", n, size, items, calls, work)
	if len(got) != n {
		t.Fatalf("the scan returned %d keys of %d", len(got), n)
	}
	for k, c := range got {
		if c != 1 {
			t.Fatalf("%.20q... returned %d times", k, c)
		}
	}
	// The replies' bytes count too, as every reply's do (work.go).
	sent := n * size / kWorkBytes
	if work < items+sent || work > 8*items+sent {
		t.Errorf("the scan did %d units of work for %d of its keys' bytes hashed and %d sent", work, items, sent)
	}
}

// TestRESPScanCallBoundedByBytes: a SCAN call takes at most COUNT times
// kScanKeyBytes bytes of keys (and its first key, whatever its length),
// so that over long keys one call hashes and sends about what one over
// short keys does, not ten times COUNT units of hashing and then the
// bytes of every key that hashing reached: over 200 keys of 64 KiB, each
// call with COUNT 1000 sends at most 192 KiB (it sent 39 keys, 2.5 MB),
// its work stays within its walk's bound and its bytes sent, and every
// key still comes back once. Over short keys COUNT still counts keys.
func TestRESPScanCallBoundedByBytes(t *testing.T) {
	resetData(t)
	const n, size = 200, 64 << 10
	pad := strings.Repeat("k", size-8)
	for i := range n {
		insertEntry(newEntry(fmt.Sprintf("%s%08d", pad, i), []byte("v")))
	}
	for range 10_000 { // finish the resizes, as requests would
		stepKeySpace()
	}
	got := map[string]int{}
	calls, worstBytes, worstWork := 0, 0, 0
	for cursor := uint64(0); ; calls++ {
		before := workDone
		c, keys := parseScanReply(t, respRun(t, "SCAN", strconv.FormatUint(cursor, 10), "COUNT", "1000"))
		work, bytes := workDone-before, 0
		for _, k := range keys {
			got[k]++
			bytes += len(k)
		}
		worstBytes, worstWork = max(worstBytes, bytes), max(worstWork, work)
		if cursor = c; cursor == 0 || calls > 10*n {
			break
		}
	}
	t.Logf("%d calls, at most %d bytes and %d units of work a call", calls, worstBytes, worstWork)
	if len(got) != n {
		t.Fatalf("the scan returned %d keys of %d", len(got), n)
	}
	for k, c := range got {
		if c != 1 {
			t.Fatalf("%.20q... returned %d times", k, c)
		}
	}
	if limit := 1000*kScanKeyBytes + size; worstBytes > limit {
		t.Errorf("a call sent %d bytes of keys, more than %d", worstBytes, limit)
	}
	// Its bytes sent, and its walk: ten times COUNT, passed by a run of
	// long keys it must hash to reach the next empty slot (it did 55,000:
	// 39 keys hashed and then sent).
	if limit := 2*10*1000 + (1000*kScanKeyBytes+size)/kWorkBytes; worstWork > limit {
		t.Errorf("a call did %d units of work, more than %d", worstWork, limit)
	}

	resetData(t)
	for i := range 5000 {
		run("set", fmt.Sprint("short:", i), "v")
	}
	for range 10_000 { // a resize or a new seed's move still going: finish it
		stepKeySpace()
	}
	_, keys := parseScanReply(t, respRun(t, "SCAN", "0", "COUNT", "1000"))
	if len(keys) < 900 {
		t.Errorf("SCAN COUNT 1000 over short keys returned %d", len(keys))
	}
}
