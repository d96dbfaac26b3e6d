// Command workshop hands chapters out as exercises cut from the tested
// solution. Run it from the repository root:
//
//	go run ./tools/workshop list
//	go run ./tools/workshop start EXERCISE DIR
//	go run ./tools/workshop check DIR
//
// list shows the exercises. start writes a standalone copy of the exercise's
// chapter into DIR (a new or empty directory) with the exercise's code
// replaced by stubs that panic, and a README for the learner. check runs
// the exercise's tests, then all of the chapter's, then the conformance
// stage of the chapter against the learner's server, and says what passed
// and what failed. Exercises are marked in the chapters' code; see
// docs/workshop.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"example.com/byor/tools/internal/cmdflag"
	"example.com/byor/tools/internal/workshop"
)

const usage = `usage:
  workshop list                   list the exercises
  workshop start EXERCISE DIR     write the exercise into DIR (new or empty)
  workshop check DIR              run the exercise's tests, the chapter's tests and the
                                  chapter's conformance checks against DIR's server
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := cmdflag.NewFlagSet("workshop", usage, stderr)
	if status, stop := cmdflag.ParseArgs(fs, args); stop {
		return status
	}
	args = fs.Args()
	if len(args) == 0 {
		return cmdflag.Failf(fs, "missing command")
	}
	switch cmd := args[0]; {
	case cmd == "list" && len(args) == 1:
		list(stdout)
		return 0
	case cmd == "start" && len(args) == 3:
		return start(args[1], args[2], stdout, stderr)
	case cmd == "check" && len(args) == 2:
		return check(args[1], stdout, stderr)
	case cmd == "list" || cmd == "start" || cmd == "check":
		return cmdflag.Failf(fs, "wrong number of arguments for %s", cmd)
	default:
		return cmdflag.Failf(fs, "unknown command %q", cmd)
	}
}

func list(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tCHAPTER\tMINUTES\tTITLE")
	for _, ex := range workshop.Catalog {
		fmt.Fprintf(tw, "%s\t%s\t~%d\t%s\n", ex.ID, ex.Chapter, ex.Minutes, ex.Title)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, ex := range workshop.Catalog {
		fmt.Fprintf(w, "%s: %s\n\n", ex.ID, wrap(ex.Task, "    "))
	}
}

// wrap breaks text into lines of about 76 columns, indenting all but the first.
func wrap(text, prefix string) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && col+1+len(word) > 76 {
			b.WriteString("\n" + prefix)
			col = len(prefix)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}

func start(id, dir string, stdout, stderr io.Writer) int {
	ex, err := workshop.Lookup(id)
	if err != nil {
		fmt.Fprintf(stderr, "workshop: %v\n", err)
		return 1
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(stderr, "workshop: %v\n", err)
		return 1
	}
	stubbed, err := workshop.Start(root, ex, dir)
	if err != nil {
		fmt.Fprintf(stderr, "workshop: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote exercise %s (%s, ~%d min) to %s\nto implement:\n", ex.ID, ex.Title, ex.Minutes, dir)
	for _, s := range stubbed {
		fmt.Fprintf(stdout, "  %s\n", s)
	}
	fmt.Fprintf(stdout, "instructions: %s\ncheck with:   go run ./tools/workshop check %s\n", filepath.Join(dir, "README.md"), dir)
	return 0
}

func check(dir string, stdout, stderr io.Writer) int {
	root, err := repoRoot()
	if err != nil {
		root = "" // the conformance step says it is skipped
	}
	// Generous: the tests have their own timeouts; this only ends a
	// check that hangs for another reason.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	ok, err := workshop.Check(ctx, root, dir, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "workshop: %v\n", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// repoRoot finds the repository root: the nearest directory at or above the
// working directory with a go.work file.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run workshop from the repository (no go.work found here or above)")
		}
		dir = parent
	}
}
