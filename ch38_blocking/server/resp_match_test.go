package server

import (
	"strings"
	"testing"
)

// TestRESPKeysMatchBounded: a pattern is matched in steps up to its
// length times the key's, and both can be long: '*', 8 KiB of 'a' and a
// 'b' against a key of 16 KiB of 'a' take some 10^8 steps. KEYS stops
// at kMatchMaxSteps and answers an error, its steps counted in the
// turn's work; the same pattern over short keys is answered.
func TestRESPKeysMatchBounded(t *testing.T) {
	resetData(t)
	pattern := "*" + strings.Repeat("a", 8<<10) + "b"
	respRun(t, "set", strings.Repeat("a", 16<<10), "v")
	before := workDone
	if got, want := respRun(t, "keys", pattern), "-"+errMatchTooCostly+"\r\n"; got != want {
		t.Fatalf("KEYS with a costly pattern = %.60q, want %q", got, want)
	}
	if w := workDone - before; w < kMatchMaxSteps/kMatchStepsPerItem {
		t.Errorf("KEYS gave up after %d steps but counted %d items of work", kMatchMaxSteps, w)
	}
	resetData(t)
	respRun(t, "set", "short", "v")
	if got := respRun(t, "keys", pattern); got != "*0\r\n" {
		t.Fatalf("KEYS with a long pattern over a short key = %q", got)
	}
}
