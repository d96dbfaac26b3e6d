package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"example.com/byor/testkit"
)

// TestRepository: on the workspace itself, a later chapter's unchanged copy
// of the hashtable is left out, and the chapter that wrote it, every
// chapter's root package and every tool are kept; with AllCopiesEnv set,
// nothing is left out.
func TestRepository(t *testing.T) {
	pkgs, err := listPackages(pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testkit.AllCopiesEnv, "")
	keep, left := leaveOutCopies(pkgs)
	if len(keep)+len(left) != len(pkgs) {
		t.Fatalf("%d packages kept and %d left out, of %d", len(keep), len(left), len(pkgs))
	}
	isLeft := map[string]bool{}
	for _, p := range left {
		isLeft[p.importPath] = true
	}
	if !isLeft["example.com/byor/ch09_serialize/hashtable"] {
		t.Errorf("ch09_serialize/hashtable, an unchanged copy of ch08's, is kept")
	}
	chapterRoot := regexp.MustCompile(`^example\.com/byor/ch[0-9]{2}_[a-z0-9_]+$`)
	var roots, tools int
	for _, p := range pkgs {
		mustKeep := p.importPath == "example.com/byor/ch08_hashtable/hashtable"
		if chapterRoot.MatchString(p.importPath) {
			roots++
			mustKeep = true
		}
		if strings.HasPrefix(p.importPath, "example.com/byor/tools/") {
			tools++
			mustKeep = true
		}
		if mustKeep && isLeft[p.importPath] {
			t.Errorf("%s is left out", p.importPath)
		}
	}
	if roots < 19 || tools == 0 {
		t.Errorf("go list named %d chapters' root packages and %d tools' packages", roots, tools)
	}

	t.Setenv(testkit.AllCopiesEnv, "1")
	if keep, left := leaveOutCopies(pkgs); len(left) != 0 || len(keep) != len(pkgs) {
		t.Errorf("with %s=1: %d kept and %d left out, of %d", testkit.AllCopiesEnv, len(keep), len(left), len(pkgs))
	}
}

// TestOnlyRunUnlessCopy: a package the same as an earlier chapter's is
// left out only when its TestMain is testkit.RunUnlessCopy, which would
// skip its tests; otherwise they would run, so it is kept.
func TestOnlyRunUnlessCopy(t *testing.T) {
	t.Setenv(testkit.AllCopiesEnv, "")
	const skipping = "package p\n\nfunc TestMain(m *testing.M) { testkit.RunUnlessCopy(m) }\n"
	const running = "package p\n\nfunc TestMain(m *testing.M) { m.Run() }\n"
	root := t.TempDir()
	files := map[string]string{}
	for _, ch := range []string{"ch01_one", "ch02_two"} {
		files[ch+"/copy/main_test.go"] = skipping
		files[ch+"/copy/a.go"] = "package p\n"
		files[ch+"/plain/a.go"] = "package p\n"
		files[ch+"/own/main_test.go"] = running
		files[ch+"/changed/main_test.go"] = skipping
	}
	files["ch02_two/changed/a.go"] = "package p\n"
	testkit.WriteFiles(t, root, files)

	var pkgs []pkg
	for _, name := range []string{"ch01_one/copy", "ch02_two/copy", "ch02_two/plain", "ch02_two/own", "ch02_two/changed"} {
		pkgs = append(pkgs, pkg{name, filepath.Join(root, name)})
	}
	_, left := leaveOutCopies(pkgs)
	if len(left) != 1 || left[0].importPath != "ch02_two/copy" {
		t.Errorf("left out %v, want only ch02_two/copy", left)
	}
}

// TestGoTestStatus: the arguments reach go test after the packages, and
// its output and exit status come back.
func TestGoTestStatus(t *testing.T) {
	const pkg = "example.com/byor/ch03_hello/client" // no test files: nothing to link
	var out, errOut bytes.Buffer
	if code := goTest([]string{pkg}, []string{"-run", "^$"}, &out, &errOut); code != 0 {
		t.Errorf("go test %s -run '^$': status %d, want 0; stderr:\n%s", pkg, code, &errOut)
	}
	if !strings.Contains(out.String(), pkg) {
		t.Errorf("go test's output %q does not name %s", &out, pkg)
	}
	errOut.Reset()
	// A flag without its value is go test's usage error, status 2.
	if code := goTest([]string{pkg}, []string{"-run"}, &out, &errOut); code != 2 {
		t.Errorf("go test %s -run: status %d, want 2; stderr:\n%s", pkg, code, &errOut)
	}
}

// TestPackagesAtOnce: -p n goes in front of the arguments unless they set
// -p before -args; after -args a -p is the tests' own.
func TestPackagesAtOnce(t *testing.T) {
	for _, tt := range []struct{ args, want []string }{
		{nil, []string{"-p", "3"}},
		{[]string{"-count=1", "-run", "X"}, []string{"-p", "3", "-count=1", "-run", "X"}},
		{[]string{"-p", "1"}, []string{"-p", "1"}},
		{[]string{"-v", "-p=4"}, []string{"-v", "-p=4"}},
		{[]string{"-parallel", "8"}, []string{"-p", "3", "-parallel", "8"}},
		{[]string{"-args", "-p", "1"}, []string{"-p", "3", "-args", "-p", "1"}},
	} {
		if got := withPackagesAtOnce(tt.args, 3); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("withPackagesAtOnce(%q, 3) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
