package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestText: the names and the prose that name a moved chapter move; the
// book's chapters, numbers no chapter has, and longer words stay.
func TestText(t *testing.T) {
	m := mapper{at: 15, by: 1, chapters: map[int]bool{14: true, 15: true, 16: true, 17: true}}
	for in, want := range map[string]string{
		"ch15_field_ttl":                            "ch16_field_ttl",
		"example.com/byor/ch17_resp/server":         "example.com/byor/ch18_resp/server",
		"ch14 -> ch15, ch15-ch17, ch15..ch16":       "ch14 -> ch16, ch16-ch18, ch16..ch17",
		"(ch17 on) ch15_extra":                      "(ch18 on) ch16_extra",
		"chapter 15's server; Chapter 17":           "chapter 16's server; Chapter 18",
		"chapters 15 and 16, chapters 14, 15 or 17": "chapters 16 and 17, chapters 14, 16 or 18",
		"chapters 16-17":                            "chapters 17-18",
		"chapter 16, 64 requests":                   "chapter 17, 64 requests",
		"ch150 xch15 march15 ch99 chapter 99":       "ch150 xch15 march15 ch99 chapter 99",
		"ch13_heap_ttl, chapter 14, ch14":           "ch13_heap_ttl, chapter 14, ch14",
		`{ID: "ch16", Num: 16, Dir: "ch16_x"}`:      `{ID: "ch17", Num: 17, Dir: "ch17_x"}`,
	} {
		if got := string(m.text([]byte(in))); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRun moves a small repository's chapters up by one and checks every
// file's place and text; the book's chapter stays where it is.
func TestRun(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.work":                          "use (\n\t./ch14_pool\n\t./ch15_a\n\t./ch16_b\n)\n",
		"ch14_pool/go.mod":                 "module example.com/byor/ch14_pool\n",
		"ch15_a/go.mod":                    "module example.com/byor/ch15_a\n",
		"ch15_a/x.go":                      "// chapter 15's x, after ch14\n",
		"ch16_b/go.mod":                    "module example.com/byor/ch16_b\n",
		"ch16_b/x.go":                      "import \"example.com/byor/ch16_b/y\" // ch16, ch15\n",
		"ch16_b/data.bin":                  "ch15\x00ch16",
		"docs/ch15_a.md":                   "see ch16\n",
		"docs/diffs/ch15_a..ch16_b.diff":   "--- ch15_a\n+++ ch16_b\n",
		"tools/internal/conform/resp15.go": "// the stage of chapter 15\n",
	}
	for name, body := range files {
		write(t, filepath.Join(root, name), body)
	}
	git(t, root, "init", "-q")
	git(t, root, "add", ".")
	var out, errs bytes.Buffer
	if code := run([]string{"-root", root, "-at", "15", "-by", "1"}, &out, &errs); code != 0 {
		t.Fatalf("run: %d\n%s", code, errs.String())
	}
	want := map[string]string{
		"go.work":                          "use (\n\t./ch14_pool\n\t./ch16_a\n\t./ch17_b\n)\n",
		"ch14_pool/go.mod":                 "module example.com/byor/ch14_pool\n",
		"ch16_a/go.mod":                    "module example.com/byor/ch16_a\n",
		"ch16_a/x.go":                      "// chapter 16's x, after ch14\n",
		"ch17_b/go.mod":                    "module example.com/byor/ch17_b\n",
		"ch17_b/x.go":                      "import \"example.com/byor/ch17_b/y\" // ch17, ch16\n",
		"ch17_b/data.bin":                  "ch15\x00ch16", // not text: only moved
		"docs/ch16_a.md":                   "see ch17\n",
		"docs/diffs/ch16_a..ch17_b.diff":   "--- ch16_a\n+++ ch17_b\n",
		"tools/internal/conform/resp16.go": "// the stage of chapter 16\n",
	}
	got := map[string]string{}
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			if info != nil && info.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		body, _ := os.ReadFile(path)
		got[filepath.ToSlash(rel)] = string(body)
		return nil
	})
	for name, body := range want {
		if got[name] != body {
			t.Errorf("%s = %q, want %q", name, got[name], body)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is left over", name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "ch15_a")); !os.IsNotExist(err) {
		t.Errorf("ch15_a is still there: %v", err)
	}
}

// TestRefused: a shift onto a chapter that stays, or into the book's
// numbers, is refused before anything changes.
func TestRefused(t *testing.T) {
	m := mapper{at: 16, by: -1, chapters: map[int]bool{14: true, 15: true, 16: true}}
	if err := m.check(); err == nil {
		t.Error("ch16 -> ch15 with ch15 staying was not refused")
	}
	m = mapper{at: 15, by: -1, chapters: map[int]bool{14: true, 15: true}}
	if err := m.check(); err == nil {
		t.Error("ch15 -> ch14 was not refused")
	}
	m = mapper{at: 16, by: -1, chapters: map[int]bool{14: true, 16: true, 17: true}}
	if err := m.check(); err != nil {
		t.Errorf("closing the gap at ch15: %v", err)
	}
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

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
