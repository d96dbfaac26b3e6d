package workshop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// GoTest runs go test with args in dir, as a module of its own (GOWORK=off:
// an exercise directory builds without the workspace it came from). It
// returns the combined output and whether the tests passed.
func GoTest(ctx context.Context, dir string, args ...string) (string, bool) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	// A -run pattern that names no test passes without testing anything:
	// that is a catalog out of step with the chapter's tests, not a pass.
	if err == nil && bytes.Contains(out, []byte("no tests to run")) {
		return string(out) + "no test matched the -run pattern\n", false
	}
	return string(out), err == nil
}

// stubPanic matches the message of a stub that is still in place.
var stubPanic = regexp.MustCompile(`exercise (ch[0-9]{2}-[a-z0-9-]+): implement ((?:the marked part of )?[\w.]+)`)

// stackLine matches the lines of a goroutine dump, which say little to a
// learner next to the panic message and the failing test's own lines.
var stackLine = regexp.MustCompile(`^\s*(goroutine \d+ \[|created by |[\w./*\[\]-]+\(.*\)$|/\S+\.go:\d+( \+0x[0-9a-f]+)?$|\S*_testmain\.go:)`)

// Check runs an exercise directory's tests (the exercise's own first, then
// all), then the conformance stage of its chapter against the learner's
// server, if the repository at root has tools/conform. It writes a report
// to w and returns whether everything passed.
func Check(ctx context.Context, root, dir string, w io.Writer) (bool, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return false, err
	}
	ex, err := Lookup(meta.Exercise)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "exercise %s (%s) in %s\n\n", ex.ID, ex.Title, dir)
	var passed, failed []string
	var failOut []string
	step := func(name string, ok bool, out string) {
		if ok {
			passed = append(passed, name)
			fmt.Fprintf(w, "PASS  %s\n", name)
			return
		}
		failed = append(failed, name)
		failOut = append(failOut, out)
		fmt.Fprintf(w, "FAIL  %s\n%s\n", name, indent(excerpt(out, 25), "      "))
	}

	ownOK := true
	for _, t := range ex.Tests {
		name := fmt.Sprintf("go test -run '%s' %s", t.Run, t.Pkg)
		out, ok := GoTest(ctx, dir, "-timeout", "5m", "-run", t.Run, t.Pkg)
		ownOK = ownOK && ok
		step(name, ok, out)
	}
	out, ok := GoTest(ctx, dir, "-timeout", "10m", "./...")
	if !ownOK {
		// The same failures again, mostly: keep it short.
		out = excerpt(out, 8)
	}
	step("go test ./... (every test of the chapter)", ok, out)

	conformOK := runConform(ctx, root, dir, meta, w, step)

	fmt.Fprintf(w, "\n%d passed, %d failed\n", len(passed), len(failed))
	if len(failed) == 0 {
		fmt.Fprintf(w, "All done: exercise %s works.\n", ex.ID)
		return true, nil
	}
	all := strings.Join(failOut, "\n")
	switch m := stubPanic.FindStringSubmatch(all); {
	case m != nil:
		fmt.Fprintf(w, "hint: a stub is still in place: %s (exercise %s) still panics. Replace the panic with your code.\n", m[2], m[1])
	case strings.Contains(all, "[build failed]") || strings.Contains(all, "[setup failed]"):
		fmt.Fprintf(w, "hint: the code does not compile; the compiler's first message above says where.\n")
	case !ownOK:
		fmt.Fprintf(w, "hint: %s\n", ex.Hint)
	case !conformOK:
		fmt.Fprintf(w, "hint: the tests pass but the server does not answer like the book's; the transcript above shows the first difference.\n")
	default:
		fmt.Fprintf(w, "hint: the exercise's own tests pass, but other tests of the chapter fail: your code is called from there too.\n")
	}
	return false, nil
}

// runConform builds the learner's server and runs the conformance stage of
// its chapter from the repository root. It reports false only on a failure;
// a missing tools/conform is reported and skipped.
func runConform(ctx context.Context, root, dir string, meta Meta, w io.Writer, step func(string, bool, string)) bool {
	if root == "" {
		fmt.Fprintln(w, "SKIP  conformance: not run from the repository (no go.work found)")
		return true
	}
	if _, err := os.Stat(filepath.Join(root, "tools", "conform")); err != nil {
		fmt.Fprintln(w, "SKIP  conformance: this repository has no tools/conform yet")
		return true
	}
	// The server is built into the exercise directory, so that the
	// conformance command shown can be run again by hand.
	server := filepath.Join(dir, "bin", "server")
	build := exec.CommandContext(ctx, "go", "build", "-o", server, "./cmd/server")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		step("go build ./cmd/server", false, string(out))
		return false
	}
	stage := ChapterOf(meta.Exercise)
	name := fmt.Sprintf("go run ./tools/conform -server '%s -addr {addr}' %s", server, stage)
	cmd := exec.CommandContext(ctx, "go", "run", "./tools/conform", "-server", server+" -addr {addr}", stage)
	cmd.Dir = root
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	// Only what did not pass, and the summary, say something to a learner.
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if !strings.HasSuffix(l, " ... ok") && !strings.HasPrefix(l, "exit status ") {
			keep = append(keep, l)
		}
	}
	step(name+"   (from the repository root)", err == nil, strings.Join(keep, "\n"))
	return err == nil
}

// excerpt keeps the lines of go test output that say what went wrong: the
// failing tests, panics and the lines just after them, at most max lines.
func excerpt(out string, max int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if !stackLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	var keep []string
	follow := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		important := strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "panic:") ||
			strings.Contains(t, "_test.go:") || strings.HasPrefix(t, "FAIL") ||
			strings.Contains(t, ".go:") && strings.Contains(t, ": ") && follow == 0 ||
			strings.HasPrefix(t, "#") || strings.HasPrefix(t, "> ")
		if important {
			follow = 3
		}
		if important || follow > 0 {
			keep = append(keep, l)
			follow--
		}
	}
	if len(keep) == 0 {
		keep = lines
	}
	if len(keep) > max {
		keep = append(keep[:max], fmt.Sprintf("... (%d more lines; run the command above in the exercise directory for all of it)", len(keep)-max))
	}
	return strings.Join(keep, "\n")
}

func indent(s, prefix string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
