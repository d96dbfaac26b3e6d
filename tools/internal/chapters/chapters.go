// Package chapters reads the per-chapter module trees of the repository and
// compares neighbouring chapters: unified diffs for readers, and a lineage
// check that keeps each chapter a faithful copy of the one before it.
package chapters

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Placeholder replaces each chapter's own module path before comparing, so
// that two chapters importing their own packages still compare equal.
const Placeholder = "example.com/byor/CHAPTER"

// MaxFileSize is the largest file that is diffed; bigger files get a note.
const MaxFileSize = 1 << 20

// chapterDir matches chapter directory names such as ch08_hashtable.
var chapterDir = regexp.MustCompile(`^ch[0-9]{2}_[A-Za-z0-9_]+$`)

// Chapter is one chapter directory of the repository.
type Chapter struct {
	Name   string // directory name, e.g. "ch08_hashtable"
	Module string // module path from its go.mod
}

// List returns the chapters under root that have a go.mod, sorted by name.
// Directories without a go.mod are chapters still being started; they are
// left out so that they break neither the diffs nor the lineage check.
func List(root string) ([]Chapter, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var chs []Chapter
	for _, e := range entries {
		if !e.IsDir() || !chapterDir.MatchString(e.Name()) {
			continue
		}
		mod, err := ModulePath(filepath.Join(root, e.Name()))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		chs = append(chs, Chapter{Name: e.Name(), Module: mod})
	}
	sort.Slice(chs, func(i, j int) bool { return chs[i].Name < chs[j].Name })
	return chs, nil
}

// ModulePath returns the module path declared by dir/go.mod.
func ModulePath(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		fields := strings.Fields(line)
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`+"`"), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
}

// Fold replaces every occurrence of module in data with Placeholder. An
// occurrence followed by a letter, digit, '_' or '-' is part of a longer
// name (ch03_hello2 when folding ch03_hello) and is left alone.
func Fold(data []byte, module string) []byte {
	if module == "" || !bytes.Contains(data, []byte(module)) {
		return data
	}
	var out bytes.Buffer
	rest := data
	for {
		i := bytes.Index(rest, []byte(module))
		if i < 0 {
			break
		}
		end := i + len(module)
		if end < len(rest) && isPathByte(rest[end]) {
			out.Write(rest[:end]) // part of a longer name: keep as is
		} else {
			out.Write(rest[:i])
			out.WriteString(Placeholder)
		}
		rest = rest[end:]
	}
	out.Write(rest)
	return out.Bytes()
}

// NamePlaceholder replaces a chapter's own directory name in its text
// files, as Placeholder replaces its module path: "go test
// example.com/byor/ch12_timers/..." in ch12's README and the same line in
// ch13's then compare equal. The module path folds to Placeholder either way.
const NamePlaceholder = "CHAPTER"

// FoldName replaces every occurrence of the chapter name in data that is a
// whole name (not preceded or followed by a letter, digit, '_' or '-') with
// NamePlaceholder. Inside a chapter's own files such a name can only be
// the chapter naming itself.
func FoldName(data []byte, name string) []byte {
	if name == "" || !bytes.Contains(data, []byte(name)) {
		return data
	}
	var out bytes.Buffer
	rest := data
	prevByte := byte(' ')
	for {
		i := bytes.Index(rest, []byte(name))
		if i < 0 {
			break
		}
		end := i + len(name)
		before := prevByte
		if i > 0 {
			before = rest[i-1]
		}
		if isPathByte(before) || end < len(rest) && isPathByte(rest[end]) {
			out.Write(rest[:end])
		} else {
			out.Write(rest[:i])
			out.WriteString(NamePlaceholder)
		}
		prevByte = rest[end-1]
		rest = rest[end:]
	}
	out.Write(rest)
	return out.Bytes()
}

func isPathByte(c byte) bool {
	return c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// File is one file of a chapter tree.
type File struct {
	Data []byte // contents, with the module path and the chapter's name folded in text files
	Skip string // why the file is not diffed (binary or too large), or ""
}

// Tree is the contents of one chapter directory.
type Tree struct {
	Name   string
	Module string           // "" when the directory has no go.mod
	Files  map[string]*File // keyed by slash-separated path relative to the chapter
}

// Load reads the chapter directory root/name, leaving out go.sum files
// (they only record checksums) and anything that is not a regular file.
// Inside a git work tree it reads only the files git would commit (tracked,
// or new and not ignored), so that a build output or profile left in a
// chapter never shows up in a diff or breaks the lineage check; elsewhere
// it reads the whole directory, minus any .git.
func Load(root, name string) (*Tree, error) {
	dir := filepath.Join(root, name)
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	mod, err := ModulePath(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	t := &Tree{Name: name, Module: mod, Files: map[string]*File{}}
	rels, err := gitFiles(dir)
	if err != nil {
		rels, err = walkFiles(dir)
	}
	if err != nil {
		return nil, err
	}
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		info, err := os.Lstat(p)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in git
		}
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() || path.Base(rel) == "go.sum" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		t.Files[rel] = newFile(rel, data, mod, name)
	}
	return t, nil
}

// gitFiles lists, slash-separated and relative to dir, the files under dir
// that git tracks or would add (untracked but not ignored). It fails when
// dir is not in a git work tree or git is not installed.
func gitFiles(dir string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var rels []string
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel != "" && !seen[rel] {
			seen[rel] = true
			rels = append(rels, rel)
		}
	}
	return rels, nil
}

// walkFiles lists every file under dir outside .git directories,
// slash-separated and relative to dir.
func walkFiles(dir string) ([]string, error) {
	var rels []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	return rels, err
}

func newFile(rel string, data []byte, module, name string) *File {
	f := &File{Data: data}
	switch {
	case len(data) > MaxFileSize:
		f.Skip = "larger than 1 MiB"
	case bytes.IndexByte(data, 0) >= 0:
		f.Skip = "binary (contains NUL bytes)"
	default:
		f.Data = FoldName(Fold(data, module), name)
		if strings.HasSuffix(rel, ".go") {
			f.Data = FoldMarkers(f.Data)
		}
	}
	return f
}

// FoldMarkers drops the workshop's exercise markers from Go source: the
// comment lines "// exercise: ID" and "// end exercise: ID" that mark the
// code an exercise cuts (see tools/internal/workshop). They are for the
// workshop tool, not the lesson, so they are left out of chapter diffs as
// module paths are, and lineage ignores them.
func FoldMarkers(data []byte) []byte {
	if !bytes.Contains(data, []byte("exercise:")) {
		return data
	}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if bytes.HasPrefix(t, []byte("// exercise:")) || bytes.HasPrefix(t, []byte("// end exercise:")) {
			continue
		}
		out.Write(line)
	}
	return out.Bytes()
}

// Paths returns the sorted union of the file paths of the given trees.
func Paths(trees ...*Tree) []string {
	seen := map[string]bool{}
	var ps []string
	for _, t := range trees {
		for p := range t.Files {
			if !seen[p] {
				seen[p] = true
				ps = append(ps, p)
			}
		}
	}
	sort.Strings(ps)
	return ps
}
