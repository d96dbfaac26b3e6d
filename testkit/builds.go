package testkit

import (
	"fmt"
	"os"
	"testing"

	"example.com/byor/testkit/serverproc"
)

// Builds builds each chapter's programs once per run of a test binary whose
// TestMain is MainWithBuilds (the suites that run many chapters' servers).
var Builds *serverproc.Cache

// MainWithBuilds is the TestMain of a package whose tests build chapters:
// it runs the tests with Builds building into a temporary directory,
// removes the directory, and exits with the tests' status.
func MainWithBuilds(m *testing.M) {
	dir, err := os.MkdirTemp("", "byor-builds")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	Builds = serverproc.NewCache(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
