package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
)

// fixture builds two chapters that differ in one line of main.go.
func fixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"ch01_one/go.mod":  "module example.com/byor/ch01_one\n",
		"ch01_one/main.go": "package main\n\nfunc main() { println(1) }\n",
		"ch02_two/go.mod":  "module example.com/byor/ch02_two\n",
		"ch02_two/main.go": "package main\n\nfunc main() { println(2) }\n",
		"ch02_two/LESSON":  "main.go\n",
	}
	for name, body := range files {
		write(t, filepath.Join(root, name), body)
	}
	return root
}

func write(t *testing.T, file, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// chdiff runs the command and returns its exit code, stdout and stderr.
func chdiff(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCheckDiffsDetectsStaleFileAndPassesAfterWrite(t *testing.T) {
	root := fixture(t)
	dir := filepath.Join(t.TempDir(), "diffs")
	pair := filepath.Join(dir, "ch01_one..ch02_two.diff")
	leftover := filepath.Join(dir, "ch00_gone..ch01_one.diff")

	// Nothing written yet: the pair's file is missing.
	code, _, stderr := chdiff("-root", root, "-check-diffs", dir)
	if code != 1 || !strings.Contains(stderr, pair+" is missing") || !strings.Contains(stderr, "go run ./tools/chdiff -write "+dir) {
		t.Fatalf("check before write: code %d, stderr:\n%s", code, stderr)
	}

	// A stale file and a leftover from a pair that no longer exists.
	write(t, pair, "old diff\n")
	write(t, leftover, "old diff\n")
	code, _, stderr = chdiff("-root", root, "-check-diffs", dir)
	if code != 1 || !strings.Contains(stderr, pair+" is out of date") || !strings.Contains(stderr, leftover) {
		t.Fatalf("check of stale files: code %d, stderr:\n%s", code, stderr)
	}

	if code, _, stderr := chdiff("-root", root, "-write", dir); code != 0 {
		t.Fatalf("write: code %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("-write kept %s (err %v)", leftover, err)
	}
	// The written file holds exactly what the plain diff prints.
	_, plain, _ := chdiff("-root", root, "ch01_one", "ch02_two")
	written, err := os.ReadFile(pair)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, string(written)); diff != "" {
		t.Errorf("written diff differs from plain output (-plain +written):\n%s", diff)
	}
	if code, _, stderr := chdiff("-root", root, "-check-diffs", dir); code != 0 {
		t.Errorf("check after write: code %d, stderr:\n%s", code, stderr)
	}
}

func TestLineageCommand(t *testing.T) {
	root := fixture(t)
	code, stdout, stderr := chdiff("-root", root, "-lineage")
	if code != 0 || stdout != "lineage: 2 chapters, 1 shared files in step\n" {
		t.Fatalf("in step: code %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	write(t, filepath.Join(root, "ch02_two", "LESSON"), "# nothing declared\n")
	code, _, stderr = chdiff("-root", root, "-lineage")
	if code != 1 || !strings.Contains(stderr, "ch02_two/main.go differs from ch01_one/main.go") {
		t.Errorf("drift: code %d, stderr:\n%s", code, stderr)
	}
}

func TestCheckDocsFailsWhenStaleAndPassesAfterDocs(t *testing.T) {
	root := fixture(t)
	write(t, filepath.Join(root, "ch01_one", "README.md"), "# ch01_one: one\n")
	write(t, filepath.Join(root, "ch02_two", "README.md"), "# ch02_two: two\n")
	write(t, filepath.Join(root, "ch02_two", "testdata", "script", "s.txtar"),
		"startserver\nexec client -addr $ADDR get k\ncmp stdout nx.out\nstopserver\n-- nx.out --\n(nil)\n")
	dir := filepath.Join(root, "docs")
	readme := filepath.Join(dir, "README.md")
	guide := filepath.Join(dir, "two.md")
	write(t, readme, "# Docs\n\n<!-- chapter map -->\n<!-- end chapter map -->\n")
	write(t, guide, "# ch02\n\n<!-- session: ch02_two/testdata/script/s.txtar -->\n<!-- end session -->\n")

	code, _, stderr := chdiff("-root", root, "-check-docs", dir)
	for _, want := range []string{
		readme + " has stale generated blocks",
		guide + " has stale generated blocks",
		filepath.Join(dir, "diffs", "ch01_one..ch02_two.diff") + " is missing",
		"regenerate with: go run ./tools/chdiff -docs " + dir,
	} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("check before -docs: code %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}

	if code, _, stderr := chdiff("-root", root, "-docs", dir); code != 0 {
		t.Fatalf("-docs: code %d, stderr:\n%s", code, stderr)
	}
	got, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	want := "# ch02\n\n<!-- session: ch02_two/testdata/script/s.txtar -->\n" +
		"```console\n$ bin/client get k\n(nil)\n```\n<!-- end session -->\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("guide after -docs (-want +got):\n%s", diff)
	}
	if code, _, stderr := chdiff("-root", root, "-check-docs", dir); code != 0 {
		t.Errorf("check after -docs: code %d, stderr:\n%s", code, stderr)
	}

	// A hand edit inside a generated block is caught.
	write(t, guide, strings.Replace(string(got), "(nil)", "(str) v", 1))
	code, _, stderr = chdiff("-root", root, "-check-docs", dir)
	if code != 1 || !strings.Contains(stderr, guide+" has stale generated blocks") || strings.Contains(stderr, readme) {
		t.Errorf("check after hand edit: code %d, stderr:\n%s", code, stderr)
	}
}

func TestDocsErrorOnMissingScript(t *testing.T) {
	root := fixture(t)
	dir := filepath.Join(root, "docs")
	guide := filepath.Join(dir, "two.md")
	write(t, guide, "<!-- session: ch02_two/testdata/script/nope.txtar -->\n<!-- end session -->\n")
	for _, flag := range []string{"-docs", "-check-docs"} {
		code, _, stderr := chdiff("-root", root, flag, dir)
		if code != 1 || !strings.Contains(stderr, guide+":1: session script ch02_two/testdata/script/nope.txtar") {
			t.Errorf("%s: code %d, stderr:\n%s", flag, code, stderr)
		}
	}
}

func TestUsage(t *testing.T) {
	cmdflagtest.UsageErrors(t, run, "usage:\n  chdiff", [][]string{nil, {"ch01_one"}, {"-stat"}, {"-code"}, {"-code", "-lineage"}, {"-lineage", "a", "b"}, {"-docs", "d", "-lineage"}, {"-check-docs", "d", "a", "b"}, {"-nosuchflag"}})
	cmdflagtest.Help(t, run, "usage:\n  chdiff")
}

// TestChapterByNumber: a chapter may be named by its number alone, as
// tools/conform names it; an unknown one is an error that says so.
func TestChapterByNumber(t *testing.T) {
	root := fixture(t)
	code, full, stderr := chdiff("-root", root, "ch01_one", "ch02_two")
	if code != 0 || !strings.Contains(full, "println(2)") {
		t.Fatalf("chdiff ch01_one ch02_two: exit %d, stdout %q, stderr %q", code, full, stderr)
	}
	if code, out, stderr := chdiff("-root", root, "ch01", "ch02/"); code != 0 || out != full {
		t.Errorf("chdiff ch01 ch02/: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, out, full)
	}
	if code, _, stderr := chdiff("-root", root, "ch01", "ch09"); code != 1 || !strings.Contains(stderr, "no chapter ch09") {
		t.Errorf("chdiff ch01 ch09: exit %d, stderr %q", code, stderr)
	}
}

// TestLessonOrder: the diff, its -stat and -code follow the new chapter's
// LESSON (a new file it lists included), code before tests before docs,
// and the files it leaves out after the listed ones of their kind.
func TestLessonOrder(t *testing.T) {
	root := fixture(t)
	for name, body := range map[string]string{
		"ch01_one/util.go":      "package main\n",
		"ch01_one/main_test.go": "package main\n",
		"ch01_one/README.md":    "# ch01_one: one\n",
		"ch02_two/util.go":      "package main\n\nvar u = 2\n",
		"ch02_two/main_test.go": "package main\n\nvar t = 2\n",
		"ch02_two/README.md":    "# ch02_two: two\n\nMore.\n",
		"ch02_two/core.go":      "package main\n",
		"ch02_two/aaa.go":       "package main\n",
		"ch02_two/LESSON":       "README.md\nmain_test.go\ncore.go\nutil.go\nmain.go\n",
	} {
		write(t, filepath.Join(root, name), body)
	}
	code, stat, stderr := chdiff("-root", root, "-stat", "ch01", "ch02")
	if code != 0 {
		t.Fatalf("-stat: exit %d, stderr %q", code, stderr)
	}
	var got []string
	for _, line := range strings.Split(stat, "\n") {
		if name, _, ok := strings.Cut(line, " "); ok && !strings.Contains(line, "files changed") {
			got = append(got, name)
		}
	}
	want := []string{"core.go", "util.go", "main.go", "aaa.go", "main_test.go", "README.md", "LESSON"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-stat order (-want +got):\n%s", diff)
	}
	_, full, _ := chdiff("-root", root, "ch01", "ch02")
	if !strings.HasPrefix(full, "diff /dev/null b/ch02_two/core.go\n--- /dev/null\n+++ b/ch02_two/core.go\n") {
		t.Errorf("diff does not open with core.go:\n%s", full)
	}
	_, codeOnly, _ := chdiff("-root", root, "-stat", "-code", "ch01", "ch02")
	if !strings.HasPrefix(codeOnly, "core.go ") || strings.Contains(codeOnly, "main_test.go") {
		t.Errorf("-code -stat:\n%s", codeOnly)
	}
}
