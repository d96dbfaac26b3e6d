package main

import (
	"io"
	"testing"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
)

// TestFlags: bad flags exit 2 with the usage, -h exits 0, and an address
// that cannot be listened on exits 1.
func TestFlags(t *testing.T) {
	explore := func(args []string, _, stderr io.Writer) int { return run(args, stderr) }
	cmdflagtest.UsageErrors(t, explore, usage, [][]string{{"extra"}, {"-nosuch"}, {"-addr"}, {"-addr", "no-port"}})
	cmdflagtest.Help(t, explore, usage)
	if got := run([]string{"-addr", "256.0.0.1:x"}, io.Discard); got != 1 {
		t.Errorf("explore with a bad address exits %d, want 1", got)
	}
}
