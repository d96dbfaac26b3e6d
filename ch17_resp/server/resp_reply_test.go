package server

import (
	"fmt"
	"testing"
)

// TestRESPReplyGrowsGeometrically: a reply far larger than the write
// buffer (an HGETALL of 20,000 fields, some 600 KB) is copied at most
// twice over as its buffer grows: the buffer at least doubles, so the
// bytes copied stay within the buffer's final size, whatever the reply's.
func TestRESPReplyGrowsGeometrically(t *testing.T) {
	resetData(t)
	ent, _ := hashForWrite("h")
	for i := range 20_000 {
		ent.obj.hash.Set(0, fmt.Sprintf("field-%06d", i), "value")
	}
	before := respReplyCopied
	got := respRun(t, "HGETALL", "h")
	copied := respReplyCopied - before
	if len(got) < 20_000*20 || copied > 2*len(got) {
		t.Fatalf("a reply of %d bytes copied %d bytes as it grew", len(got), copied)
	}
	t.Logf("a reply of %d bytes, %d copied as it grew", len(got), copied)
}
