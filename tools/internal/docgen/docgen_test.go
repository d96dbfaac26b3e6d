package docgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/byor/testkit"
	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// chapter returns the files of a minimal chapter module.
func chapter(name, adds string) map[string]string {
	return map[string]string{
		name + "/go.mod":                  "module example.com/byor/" + name + "\n",
		name + "/README.md":               "# " + name + ": " + adds + "\n\nMore text.\n",
		name + "/cmd/server/main.go":      "package main\n\nfunc main() {}\n",
		name + "/testdata/script/s.txtar": "startserver\nexec client -addr $ADDR get " + name + "\ncmpvary -text stdout '(nil)'\nstopserver\n",
	}
}

// repo builds a repository of four chapters: a gap before ch06 and one
// beyond the book, plus a directory without go.mod that is not a chapter.
func repo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"ch05_draft/notes.txt": "todo\n"}
	for _, ch := range [][2]string{
		{"ch03_hello", "a first server"},
		{"ch04_protocol", "framing | lengths"},
		{"ch06_eventloop", "one thread"},
		{"ch16_extra", "more"},
	} {
		for k, v := range chapter(ch[0], ch[1]) {
			files[k] = v
		}
	}
	testkit.WriteFiles(t, root, files)
	return root
}

func TestChapterMap(t *testing.T) {
	root := repo(t)
	dir := filepath.Join(root, "docs")
	testkit.WriteFiles(t, dir, map[string]string{"ch04_protocol.md": "# guide\n"})
	if err := os.RemoveAll(filepath.Join(root, "ch16_extra", "cmd")); err != nil {
		t.Fatal(err)
	}
	got, err := ChapterMap(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `| book chapter | module | what it adds | guide | run | diff |
| --- | --- | --- | --- | --- | --- |
| 03 | [ch03_hello](../ch03_hello) | a first server |  | ` + "`go run ./ch03_hello/cmd/server`" + ` |  |
| 04 | [ch04_protocol](../ch04_protocol) | framing \| lengths | [ch04_protocol.md](ch04_protocol.md) | ` + "`go run ./ch04_protocol/cmd/server`" + ` | [` + "`go run ./tools/chdiff ch03_hello ch04_protocol`" + `](diffs/ch03_hello..ch04_protocol.diff) |
| 05-06 | [ch06_eventloop](../ch06_eventloop) | one thread |  | ` + "`go run ./ch06_eventloop/cmd/server`" + ` | [` + "`go run ./tools/chdiff ch04_protocol ch06_eventloop`" + `](diffs/ch04_protocol..ch06_eventloop.diff) |
| beyond the book | [ch16_extra](../ch16_extra) | more |  |  | [` + "`go run ./tools/chdiff ch06_eventloop ch16_extra`" + `](diffs/ch06_eventloop..ch16_extra.diff) |
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ChapterMap (-want +got):\n%s", diff)
	}
}

func TestChapterMapRejectsBadReadme(t *testing.T) {
	root := repo(t)
	// A chapter copied from the previous one, title not yet updated.
	testkit.WriteFiles(t, root, map[string]string{"ch16_extra/README.md": "# ch06_eventloop: one thread\n"})
	_, err := ChapterMap(root, filepath.Join(root, "docs"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join("ch16_extra", "README.md")) {
		t.Errorf("ChapterMap error = %v, want one naming ch16_extra/README.md", err)
	}
}

func TestRegenerateFillsBlocksAndKeepsTheRest(t *testing.T) {
	root := repo(t)
	g := &generator{root: root, dir: filepath.Join(root, "docs")}
	in := "# Guide\n\n" +
		"<!-- session: ch03_hello/testdata/script/s.txtar -->\n" +
		"stale text\n" +
		"<!-- end session -->\n" +
		"Text between.\n\n" +
		"```markdown\n<!-- session: nowhere.txtar -->\n```\n" +
		"    <!-- chapter map -->\n" +
		"<!-- session: ch06_eventloop/testdata/script/s.txtar -->\n" +
		"<!-- end session -->\n"
	want := "# Guide\n\n" +
		"<!-- session: ch03_hello/testdata/script/s.txtar -->\n" +
		console("$ bin/client get ch03_hello", "(nil)") +
		"<!-- end session -->\n" +
		"Text between.\n\n" +
		"```markdown\n<!-- session: nowhere.txtar -->\n```\n" +
		"    <!-- chapter map -->\n" +
		"<!-- session: ch06_eventloop/testdata/script/s.txtar -->\n" +
		console("$ bin/client get ch06_eventloop", "(nil)") +
		"<!-- end session -->\n"
	got, err := g.regenerate("guide.md", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("regenerate (-want +got):\n%s", diff)
	}
	// Regenerating the result changes nothing.
	again, err := g.regenerate("guide.md", got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(got), string(again)); diff != "" {
		t.Errorf("second regenerate (-first +second):\n%s", diff)
	}
}

func TestRegenerateErrors(t *testing.T) {
	root := repo(t)
	g := &generator{root: root, dir: filepath.Join(root, "docs")}
	tests := []struct{ name, in, want string }{
		{"missing script", "x\n<!-- session: ch03_hello/testdata/script/nope.txtar -->\n<!-- end session -->\n",
			"guide.md:2: session script ch03_hello/testdata/script/nope.txtar"},
		{"script outside the repository", "<!-- session: ../x.txtar -->\n<!-- end session -->\n", "not a clean path"},
		{"unterminated session", "<!-- session: ch03_hello/testdata/script/s.txtar -->\ntext\n",
			"guide.md:1: <!-- session: ch03_hello/testdata/script/s.txtar --> is not closed by <!-- end session -->"},
		{"session closed by the wrong marker", "<!-- session: ch03_hello/testdata/script/s.txtar -->\n<!-- end chapter map -->\n",
			"is not closed"},
		{"session running into the next one", "<!-- session: ch03_hello/testdata/script/s.txtar -->\n" +
			"<!-- session: ch03_hello/testdata/script/s.txtar -->\n<!-- end session -->\n", "guide.md:1:"},
		{"unterminated map", "<!-- chapter map -->\n", "not closed by <!-- end chapter map -->"},
		{"end without start", "text\n<!-- end session -->\n", "guide.md:2: <!-- end session --> has no opening marker"},
		{"misspelt marker", "<!-- session ch03_hello/testdata/script/s.txtar -->\n", "guide.md:1: malformed marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.regenerate("guide.md", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("regenerate = %q, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

func TestWriteThenCheck(t *testing.T) {
	root := repo(t)
	dir := filepath.Join(root, "docs")
	readme := filepath.Join(dir, "README.md")
	plain := filepath.Join(dir, "notes.md")
	testkit.WriteFiles(t, dir, map[string]string{
		"README.md": "# Docs\n\n<!-- chapter map -->\n<!-- end chapter map -->\n",
		"notes.md":  "no blocks here\n",
	})

	problems, err := Check(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		readme + " has stale generated blocks",
		filepath.Join(dir, "diffs", "ch03_hello..ch04_protocol.diff") + " is missing",
		filepath.Join(dir, "diffs", "ch04_protocol..ch06_eventloop.diff") + " is missing",
		filepath.Join(dir, "diffs", "ch06_eventloop..ch16_extra.diff") + " is missing",
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("Check before Write (-want +got):\n%s", diff)
	}

	if err := Write(root, dir); err != nil {
		t.Fatal(err)
	}
	if problems, err := Check(root, dir); err != nil || len(problems) != 0 {
		t.Errorf("Check after Write = %q, %v; want no problems", problems, err)
	}
	got, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "| 05-06 | [ch06_eventloop](../ch06_eventloop) |") {
		t.Errorf("README.md after Write lacks the map:\n%s", got)
	}
	if got, err := os.ReadFile(plain); err != nil || string(got) != "no blocks here\n" {
		t.Errorf("notes.md after Write = %q, %v", got, err)
	}

	// A new guide changes the map's guide column, so README.md is stale.
	testkit.WriteFiles(t, dir, map[string]string{"ch03_hello.md": skeleton})
	problems, err = Check(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{readme + " has stale generated blocks"}, problems); diff != "" {
		t.Errorf("Check after adding a guide (-want +got):\n%s", diff)
	}
}

func TestWriteLeavesEverythingOnError(t *testing.T) {
	root := repo(t)
	dir := filepath.Join(root, "docs")
	good := "<!-- chapter map -->\n<!-- end chapter map -->\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"README.md": good,
		"bad.md":    "<!-- session: ch03_hello/testdata/script/nope.txtar -->\n<!-- end session -->\n",
	})
	err := Write(root, dir)
	if err == nil || !strings.Contains(err.Error(), "nope.txtar") {
		t.Fatalf("Write error = %v, want one naming nope.txtar", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(got) != good {
		t.Errorf("README.md after failed Write = %q, %v; want it untouched", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "diffs")); !os.IsNotExist(err) {
		t.Errorf("diffs directory after failed Write: %v; want none", err)
	}
}

// TestCheckRefusesIncompleteSession runs the CI check on a fixture
// repository whose guide shows a session with a command checked only by a
// pattern: the check must fail, naming the command, rather than show the
// command with part of its output.
func TestCheckRefusesIncompleteSession(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "incomplete.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	testkit.WriteFiles(t, root, files)
	dir := filepath.Join(root, "docs")
	for name, check := range map[string]func() error{
		"Check": func() error { _, err := Check(root, dir); return err },
		"Write": func() error { return Write(root, dir) },
	} {
		err := check()
		if err == nil || !strings.Contains(err.Error(), "session incomplete") || !strings.Contains(err.Error(), `"bin/client keys"`) {
			t.Errorf("%s on an incomplete session: error %v, want one naming bin/client keys", name, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ch03_hello.md")); err != nil || string(got) != files["docs/ch03_hello.md"] {
		t.Errorf("guide after the failed Write = %q, %v; want it untouched", got, err)
	}
}

// skeleton is a chapter guide with every required section and nothing else.
var skeleton = "# guide\n\n## " + strings.Join(GuideSections, "\n\n## ") + "\n"

func TestLint(t *testing.T) {
	tests := []struct {
		name, path, text string
		want             []string
	}{
		{"skeleton passes", "docs/ch03_hello.md", skeleton, nil},
		{"extra sections and picture variants pass", "docs/ch11_zset.md",
			strings.Replace(skeleton, "## Picture", "## A note\n\n## Pictures", 1), nil},
		{"missing section", "docs/ch03_hello.md", strings.Replace(skeleton, "## Exercises\n", "", 1),
			[]string{`docs/ch03_hello.md: no section "Exercises"`}},
		{"out of order", "docs/ch03_hello.md", strings.Replace(strings.Replace(skeleton, "## Try it", "## X", 1), "## Links", "## Links\n\n## Try it", 1),
			[]string{`docs/ch03_hello.md: section "Exercises" out of order`, `docs/ch03_hello.md: section "Picture" out of order`, `docs/ch03_hello.md: section "Links" out of order`}},
		{"other files need no sections", "docs/README.md", "# docs\n", nil},
		{"commands without output", "docs/x.md", "```console\n$ bin/client set k v\n$ bin/client get k\n(str) v\n$ bin/client del k\n\n# c\n$ bin/client keys\n```\n",
			[]string{`docs/x.md:2: "$ bin/client set k v" shows no output`, `docs/x.md:5: "$ bin/client del k" shows no output`, `docs/x.md:8: "$ bin/client keys" shows no output`}},
		{"only console blocks count", "docs/x.md", "```\n$ make\n```\n\n    $ go build\n", nil},
		{"a heading in a code block is not a section", "docs/ch03_hello.md", "```\n## What this chapter adds\n```\n" + skeleton, nil},
		{"a guide beyond the book within its words", "docs/ch40_x.md", "# Beyond the book: x\n" + strings.Repeat("w ", 1400) + "\n<!-- session: s -->\n" + strings.Repeat("s ", 5000) + "\n<!-- end session -->\n" + strings.Repeat("w ", 1500) + "\n" + skeleton, nil},
		{"a guide beyond the book over its words", "docs/ch40_x.md", "# Beyond the book: x\n" + strings.Repeat("w ", 1600) + "\n<!-- session: s -->\n<!-- end session -->\n" + strings.Repeat("w ", 1500) + "\n" + skeleton,
			[]string{`docs/ch40_x.md: 1605 words before the first session, over 1500`, `docs/ch40_x.md: 3134 words outside the sessions, over 3000`}},
		{"the book's guides are not counted", "docs/ch10_x.md", "# x\n" + strings.Repeat("w ", 4000) + "\n" + skeleton, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lint(tt.path, []byte(tt.text))
			if len(got) != len(tt.want) {
				t.Fatalf("lint = %q, want %d problems like %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d = %q, want it to start with %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
