package chapters

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// FileDiff is the change to one file between two chapters.
type FileDiff struct {
	Path           string // relative to the chapter directory
	Text           []byte // unified diff, or nil when Note is set
	Note           string // replaces Text for files that are not diffed
	Added, Removed int    // changed lines in Text
}

// Diff compares two chapter trees and returns one FileDiff per changed file,
// in reading order (see Order; lesson is the new chapter's LESSON lines, as
// ManifestOrder reads them, or nil). A file present on one side only is
// diffed against /dev/null, as git does.
func Diff(old, new *Tree, lesson []string) []FileDiff {
	var ds []FileDiff
	paths := Order(Paths(old, new), lesson)
	for _, p := range paths {
		of, nf := old.Files[p], new.Files[p]
		oldName, newName := "a/"+old.Name+"/"+p, "b/"+new.Name+"/"+p
		var oldData, newData []byte
		if of == nil {
			oldName = "/dev/null"
		} else {
			oldData = of.Data
		}
		if nf == nil {
			newName = "/dev/null"
		} else {
			newData = nf.Data
		}
		if of != nil && nf != nil && bytes.Equal(oldData, newData) {
			continue
		}
		d := FileDiff{Path: p}
		switch {
		case of != nil && of.Skip != "":
			d.Note = fmt.Sprintf("%s and %s differ; not diffed: %s", oldName, newName, of.Skip)
		case nf != nil && nf.Skip != "":
			d.Note = fmt.Sprintf("%s and %s differ; not diffed: %s", oldName, newName, nf.Skip)
		default:
			d.Text = diff.Diff(oldName, oldData, newName, newData)
			if d.Text == nil { // an empty file added or removed
				d.Note = fmt.Sprintf("%s and %s differ; empty file", oldName, newName)
			}
			d.Added, d.Removed = countChanges(d.Text)
		}
		ds = append(ds, d)
	}
	return ds
}

// Order sorts a chapter's file paths for a diff's reader and returns them.
// Files go by kind first (see readingOrder): code, then tests, then the
// sessions and other test data, then the README and LESSON, and the fuzz
// corpus last, so that a line added at the end of a LESSON never puts code
// after the docs. Within a kind, the files lesson lists (the chapter's
// LESSON, its core first) come in its order, and then the files it does not
// list, by path: the files new in the chapter that its LESSON leaves out
// (a LESSON may list a new file only to place it) and, when a chapter is
// compared with one that is not its predecessor, files its LESSON has no
// reason to name.
func Order(paths, lesson []string) []string {
	pos := map[string]int{}
	for i, p := range lesson {
		if _, dup := pos[p]; !dup {
			pos[p] = i
		}
	}
	rank := func(p string) int {
		if i, ok := pos[p]; ok {
			return i
		}
		return len(lesson)
	}
	out := append([]string(nil), paths...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ka, kb := readingOrder(a), readingOrder(b); ka != kb {
			return ka < kb
		}
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a < b
	})
	return out
}

// readingOrder ranks a chapter file by kind for a diff's reader: the code
// the lesson is about first, then its tests, the sessions and other test
// data, the chapter's README and LESSON, and last the fuzz corpus, which
// is generated inputs nobody reads.
func readingOrder(rel string) int {
	switch {
	case strings.HasPrefix(rel, "testdata/fuzz/") || strings.Contains(rel, "/testdata/fuzz/"):
		return 4
	case strings.HasSuffix(rel, ".md") || rel == ManifestName:
		return 3
	case rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/"):
		return 2
	case strings.HasSuffix(rel, "_test.go"):
		return 1
	}
	return 0
}

// countChanges counts the added and removed lines of a unified diff,
// skipping its three header lines ("diff", "---", "+++"): a removed line
// that itself starts with "--" would otherwise look like a header.
func countChanges(text []byte) (added, removed int) {
	lines := strings.Split(string(text), "\n")
	if len(lines) < 3 {
		return 0, 0
	}
	for _, l := range lines[3:] {
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// IsCode reports whether a chapter file is program code rather than a test,
// test data, documentation or the chapter's manifest: what "chdiff -code"
// keeps.
func IsCode(rel string) bool {
	switch {
	case strings.HasSuffix(rel, "_test.go"),
		rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/"),
		strings.HasSuffix(rel, ".md"),
		rel == ManifestName:
		return false
	}
	return true
}

// CodeOnly returns the diffs of ds whose files are code (see IsCode).
func CodeOnly(ds []FileDiff) []FileDiff {
	var out []FileDiff
	for _, d := range ds {
		if IsCode(d.Path) {
			out = append(out, d)
		}
	}
	return out
}

// DiffChapters loads root/a and root/b and diffs them, in the order of
// b's LESSON (see Order).
func DiffChapters(root, a, b string) ([]FileDiff, error) {
	old, err := Load(root, a)
	if err != nil {
		return nil, err
	}
	new, err := Load(root, b)
	if err != nil {
		return nil, err
	}
	lesson, err := ManifestOrder(root, b)
	if err != nil {
		return nil, err
	}
	return Diff(old, new, lesson), nil
}

// WriteUnified writes the diffs one after another, notes on lines of their own.
func WriteUnified(w io.Writer, ds []FileDiff) error {
	for _, d := range ds {
		var err error
		if d.Note != "" {
			_, err = fmt.Fprintf(w, "note: %s\n", d.Note)
		} else {
			_, err = w.Write(d.Text)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteStat writes one line per changed file with its added and removed
// line counts, then a total line.
func WriteStat(w io.Writer, ds []FileDiff) error {
	width := 0
	for _, d := range ds {
		width = max(width, len(d.Path))
	}
	var buf bytes.Buffer
	var added, removed int
	for _, d := range ds {
		if d.Note != "" {
			fmt.Fprintf(&buf, "%-*s | not diffed\n", width, d.Path)
			continue
		}
		fmt.Fprintf(&buf, "%-*s | +%d -%d\n", width, d.Path, d.Added, d.Removed)
		added += d.Added
		removed += d.Removed
	}
	fmt.Fprintf(&buf, "%d files changed, +%d -%d\n", len(ds), added, removed)
	_, err := w.Write(buf.Bytes())
	return err
}

// DiffFileName is the name of the file holding the diff from chapter a to b.
func DiffFileName(a, b string) string { return a + ".." + b + ".diff" }

// RenderPairs returns the unified diff of every consecutive pair of
// chapters under root, keyed by DiffFileName.
func RenderPairs(root string) (map[string][]byte, error) {
	chs, err := List(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for i := 1; i < len(chs); i++ {
		a, b := chs[i-1].Name, chs[i].Name
		ds, err := DiffChapters(root, a, b)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := WriteUnified(&buf, ds); err != nil {
			return nil, err
		}
		out[DiffFileName(a, b)] = buf.Bytes()
	}
	return out, nil
}

// WriteDiffs writes the diff of every consecutive pair of chapters under
// root into dir, and removes the .diff files there that belong to no pair.
func WriteDiffs(root, dir string) error {
	want, err := RenderPairs(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stale, err := staleDiffs(dir, want)
	if err != nil {
		return err
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for name, data := range want {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// CheckDiffs compares dir with what WriteDiffs would write and returns one
// problem per file that is missing, out of date or no longer wanted.
func CheckDiffs(root, dir string) ([]string, error) {
	want, err := RenderPairs(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	for name, data := range want {
		p := filepath.Join(dir, name)
		got, err := os.ReadFile(p)
		switch {
		case os.IsNotExist(err):
			problems = append(problems, p+" is missing")
		case err != nil:
			return nil, err
		case !bytes.Equal(got, data):
			problems = append(problems, p+" is out of date")
		}
	}
	stale, err := staleDiffs(dir, want)
	if err != nil {
		return nil, err
	}
	for _, name := range stale {
		problems = append(problems, filepath.Join(dir, name)+" belongs to no pair of chapters")
	}
	sort.Strings(problems)
	return problems, nil
}

// staleDiffs lists the .diff files in dir that are not in want. A missing
// dir has none.
func staleDiffs(dir string, want map[string][]byte) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok && e.Type().IsRegular() && filepath.Ext(e.Name()) == ".diff" {
			stale = append(stale, e.Name())
		}
	}
	return stale, nil
}
