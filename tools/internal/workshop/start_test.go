package workshop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/byor/testkit"
)

// fakeRepo is a workspace with one chapter that requires another module of
// the repository, the way chapters will require a shared test module.
func fakeRepo(t *testing.T) string {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"go.work":    "go 1.26.0\n\nuse (\n\t./ch01_demo\n\t./kit\n)\n",
		"kit/go.mod": "module example.com/byor/kit\n\ngo 1.26.0\n",
		"kit/kit.go": "package kit\n\n// Double doubles.\nfunc Double(n int) int { return 2 * n }\n",
		"ch01_demo/go.mod": "module example.com/byor/ch01_demo\n\ngo 1.26.0\n\n" +
			"require example.com/byor/kit v0.0.0-00010101000000-000000000000\n",
		"ch01_demo/LESSON":    "nothing\n",
		"ch01_demo/README.md": "# the chapter\n",
		"ch01_demo/calc/calc.go": "package calc\n\nimport \"example.com/byor/kit\"\n\n" +
			"// Quad quadruples.\nfunc Quad(n int) int {\n\t// exercise: ch01-quad\n\treturn kit.Double(kit.Double(n))\n\t// end exercise: ch01-quad\n}\n",
		"ch01_demo/calc/calc_test.go": "package calc\n\nimport \"testing\"\n\n" +
			"func TestQuad(t *testing.T) {\n\tif got := Quad(3); got != 12 {\n\t\tt.Fatalf(\"Quad(3) = %d\", got)\n\t}\n}\n",
	})
	return root
}

var demo = Exercise{ID: "ch01-quad", Chapter: "ch01_demo", Title: "quad", Task: "Write Quad.", Minutes: 1,
	Tests: []TestRef{{"./calc", "^TestQuad$"}}}

// startDemo writes the demo exercise out of a fresh fake repository and
// returns the repository and the exercise's folder. The tests that call it
// run the go command on the exercise, which go test puts first on the
// PATH; a hang is left to go test's -timeout, which a slow machine can
// raise, rather than to a deadline of their own.
func startDemo(t *testing.T) (root, dir string, stubbed []string) {
	t.Helper()
	root = fakeRepo(t)
	dir = filepath.Join(t.TempDir(), "ex")
	stubbed, err := Start(root, demo, dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, dir, stubbed
}

func TestStartWritesAStandaloneExercise(t *testing.T) {
	root, dir, stubbed := startDemo(t)
	if strings.Join(stubbed, ",") != "calc: Quad" {
		t.Errorf("stubbed %v, want calc: Quad", stubbed)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.Contains(string(gomod), "replace example.com/byor/kit => ./_deps/kit\n") {
		t.Errorf("go.mod lacks the replace directive:\n%s", gomod)
	}
	for _, name := range []string{"_deps/kit/kit.go", "README.md", "CHAPTER.md", MetaFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "LESSON")); err == nil {
		t.Error("LESSON was copied")
	}
	if m, err := ReadMeta(dir); err != nil || m.Exercise != demo.ID || m.Chapter != demo.Chapter {
		t.Errorf("meta %+v, %v", m, err)
	}

	out, ok := GoTest(t.Context(), dir, "./...")
	if ok || !strings.Contains(out, "exercise ch01-quad: implement Quad") {
		t.Errorf("stub: want the test to fail on the stub's panic, got ok=%v:\n%s", ok, out)
	}
	sol := filepath.Join(t.TempDir(), "sol")
	if err := Solution(root, demo, sol); err != nil {
		t.Fatal(err)
	}
	if out, ok := GoTest(t.Context(), sol, "./..."); !ok {
		t.Errorf("solution fails without the workspace:\n%s", out)
	}
}

func TestStartRefusesANonEmptyDirectory(t *testing.T) {
	root := fakeRepo(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{"mine.txt": "keep me\n"})
	if _, err := Start(root, demo, dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("Start into a non-empty directory: err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Start wrote into the non-empty directory: %d entries", len(entries))
	}
}

func TestStartRefusesADirectoryInsideTheChapter(t *testing.T) {
	root := fakeRepo(t)
	dir := filepath.Join(root, "ch01_demo", "mine")
	if _, err := Start(root, demo, dir); err == nil || !strings.Contains(err.Error(), "inside the chapter") {
		t.Fatalf("Start into the chapter itself: err = %v", err)
	}
}

func TestStartWithoutMarkersFails(t *testing.T) {
	root := fakeRepo(t)
	ex := demo
	ex.ID = "ch01-missing"
	if _, err := Start(root, ex, filepath.Join(t.TempDir(), "ex")); err == nil || !strings.Contains(err.Error(), "no markers") {
		t.Fatalf("err = %v, want no markers", err)
	}
}

// TestCatalogMatchesMarkers: every exercise of the catalog names an
// existing chapter of its own number and has tests, and every marker in a
// chapter belongs to an exercise of the catalog.
func TestCatalogMatchesMarkers(t *testing.T) {
	const repo = "../../.."
	ids := map[string]bool{}
	for _, ex := range Catalog {
		if ids[ex.ID] {
			t.Errorf("exercise %s listed twice", ex.ID)
		}
		ids[ex.ID] = true
		if !strings.HasPrefix(ex.Chapter, ChapterOf(ex.ID)+"_") {
			t.Errorf("exercise %s belongs to chapter %s", ex.ID, ex.Chapter)
		}
		if len(ex.Tests) == 0 || ex.Minutes <= 0 || ex.Task == "" || ex.Hint == "" {
			t.Errorf("exercise %s lacks tests, minutes, task or hint", ex.ID)
		}
	}
	chapters, _ := filepath.Glob(filepath.Join(repo, "ch[0-9][0-9]_*"))
	found := map[string]bool{}
	for _, ch := range chapters {
		err := filepath.WalkDir(ch, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			regions, err := ParseMarkers(p, src)
			if err != nil {
				return err
			}
			if len(regions) > 0 {
				if _, err := enclosingFuncs(p, src, regions); err != nil {
					return err
				}
			}
			for _, r := range regions {
				if !ids[r.ID] {
					t.Errorf("%s:%d: exercise %s is not in the catalog", p, r.BeginLine, r.ID)
				}
				if strings.HasPrefix(filepath.Base(ch), ChapterOf(r.ID)+"_") {
					found[r.ID] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
	for id := range ids {
		if !found[id] {
			t.Errorf("exercise %s has no markers in its chapter", id)
		}
	}
}

func TestCheckReportsStubAndSolution(t *testing.T) {
	saved := Catalog
	Catalog = append(Catalog[:len(Catalog):len(Catalog)], demo)
	t.Cleanup(func() { Catalog = saved })
	root, dir, _ := startDemo(t)
	ctx := t.Context()

	var report strings.Builder
	ok, err := Check(ctx, root, dir, &report)
	if err != nil || ok {
		t.Fatalf("Check of the stub = %v, %v; want a failure", ok, err)
	}
	for _, want := range []string{
		"FAIL  go test -run '^TestQuad$' ./calc",
		"SKIP  conformance: this repository has no tools/conform yet",
		"0 passed, 1 failed, 1 not run (the check stops at the first failure)",
		"hint: a stub is still in place: Quad (exercise ch01-quad)",
	} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, report.String())
		}
	}

	// The learner writes the function.
	calc := filepath.Join(dir, "calc", "calc.go")
	src, _ := os.ReadFile(calc)
	fixed := strings.Replace(string(src), `panic("exercise ch01-quad: implement Quad")`, "return 4 * n", 1)
	if err := os.WriteFile(calc, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	report.Reset()
	ok, err = Check(ctx, root, dir, &report)
	if err != nil || !ok || !strings.Contains(report.String(), "2 passed, 0 failed") {
		t.Errorf("Check of a solved exercise = %v, %v:\n%s", ok, err, report.String())
	}
}
