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
// bad usage, and fails the test unless each exits 2 with usage, a text
// that holds the usage line (such as "usage: conform"), in its stderr.
func UsageErrors(t *testing.T, run Run, usage string, argsList [][]string) {
	t.Helper()
	for _, args := range argsList {
		var stdout, stderr strings.Builder
		if code := run(args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), usage) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, stderr.String(), usage)
		}
	}
}
