package chapters

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// statFixture is a pair of chapters with a known set of changes.
func statFixture(t *testing.T) string {
	return twoChapters(t, map[string]string{
		"ch01_one/old.go":           "package main\n\nvar old = 1\n",
		"ch01_one/go.sum":           "a v1 h1:x\n",
		"ch02_two/go.sum":           "b v2 h1:y\n", // go.sum is never compared
		"ch02_two/main.go":          mainGo("example.com/byor/ch02_two", "hello"),
		"ch02_two/server/server.go": "package server\n\n// Run serves.\nfunc Run(string) {}\n\nvar n int\n",
		"ch02_two/new.go":           "package main\n",
		"ch02_two/.git/config":      "ignored\n",
		"ch02_two/blob.bin":         "a\x00b",
	})
}

func TestDiffStatCounts(t *testing.T) {
	root := statFixture(t)
	ds := diffOneTwo(t, root)
	type count struct {
		Path           string
		Added, Removed int
		Noted          bool
	}
	var got []count
	for _, d := range ds {
		got = append(got, count{d.Path, d.Added, d.Removed, d.Note != ""})
	}
	want := []count{
		{"blob.bin", 0, 0, true},
		{"main.go", 1, 1, false},
		{"new.go", 1, 0, false},
		{"old.go", 0, 3, false},
		{"server/server.go", 3, 0, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-file counts (-want +got):\n%s", diff)
	}

	var out bytes.Buffer
	if err := WriteStat(&out, ds); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if diff := cmp.Diff("5 files changed, +5 -4", lines[len(lines)-1]); diff != "" {
		t.Errorf("total line (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("server/server.go | +3 -0", lines[4]); diff != "" {
		t.Errorf("server.go stat line (-want +got):\n%s", diff)
	}
}

func TestDiffUnifiedNamesAndNotes(t *testing.T) {
	root := statFixture(t)
	ds := diffOneTwo(t, root)
	var out bytes.Buffer
	if err := WriteUnified(&out, ds); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"--- a/ch01_one/main.go\n+++ b/ch02_two/main.go\n",
		"-func main() { server.Run(\"hi\") }\n+func main() { server.Run(\"hello\") }\n",
		"--- /dev/null\n+++ b/ch02_two/new.go\n",
		"--- a/ch01_one/old.go\n+++ /dev/null\n",
		"note: /dev/null and b/ch02_two/blob.bin differ; not diffed: binary (contains NUL bytes)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("diff lacks %q; got:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"go.sum", ".git", "ch01_one\"", "ch02_two/server\""} {
		if strings.Contains(text, unwanted) {
			t.Errorf("diff mentions %q; got:\n%s", unwanted, text)
		}
	}
}

// TestDiffReadingOrder: code first (what LESSON lists, then the rest by
// path), then tests, test data, docs and the LESSON file, and the fuzz
// corpus last; workshop markers never show.
func TestDiffReadingOrder(t *testing.T) {
	root := twoChapters(t, map[string]string{
		"ch01_one/srv/srv.go":                  "package srv\n\nfunc F() int {\n\t// exercise: ch01-f\n\treturn 1\n\t// end exercise: ch01-f\n}\n",
		"ch02_two/srv/srv.go":                  "package srv\n\nfunc F() int {\n\t// exercise: ch01-f\n\treturn 2\n\t// end exercise: ch01-f\n}\n",
		"ch02_two/LESSON":                      "srv/srv.go\n",
		"ch02_two/README.md":                   "# two\n",
		"ch02_two/a_test.go":                   "package main\n",
		"ch02_two/main.go":                     "package main\n",
		"ch02_two/proto/testdata/fuzz/F/seed1": "go test fuzz v1\n",
		"ch02_two/testdata/script/s.txtar":     "exec true\n",
		"ch02_two/zz.go":                       "package main\n",
	})
	ds := diffOneTwo(t, root)
	var got []string
	for _, d := range ds {
		got = append(got, d.Path)
		if bytes.Contains(d.Text, []byte("exercise:")) {
			t.Errorf("%s: the diff shows a workshop marker:\n%s", d.Path, d.Text)
		}
	}
	want := []string{"srv/srv.go", "main.go", "zz.go", "a_test.go", "testdata/script/s.txtar",
		"LESSON", "README.md", "proto/testdata/fuzz/F/seed1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestDiffFollowsLesson: within each kind (code, tests, test data, docs,
// fuzz corpus) the files come in the order of the new chapter's LESSON,
// a new file it lists included, and the files it does not list (new ones)
// after them by path; a code file listed after the docs still comes
// before the tests.
func TestDiffFollowsLesson(t *testing.T) {
	root := twoChapters(t, map[string]string{
		"ch01_one/a.go":                    "package main\n",
		"ch01_one/b_test.go":               "package main\n",
		"ch01_one/README.md":               "# one\n",
		"ch01_one/testdata/script/s.txtar": "exec true\n",
		"ch02_two/a.go":                    "package main\n\nvar a = 2\n",
		"ch02_two/b_test.go":               "package main\n\nvar b = 2\n",
		"ch02_two/README.md":               "# two\n",
		"ch02_two/testdata/script/s.txtar": "exec false\n",
		"ch02_two/testdata/script/t.txtar": "exec true\n",
		"ch02_two/core.go":                 "package main\n",
		"ch02_two/new.go":                  "package main\n",
		"ch02_two/c_test.go":               "package main\n",
		"ch02_two/LESSON": "# core first\ncore.go\nserver/server.go\nREADME.md\n" +
			"testdata/script/s.txtar\nb_test.go\na.go\n",
		"ch02_two/server/server.go": "package server\n\nfunc Run(string) {}\n\nvar n int\n",
	})
	ds := diffOneTwo(t, root)
	var got []string
	for _, d := range ds {
		got = append(got, d.Path)
	}
	want := []string{
		"core.go", "server/server.go", "a.go", "new.go", // code: LESSON's order, then unlisted
		"b_test.go", "c_test.go", // tests
		"testdata/script/s.txtar", "testdata/script/t.txtar", // test data
		"README.md", "LESSON", // docs
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	// -stat lists the files in the same order.
	var out bytes.Buffer
	if err := WriteStat(&out, ds); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); !strings.HasPrefix(first, "core.go ") {
		t.Errorf("-stat opens with %q, want core.go", first)
	}
}

// TestOrderWithoutLesson: with no LESSON lines, files go by kind, then
// path; a path listed twice counts at its first line.
func TestOrderWithoutLesson(t *testing.T) {
	paths := []string{"z.go", "a_test.go", "README.md", "a.go", "testdata/x", "m.go"}
	want := []string{"a.go", "m.go", "z.go", "a_test.go", "testdata/x", "README.md"}
	if diff := cmp.Diff(want, Order(paths, nil)); diff != "" {
		t.Errorf("no LESSON (-want +got):\n%s", diff)
	}
	want = []string{"z.go", "a.go", "m.go", "a_test.go", "testdata/x", "README.md"}
	if diff := cmp.Diff(want, Order(paths, []string{"z.go", "a.go", "z.go"})); diff != "" {
		t.Errorf("LESSON z.go, a.go (-want +got):\n%s", diff)
	}
}

// diffOneTwo diffs the chapters ch01_one and ch02_two under root.
func diffOneTwo(t *testing.T, root string) []FileDiff {
	t.Helper()
	ds, err := DiffChapters(root, "ch01_one", "ch02_two")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
