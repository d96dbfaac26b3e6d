package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/tools/internal/workshop"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// goTests bounds how many go test commands the exercise checks run at once:
// each one already compiles and runs in parallel on its own.
var goTests = make(chan struct{}, max(1, runtime.NumCPU()/2))

func goTest(t *testing.T, dir string, ref workshop.TestRef) (string, bool) {
	t.Helper()
	goTests <- struct{}{}
	defer func() { <-goTests }()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	return workshop.GoTest(ctx, dir, "-timeout", "3m", "-run", ref.Run, ref.Pkg)
}

// TestExercisesFailAsStubsAndPassAsSolutions is the both-ways check of
// every exercise: in a directory written by Start, each of the exercise's
// named test groups fails, and fails because a stub panicked (so the stubbed
// chapter compiles and the tests do reach the stub); in the same layout
// with the solution left in, each group passes. Both copies build without
// the workspace, as the learner's will.
//
// The matrix takes minutes on two cores, too long for every go test
// example.com/byor/..., so it is one of the heavy suites (testkit.Heavy).
// The fast tests of tools/internal/workshop still write every exercise and
// check what it holds.
func TestExercisesFailAsStubsAndPassAsSolutions(t *testing.T) {
	testkit.Heavy(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, ex := range workshop.Catalog {
		t.Run(ex.ID, func(t *testing.T) {
			t.Parallel()
			stub := filepath.Join(t.TempDir(), "stub")
			if _, err := workshop.Start(root, ex, stub); err != nil {
				t.Fatal(err)
			}
			// Tests that drive a server in another process may only see
			// it hang up, so the stub's message must show in one group's
			// output, not in all.
			want := "exercise " + ex.ID + ": implement"
			seen := false
			for _, ref := range ex.Tests {
				out, ok := goTest(t, stub, ref)
				switch {
				case ok:
					t.Errorf("stub: go test -run '%s' %s passed; it must fail until the exercise is done", ref.Run, ref.Pkg)
				case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
					t.Errorf("stub: go test -run '%s' %s does not compile:\n%s", ref.Run, ref.Pkg, tail(out, 30))
				}
				seen = seen || strings.Contains(out, want)
			}
			if !seen {
				t.Errorf("stub: no test output shows a stub's panic (%q): do the named tests reach the exercise's code?", want)
			}
			sol := filepath.Join(t.TempDir(), "solution")
			if err := workshop.Solution(root, ex, sol); err != nil {
				t.Fatal(err)
			}
			for _, ref := range ex.Tests {
				if out, ok := goTest(t, sol, ref); !ok {
					t.Errorf("solution: go test -run '%s' %s failed:\n%s", ref.Run, ref.Pkg, tail(out, 30))
				}
			}
		})
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
