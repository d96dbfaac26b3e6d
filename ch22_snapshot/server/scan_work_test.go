package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestRESPScanWeighsKeyBytes: SCAN hashes every key it walks past, so its
// work counts each key's bytes (kKeyBytesPerItem to an item), not one
// item a key; and a call's walk hashes about as many bytes of keys as its
// reply has room for, and never goes back over them. Over 100 keys of
// 100 KB with COUNT 1000, the whole scan's work is at least the keys'
// bytes in items, and at most four times that (each key is hashed once,
// and again where a call's walk ran past the place its full reply
// stopped at: some 2 to 2.4 times in all), besides its replies' bytes,
// which every reply is charged; every key comes back once.
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
	if work < items+sent || work > 4*items+sent {
		t.Errorf("the scan did %d units of work for %d of its keys' bytes hashed and %d sent", work, items, sent)
	}
}
