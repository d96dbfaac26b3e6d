package main

import (
	"io"
	"testing"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
)

// TestUsageErrors: bad flags and arguments exit 2 with the usage, before
// anything listens, and -h exits 0.
func TestUsageErrors(t *testing.T) {
	// quit is closed already: a usage error not caught would serve and
	// return at once, failing the test rather than hanging it.
	quit := make(chan struct{})
	close(quit)
	server := func(args []string, _, stderr io.Writer) int { return run(args, stderr, quit) }
	cmdflagtest.UsageErrors(t, server, "usage: server", [][]string{
		{"extra"},
		{"-nosuch"},
		{"-addr", "localhost:1234"},
		{"-addr", "[::1]:1234"},
		{"-addr", "127.0.0.1"},
	})
	cmdflagtest.Help(t, server, "usage: server")
}
