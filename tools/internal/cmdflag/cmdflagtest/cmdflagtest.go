// Package cmdflagtest holds what the tools' commands' tests share about
// their flags.
package cmdflagtest

import (
	"io"
	"strings"
	"testing"
)

// Run is a command's run function: it runs the command with args and
// returns its exit code.
type Run func(args []string, stdout, stderr io.Writer) int

// UsageErrors runs the command once with each of argsList, all of them
// bad usage, and fails the test unless each exits 2 with nothing on stdout
// and usage, a text that holds the usage line (such as "usage: conform"),
// in its stderr.
func UsageErrors(t *testing.T, run Run, usage string, argsList [][]string) {
	t.Helper()
	for _, args := range argsList {
		var stdout, stderr strings.Builder
		if code := run(args, &stdout, &stderr); code != 2 || stdout.Len() > 0 || !strings.Contains(stderr.String(), usage) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, no output and %q", args, code, stdout.String(), stderr.String(), usage)
		}
	}
}

// Help runs the command with -h and fails the test unless it exits 0 with
// usage in its stderr and nothing on stdout.
func Help(t *testing.T, run Run, usage string) {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 || stdout.Len() > 0 || !strings.Contains(stderr.String(), usage) {
		t.Errorf("-h: exit %d, stdout %q, stderr %q; want 0, no output and %q", code, stdout.String(), stderr.String(), usage)
	}
}
