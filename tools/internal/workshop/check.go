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

// durations matches the times go test prints after a test's name, which
// differ between two reports of the same failure.
var durations = regexp.MustCompile(`\(\d+\.\d+s\)|\t\d+\.\d+s$`)

// stackLine matches the lines of a goroutine dump, which say little to a
// learner next to the panic message and the failing test's own lines.
var stackLine = regexp.MustCompile(`^\s*(goroutine \d+ \[|created by |[\w./*\[\]-]+\(.*\)$|/\S+\.go:\d+( \+0x[0-9a-f]+)?$|\S*_testmain\.go:)`)

// Check runs an exercise directory's tests (the exercise's own first, then
// all), then the conformance stage of its chapter against the learner's
// server, if the repository at root has tools/conform. It stops at the
// first step that fails: the later ones would mostly fail the same way,
// and a hang would cost their deadlines too. It writes a report to w and
// returns whether everything passed. Every command it shows runs as shown
// in the exercise directory.
func Check(ctx context.Context, root, dir string, w io.Writer) (bool, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return false, err
	}
	ex, err := Lookup(meta.Exercise)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "exercise %s (%s) in %s\n", ex.ID, ex.Title, dir)
	fmt.Fprintf(w, "(each command below runs as shown in that directory)\n\n")

	// The steps, in order; each returns its output and whether it passed.
	type stepFunc struct {
		name string
		run  func() (string, bool)
	}
	var steps []stepFunc
	for _, t := range ex.Tests {
		// A hang in the exercise's own tests ends at the scripts'
		// deadline (testkit takes go test's), not after minutes.
		steps = append(steps, stepFunc{fmt.Sprintf("go test -run '%s' %s", t.Run, t.Pkg), func() (string, bool) {
			return GoTest(ctx, dir, "-timeout", "90s", "-run", t.Run, t.Pkg)
		}})
	}
	steps = append(steps, stepFunc{"go test ./...", func() (string, bool) {
		return GoTest(ctx, dir, "-timeout", "5m", "./...")
	}})
	if name, run := conformStep(ctx, root, dir, meta, w); run != nil {
		steps = append(steps, stepFunc{name, run})
	}

	for i, st := range steps {
		out, ok := st.run()
		if ok {
			fmt.Fprintf(w, "PASS  %s\n", st.name)
			continue
		}
		fmt.Fprintf(w, "FAIL  %s\n%s\n", st.name, indent(excerpt(out, 25), "      "))
		fmt.Fprintf(w, "\n%d passed, 1 failed", i)
		if left := len(steps) - i - 1; left > 0 {
			fmt.Fprintf(w, ", %d not run (the check stops at the first failure)", left)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "hint: %s\n", hint(ex, out, i < len(ex.Tests), strings.HasPrefix(st.name, "go run")))
		return false, nil
	}
	fmt.Fprintf(w, "\n%d passed, 0 failed\n", len(steps))
	fmt.Fprintf(w, "All done: exercise %s works.\n", ex.ID)
	return true, nil
}

// hint says what a failing step's output most likely means. own is true
// for the exercise's own tests, conform for the conformance step.
func hint(ex Exercise, out string, own, conform bool) string {
	if id, fn, ok := firstStubPanic(out); ok {
		return fmt.Sprintf("a stub is still in place: %s (exercise %s) still panics. Replace the panic with your code.", fn, id)
	}
	switch {
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		return "the code does not compile; the compiler's first message above says where."
	case own:
		return ex.Hint
	case conform:
		return "the tests pass but the server does not answer like the book's; the transcript above shows the first difference."
	}
	return "the exercise's own tests pass, but other tests of the chapter fail: your code is called from there too."
}

// firstStubPanic finds the stub that panicked first in out. A test
// binary's own panic line ("panic: exercise ...") is the one that
// happened; the same message may also appear later, quoted in a test's
// log or in another process's output, so those count only when no test
// binary panicked.
func firstStubPanic(out string) (id, fn string, ok bool) {
	first := ""
	for _, l := range strings.Split(out, "\n") {
		m := stubPanic.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "panic: ") {
			return m[1], m[2], true
		}
		if first == "" {
			first = l
		}
	}
	if m := stubPanic.FindStringSubmatch(first); m != nil {
		return m[1], m[2], true
	}
	return "", "", false
}

// conformStep returns the step that builds the learner's server and runs
// the conformance stage of its chapter, or a nil run function when there
// is nothing to run (it says why on w).
func conformStep(ctx context.Context, root, dir string, meta Meta, w io.Writer) (string, func() (string, bool)) {
	if root == "" {
		fmt.Fprintln(w, "SKIP  conformance: not run from the repository (no go.work found)")
		return "", nil
	}
	if _, err := os.Stat(filepath.Join(root, "tools", "conform")); err != nil {
		fmt.Fprintln(w, "SKIP  conformance: this repository has no tools/conform yet")
		return "", nil
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		absRoot = root
	}
	// The server is built into the exercise directory, so that the
	// conformance command shown can be run again by hand; go run -C runs
	// the conformance tool from the repository, wherever the command is
	// typed.
	server := filepath.Join(dir, "bin", "server")
	if abs, err := filepath.Abs(server); err == nil {
		server = abs
	}
	stage := ChapterOf(meta.Exercise)
	name := fmt.Sprintf("go build -o bin/server ./cmd/server && go run -C %s ./tools/conform -server '%s -addr {addr}' %s", absRoot, server, stage)
	return name, func() (string, bool) {
		build := exec.CommandContext(ctx, "go", "build", "-o", server, "./cmd/server")
		build.Dir = dir
		build.Env = append(os.Environ(), "GOWORK=off")
		if out, err := build.CombinedOutput(); err != nil {
			return string(out), false
		}
		cmd := exec.CommandContext(ctx, "go", "run", "-C", absRoot, "./tools/conform", "-server", server+" -addr {addr}", stage)
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		// Only what did not pass, and the summary, say something to a
		// learner.
		var keep []string
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if !strings.HasSuffix(l, " ... ok") && !strings.HasPrefix(l, "exit status ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n"), err == nil
	}
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
	// Each distinct failure once: a stub's panic reaches many tests and
	// checks, each reporting it in the same words.
	seen := map[string]bool{}
	var distinct []string
	for _, l := range lines {
		key := durations.ReplaceAllString(strings.TrimSpace(l), "")
		if key != "" && seen[key] {
			continue
		}
		seen[key] = true
		distinct = append(distinct, l)
	}
	lines = distinct
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
		keep = append(keep[:max], fmt.Sprintf("... (%d more lines; run the command above for all of it)", len(keep)-max))
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
