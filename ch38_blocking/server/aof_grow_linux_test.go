//go:build linux

package server

import (
	"fmt"
	"testing"
)

// TestAOFLoadFarSetRange: a record of some 50 bytes that replays as a
// SETRANGE or SETBIT at the far end of the longest string loads the
// value of 512 MiB as the command does (TestSetRangeFarWritesNoPad): the
// zeros before the byte written are the fresh buffer's, and a handful of
// its pages are in memory after the load, not all 131,072 (which a pad
// written byte after byte, or page after page, takes, with seconds of
// the start's time).
func TestAOFLoadFarSetRange(t *testing.T) {
	if !inFreshProcess(t) {
		return
	}
	setRange := "*4\r\n$8\r\nSETRANGE\r\n$1\r\nk\r\n$9\r\n536870911\r\n$1\r\nx\r\n"
	setBit := "*4\r\n$6\r\nSETBIT\r\n$1\r\nb\r\n$10\r\n4294967295\r\n$1\r\n1\r\n"
	for _, rec := range []struct{ content, key string }{{setRange, "k"}, {setBit, "b"}} {
		loaded, _, allocated, err := loadFile(t, rec.content)
		if err != nil || loaded != int64(len(rec.content)) {
			t.Fatalf("%q: err %v, loaded %d", rec.content, err, loaded)
		}
		if got := respRun(t, "STRLEN", rec.key); got != fmt.Sprintf(":%d\r\n", maxAppend) {
			t.Fatalf("%q: STRLEN %q", rec.content, got)
		}
		n := residentPages(t, rec.key)
		t.Logf("a record of %d bytes: %d bytes allocated, %d pages of the value in memory", len(rec.content), allocated, n)
		if n > 8 {
			t.Errorf("%q: %d pages of the value in memory, want at most 8", rec.content, n)
		}
		if allocated > uint64(maxAppend)+1<<20 {
			t.Errorf("%q: the replay allocated %d bytes, want the value's buffer", rec.content, allocated)
		}
	}
}
