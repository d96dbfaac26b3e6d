package server

import (
	"fmt"
	"strings"
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

// TestRESPFieldTTLRepliesPastTheBookMessage: chapter 16's field-TTL
// commands refuse a reply past the book's 4 KiB message on the book's
// listener; on RESP they answer any the budget holds: HTTL and HPERSIST
// of 1000 fields.
func TestRESPFieldTTLRepliesPastTheBookMessage(t *testing.T) {
	resetData(t)
	args := []string{"FIELDS", "1000"}
	for i := range 1000 {
		run("hset", "h", fmt.Sprint("f", i), "v")
		args = append(args, fmt.Sprint("f", i))
	}
	want := "*1000\r\n" + strings.Repeat(":-1\r\n", 1000)
	for _, cmd := range []string{"HTTL", "HPERSIST"} {
		if got := respRun(t, append([]string{cmd, "h"}, args...)...); got != want {
			t.Errorf("%s of 1000 fields: %.60q", cmd, got)
		}
	}
	if got := run(append([]string{"httl", "h"}, args...)...); got != errTooBig {
		t.Errorf("the book's httl of 1000 fields: %q, want the too-big error", got)
	}
}

// TestRESPReplyPastTheBudgetIsCutOff: a reply whose buffer the budget has
// no room to double is cut off (the caller answers an error instead). It
// used to grow by the bytes each item needed, copying the reply once per
// item from there on: quadratic in the reply's size.
func TestRESPReplyPastTheBudgetIsCutOff(t *testing.T) {
	resetData(t)
	ent, _ := hashForWrite("h")
	for i := range 20_000 {
		ent.obj.hash.Set(0, fmt.Sprintf("field-%06d", i), "value")
	}
	whole := respRun(t, "HGETALL", "h")
	saved := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = saved })
	maxOutputTotal = outputHeld + inputHeld + len(whole)*3/2
	before := respReplyCopied
	got := respRun(t, "HGETALL", "h")
	if copied := respReplyCopied - before; copied > 2*len(whole) {
		t.Fatalf("a reply of %d bytes copied %d bytes as it grew", len(whole), copied)
	}
	if len(got) > len(whole) {
		t.Fatalf("a reply of %d bytes grew to %d", len(whole), len(got))
	}
}
