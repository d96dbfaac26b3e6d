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

// TestCarriedTestsLeftOut: in a chapter between the first and the newest,
// a package runs only the tests of its test files that are new or changed
// since the earlier chapter (a file the same but for its module path is
// carried), and if its testdata changed, those of the files that name
// testdata too; a package new in its chapter, and every package of the
// newest chapter run whole.
func TestCarriedTestsLeftOut(t *testing.T) {
	root := t.TempDir()
	carried := func(ch string) string {
		return "package p\n\nimport _ \"example.com/byor/" + ch + "/q\"\n\nfunc TestCarried(t *testing.T) {}\n"
	}
	testkit.WriteFiles(t, root, map[string]string{
		"ch01_one/p/a_test.go":        carried("ch01_one"),
		"ch01_one/p/b_test.go":        "package p\n\nfunc TestOld(t *testing.T) {}\n",
		"ch01_one/p/testdata/x.txt":   "same",
		"ch01_one/d/a_test.go":        "package d\n\nfunc TestD(t *testing.T) {}\n",
		"ch01_one/d/testdata/x.txt":   "one",
		"ch01_one/d/s_test.go":        "package d\n\nfunc TestScripts(t *testing.T) { run(t, \"testdata\") }\n",
		"ch02_two/p/a_test.go":        carried("ch02_two"),
		"ch02_two/p/b_test.go":        "package p\n\nfunc TestOld(t *testing.T) {}\n\nfunc TestChanged(t *testing.T) {}\n\nfunc FuzzNew(f *testing.F) {}\n\nfunc TestMain(m *testing.M) {}\n",
		"ch02_two/p/c_test.go":        "package p\n\nfunc TestNewFile(t *testing.T) {}\n",
		"ch02_two/p/testdata/x.txt":   "same",
		"ch02_two/d/a_test.go":        "package d\n\nfunc TestD(t *testing.T) {}\n",
		"ch02_two/d/testdata/x.txt":   "two",
		"ch02_two/d/s_test.go":        "package d\n\nfunc TestScripts(t *testing.T) { run(t, \"testdata\") }\n",
		"ch02_two/fresh/a_test.go":    "package fresh\n\nfunc TestF(t *testing.T) {}\n",
		"ch02_two/same/a_test.go":     "package same\n\nfunc TestS(t *testing.T) {}\n",
		"ch01_one/same/a_test.go":     "package same\n\nfunc TestS(t *testing.T) {}\n",
		"ch03_three/p/a_test.go":      carried("ch03_three"),
		"ch03_three/p/testdata/x.txt": "same",
	})
	newest := newestChapter(root)
	if newest != "ch03_three" {
		t.Fatalf("newestChapter = %q", newest)
	}
	for _, tt := range []struct {
		dir  string
		want selection
	}{
		{"ch01_one/p", selection{all: true}}, // no earlier chapter
		{"ch02_two/p", selection{only: []string{"FuzzNew", "TestChanged", "TestNewFile", "TestOld"}}},
		{"ch02_two/d", selection{only: []string{"TestScripts"}}}, // its testdata changed: what reads it
		{"ch02_two/fresh", selection{all: true}},
		{"ch02_two/same", selection{}},         // nothing new to run
		{"ch03_three/p", selection{all: true}}, // the newest chapter
	} {
		got := selectTests(root, filepath.Join(root, tt.dir), newest)
		if got.all != tt.want.all || strings.Join(got.only, " ") != strings.Join(tt.want.only, " ") {
			t.Errorf("selectTests(%s) = %+v, want %+v", tt.dir, got, tt.want)
		}
	}
	if p := runPattern([]string{"TestA", "FuzzB"}); p != "^(TestA|FuzzB)$" {
		t.Errorf("runPattern = %q", p)
	}
}

// TestArgsThatSelect: arguments that choose tests turn the selection off.
func TestArgsThatSelect(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-count=1", "-v"}, false},
		{[]string{"-run", "X"}, true},
		{[]string{"-run=X"}, true},
		{[]string{"-bench", "."}, true},
		{[]string{"-args", "-run", "X"}, false},
	} {
		if got := selectsTests(tt.args); got != tt.want {
			t.Errorf("selectsTests(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
