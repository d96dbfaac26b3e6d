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
//
// Its arguments go to go test after the package list, so flags such as
// -count=1, -run, -v and -args pass through; its output is go test's, and
// so is its exit status. Many packages' tests spend part of their time
// waiting, on the servers they start and on clocks, so it runs one package
// more at a time than the machine has CPUs (go test -p); a -p among its
// arguments wins.
package main

import (
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
	paths := make([]string, len(keep))
	for i, p := range keep {
		paths[i] = p.importPath
	}
	os.Exit(goTest(paths, withPackagesAtOnce(os.Args[1:], runtime.NumCPU()+1), os.Stdout, os.Stderr))
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
