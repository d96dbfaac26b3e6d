package main

import (
	"io"
	"testing"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
)

// TestUsageErrors: bad flags and arguments exit 2 with the usage, before
// anything listens, and -h exits 0.
func TestUsageErrors(t *testing.T) {
	server := func(args []string, _, stderr io.Writer) int { return run(args, stderr, nil) }
	cmdflagtest.UsageErrors(t, server, "usage: server", [][]string{
		{"extra"},
		{"-nosuch"},
		{"-addr", "localhost:1234"},
		{"-addr", "[::1]:1234"},
		{"-addr", "127.0.0.1"},
	})
	cmdflagtest.Help(t, server, "usage: server")
}
