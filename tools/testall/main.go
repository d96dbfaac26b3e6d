// Command testall is the README's test command: from the repository root,
//
//	go run ./tools/testall [go test flags]
//
// runs go test on every package of example.com/byor/... but the shared
// packages' unchanged copies in later chapters (the AVL tree, the
// hashtable, the request parser, ...). Their TestMain, testkit.RunUnlessCopy, would
// only say that the same files were tested in an earlier chapter and stop,
// so go test would link and start each of them for nothing. With
// BYOR_ALL_COPIES=1 nothing is left out and the copies run their tests.
// In a chapter between the first with a package and the newest, it runs
// only the tests of the package's test files that are new or changed
// since the earlier chapter (carried.go); BYOR_ALL_TESTS=1 runs them all.
//
// Its arguments go to go test after the package list, so flags such as
// -count=1, -run, -v and -args pass through; its output is go test's, and
// so is its exit status. Many packages' tests spend part of their time
// waiting, on the servers they start and on clocks, so it runs one package
// more at a time than the machine has CPUs (go test -p); a -p among its
// arguments wins.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"example.com/byor/testkit"
)

// pattern is the packages the command tests: the whole workspace.
const pattern = "example.com/byor/..."

// pkg is one package that go list names.
type pkg struct {
	importPath, dir string
}

func main() {
	// Ctrl-C reaches go test too, which stops and reports; wait for it
	// rather than die first and leave it printing behind the shell.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)

	pkgs, err := listPackages(pattern)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testall: %v\n", err)
		os.Exit(1)
	}
	keep, left := leaveOutCopies(pkgs)
	if len(left) > 0 {
		fmt.Fprintf(os.Stderr, "testall: leaving out %d unchanged copies of shared packages, tested in the chapter that wrote them (%s=1 includes them)\n",
			len(left), testkit.AllCopiesEnv)
	}
	args := os.Args[1:]
	whole, parts, skipped := keep, []part(nil), 0
	if os.Getenv(AllTestsEnv) != "1" && !selectsTests(args) {
		whole, parts, skipped = splitCarried(keep)
		fmt.Fprintf(os.Stderr, "testall: %d packages run whole; in %d more, only the tests of files new or changed since the earlier chapter; %d run nothing new (%s=1 runs every test everywhere, as CI does)\n",
			len(whole), len(parts), skipped, AllTestsEnv)
	}
	paths := make([]string, len(whole))
	for i, p := range whole {
		paths[i] = p.importPath
	}
	status := goTest(paths, withPackagesAtOnce(args, runtime.NumCPU()+1), os.Stdout, os.Stderr)
	if s := testParts(parts, args, runtime.NumCPU()+1, os.Stdout); status == 0 {
		status = s
	}
	os.Exit(status)
}

// part is a package of which only some tests run.
type part struct {
	importPath string
	tests      []string
}

// selectsTests reports whether args choose the tests themselves (-run,
// -bench, -fuzz, -list): then every kept package runs as they say.
func selectsTests(args []string) bool {
	for _, a := range args {
		if a == "-args" || a == "--args" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "run", "bench", "fuzz", "list", "skip":
			return strings.HasPrefix(a, "-")
		}
	}
	return false
}

// splitCarried divides pkgs into those that run whole, those of which
// only some tests run (selectTests), and a count of those with nothing
// to run.
func splitCarried(pkgs []pkg) (whole []pkg, parts []part, skipped int) {
	root, _ := os.Getwd()
	if gowork, err := exec.Command("go", "env", "GOWORK").Output(); err == nil && len(strings.TrimSpace(string(gowork))) > 0 {
		root = filepath.Dir(strings.TrimSpace(string(gowork)))
	}
	newest := newestChapter(root)
	for _, p := range pkgs {
		sel := selectTests(root, p.dir, newest)
		switch {
		case sel.all:
			whole = append(whole, p)
		case len(sel.only) > 0:
			parts = append(parts, part{p.importPath, sel.only})
		default:
			skipped++
		}
	}
	return whole, parts, skipped
}

// testParts runs go test on each part, n at a time, with -run naming its
// tests and args after it, and prints each one's output whole when it
// ends; it returns the first failing status, or 0.
func testParts(parts []part, args []string, n int, stdout io.Writer) int {
	type result struct {
		out    bytes.Buffer
		status int
	}
	results := make([]*result, len(parts))
	done := make(chan int)
	sem := make(chan struct{}, n)
	for i, p := range parts {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &result{}
			r.status = goTest([]string{p.importPath}, append([]string{"-p", "1", "-run", runPattern(p.tests)}, args...), &r.out, &r.out)
			results[i] = r
			done <- i
		}()
	}
	status := 0
	for range parts {
		r := results[<-done]
		stdout.Write(r.out.Bytes())
		if status == 0 && r.status != 0 {
			status = r.status
		}
	}
	return status
}

// withPackagesAtOnce returns args with -p n in front, unless they set -p
// themselves (before -args, after which they are the tests' own).
func withPackagesAtOnce(args []string, n int) []string {
	for _, a := range args {
		if a == "-args" || a == "--args" {
			break
		}
		if a == "-p" || a == "--p" || strings.HasPrefix(a, "-p=") || strings.HasPrefix(a, "--p=") {
			return args
		}
	}
	return append([]string{"-p", strconv.Itoa(n)}, args...)
}

// listPackages lists the packages that match pattern. With -e, a package
// that does not build is listed too, so that go test reports it.
func listPackages(pattern string) ([]pkg, error) {
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}", pattern)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v", pattern, err)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, "\t")
		pkgs = append(pkgs, pkg{path, dir})
	}
	return pkgs, nil
}

// runUnlessCopyMain matches a TestMain that is testkit.RunUnlessCopy, as the
// shared packages' main_test.go files declare it.
var runUnlessCopyMain = regexp.MustCompile(`(?m)^func TestMain\(m \*testing\.M\)\s*\{\s*testkit\.RunUnlessCopy\(m\)\s*\}`)

// leaveOutCopies splits pkgs into those to test and the unchanged copies,
// whose tests would only skip: a package is a copy when its TestMain is
// testkit.RunUnlessCopy and testkit.EarlierCopy finds the earlier chapter
// it copies. Any other package is kept, whatever its files, so nothing
// is left out whose tests would run; and with testkit.AllCopiesEnv set
// to 1, when the copies run their tests, every package is kept.
func leaveOutCopies(pkgs []pkg) (keep, left []pkg) {
	if os.Getenv(testkit.AllCopiesEnv) == "1" {
		return pkgs, nil
	}
	for _, p := range pkgs {
		if isCopy(p.dir) {
			left = append(left, p)
		} else {
			keep = append(keep, p)
		}
	}
	return keep, left
}

// isCopy reports whether the package in dir is an unchanged copy that
// RunUnlessCopy would skip. When the comparison fails, the package is
// kept: its own RunUnlessCopy then reports the error as a failure.
func isCopy(dir string) bool {
	if dir == "" {
		return false
	}
	src, err := os.ReadFile(filepath.Join(dir, "main_test.go"))
	if err != nil || !runUnlessCopyMain.Match(src) {
		return false
	}
	prev, err := testkit.EarlierCopy(dir)
	return err == nil && prev != ""
}

// goTest runs go test on the packages, with args after them, and returns
// its exit status.
func goTest(paths, args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command("go", append(append([]string{"test"}, paths...), args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	default:
		// Not started, or killed by a signal.
		fmt.Fprintf(stderr, "testall: go test: %v\n", err)
		return 1
	}
}
