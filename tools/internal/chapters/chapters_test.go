package chapters

import (
	"os/exec"
	"sort"
	"testing"

	"example.com/byor/testkit"
	"github.com/google/go-cmp/cmp"
)

func goMod(module string) string { return "module " + module + "\n\ngo 1.25.0\n" }

// mainGo is a file that imports a package of its own module.
func mainGo(module, msg string) string {
	return "package main\n\nimport \"" + module + "/server\"\n\nfunc main() { server.Run(\"" + msg + "\") }\n"
}

// twoChapters builds ch01_one and ch02_two, identical apart from their
// module paths, with extra (or overriding) files for the second chapter.
func twoChapters(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"ch01_one/go.mod":           goMod("example.com/byor/ch01_one"),
		"ch01_one/main.go":          mainGo("example.com/byor/ch01_one", "hi"),
		"ch01_one/server/server.go": "package server\n\nfunc Run(string) {}\n",
		"ch02_two/go.mod":           goMod("example.com/byor/ch02_two"),
		"ch02_two/main.go":          mainGo("example.com/byor/ch02_two", "hi"),
		"ch02_two/server/server.go": "package server\n\nfunc Run(string) {}\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	testkit.WriteFiles(t, root, files)
	return root
}

func TestFoldMakesImportPathsCompareEqual(t *testing.T) {
	a := []byte(mainGo("example.com/byor/ch01_one", "hi"))
	b := []byte(mainGo("example.com/byor/ch02_two", "hi"))
	if string(a) == string(b) {
		t.Fatal("fixtures should differ before folding")
	}
	if diff := cmp.Diff(string(Fold(a, "example.com/byor/ch01_one")), string(Fold(b, "example.com/byor/ch02_two"))); diff != "" {
		t.Errorf("folded files differ (-ch01 +ch02):\n%s", diff)
	}
}

func TestFoldLeavesLongerNamesAlone(t *testing.T) {
	in := "example.com/byor/ch01_one2 example.com/byor/ch01_one/x example.com/byor/ch01_one\n"
	want := "example.com/byor/ch01_one2 " + Placeholder + "/x " + Placeholder + "\n"
	if diff := cmp.Diff(want, string(Fold([]byte(in), "example.com/byor/ch01_one"))); diff != "" {
		t.Errorf("Fold (-want +got):\n%s", diff)
	}
}

func TestListSkipsDirectoriesWithoutGoMod(t *testing.T) {
	root := twoChapters(t, map[string]string{"ch03_draft/notes.txt": "todo\n", "other/go.mod": goMod("x")})
	chs, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Chapter{{"ch01_one", "example.com/byor/ch01_one"}, {"ch02_two", "example.com/byor/ch02_two"}}
	if diff := cmp.Diff(want, chs); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestLineageInStep(t *testing.T) {
	root := twoChapters(t, nil)
	res, problems, err := CheckLineage(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 0 {
		t.Fatalf("unexpected problems: %q", problems)
	}
	// go.mod, main.go and server/server.go all match once folded.
	if diff := cmp.Diff(Lineage{Chapters: 2, InStep: 3}, res); diff != "" {
		t.Errorf("CheckLineage (-want +got):\n%s", diff)
	}
}

// lineageProblems runs CheckLineage and returns its problems.
func lineageProblems(t *testing.T, root string) []string {
	t.Helper()
	_, problems, err := CheckLineage(root)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

func TestLineageDrift(t *testing.T) {
	// A fix made in ch01 that never reached ch02.
	root := twoChapters(t, map[string]string{
		"ch01_one/server/server.go": "package server\n\n// Run is fixed here.\nfunc Run(string) {}\n",
	})
	want := []string{"ch02_two/server/server.go differs from ch01_one/server/server.go but is not declared in ch02_two/LESSON: carry the fix over, or declare the change"}
	if diff := cmp.Diff(want, lineageProblems(t, root)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestLineageDeclaredChange(t *testing.T) {
	root := twoChapters(t, map[string]string{
		"ch02_two/main.go": mainGo("example.com/byor/ch02_two", "hello"),
		"ch02_two/LESSON":  "# the greeting changes\n\nmain.go\n",
		"ch02_two/new.go":  "package main\n", // new files need no declaration
	})
	if problems := lineageProblems(t, root); len(problems) != 0 {
		t.Errorf("unexpected problems: %q", problems)
	}
}

func TestLineageStaleDeclaration(t *testing.T) {
	root := twoChapters(t, map[string]string{"ch02_two/LESSON": "main.go\n"})
	want := []string{"ch02_two/LESSON declares main.go, but it is identical to ch01_one/main.go: remove the stale line"}
	if diff := cmp.Diff(want, lineageProblems(t, root)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestLineageUndeclaredDeletion(t *testing.T) {
	root := twoChapters(t, map[string]string{"ch01_one/old.go": "package main\n"})
	want := []string{"ch01_one/old.go is deleted in ch02_two but not declared in ch02_two/LESSON: restore it, or declare the deletion"}
	if diff := cmp.Diff(want, lineageProblems(t, root)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}

	// Declaring the deletion makes it pass.
	testkit.WriteFiles(t, root, map[string]string{"ch02_two/LESSON": "old.go\n"})
	if problems := lineageProblems(t, root); len(problems) != 0 {
		t.Errorf("declared deletion: unexpected problems: %q", problems)
	}
}

// TestLineageBadDeclarations: a line naming no file, or not a clean path,
// is a problem; a line naming a file new in the chapter is not (it places
// the file in the diff).
func TestLineageBadDeclarations(t *testing.T) {
	root := twoChapters(t, map[string]string{
		"ch02_two/LESSON": "missing.go\n./main.go\nnew.go\n",
		"ch02_two/new.go": "package main\n",
	})
	got := lineageProblems(t, root)
	want := []string{
		`ch02_two/LESSON:2: "./main.go" is not a clean relative path like server/server.go`,
		"ch02_two/LESSON declares missing.go, which exists in neither ch01_one nor ch02_two",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestFoldNameFoldsOnlyTheWholeName(t *testing.T) {
	in := "# ch12_timers: x\ngo test example.com/byor/ch12_timers/...\n./ch12_timers/cmd ch12_timers2 xch12_timers ch12_timers-b ch11_zset\n"
	want := "# CHAPTER: x\ngo test example.com/byor/CHAPTER/...\n./CHAPTER/cmd ch12_timers2 xch12_timers ch12_timers-b ch11_zset\n"
	if got := string(FoldName([]byte(in), "ch12_timers")); got != want {
		t.Errorf("FoldName:\n got %q\nwant %q", got, want)
	}
}

func TestReadmeNamingItselfIsNotAChange(t *testing.T) {
	root := twoChapters(t, map[string]string{
		"ch01_one/README.md": "# ch01_one\n\n    go test example.com/byor/ch01_one/...\n",
		"ch02_two/README.md": "# ch02_two\n\n    go test example.com/byor/ch02_two/...\n",
	})
	ds, err := DiffChapters(root, "ch01_one", "ch02_two")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 0 {
		t.Errorf("diff of chapters differing only in self-names: %+v, want none", ds)
	}
}

func TestCodeOnly(t *testing.T) {
	for rel, want := range map[string]bool{
		"server/server.go": true, "go.mod": true, "cmd/server/main.go": true,
		"server/server_test.go": false, "testdata/script/a.txtar": false,
		"avl/testdata/x": false, "README.md": false, "LESSON": false,
	} {
		if got := IsCode(rel); got != want {
			t.Errorf("IsCode(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestLoadSkipsWhatGitIgnores puts a chapter in a git work tree with an
// ignored profile and an untracked new file: only the latter is read.
func TestLoadSkipsWhatGitIgnores(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := twoChapters(t, map[string]string{
		".gitignore":             "*.prof\n/ch02_two/bin/\n",
		"ch02_two/cpu.prof":      "\x00binary",
		"ch02_two/bin/server":    "\x00binary",
		"ch02_two/server/new.go": "package server\n",
	})
	for _, args := range [][]string{{"init", "-q"}, {"add", "ch01_one", ".gitignore"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	tree, err := Load(root, "ch02_two")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range tree.Files {
		got = append(got, p)
	}
	sort.Strings(got)
	want := []string{"go.mod", "main.go", "server/new.go", "server/server.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files loaded (-want +got):\n%s", diff)
	}
	if _, problems, err := CheckLineage(root); err != nil || len(problems) != 0 {
		t.Errorf("lineage with ignored files: %v, %v; want no problems", problems, err)
	}
}
