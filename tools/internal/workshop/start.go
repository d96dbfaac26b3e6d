package workshop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MetaFile is written into every exercise directory; check reads it to know
// which exercise the directory holds.
const MetaFile = ".workshop.json"

// DepsDir holds, inside an exercise directory, copies of the repository's
// other modules that the chapter requires. Go leaves directories starting
// with "_" out of ./... patterns, so the learner's go test ./... does not run
// their tests.
const DepsDir = "_deps"

// repoModulePrefix is the module path prefix of this repository's modules.
const repoModulePrefix = "example.com/byor/"

// Meta is the content of MetaFile.
type Meta struct {
	Exercise string `json:"exercise"`
	Chapter  string `json:"chapter"` // chapter directory, e.g. "ch10_avl"
	Module   string `json:"module"`  // the chapter's module path
}

// ReadMeta reads dir's MetaFile.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	data, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return m, fmt.Errorf("%s is not an exercise directory (no %s; create one with workshop start): %w", dir, MetaFile, err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, MetaFile), err)
	}
	return m, nil
}

// Start writes exercise ex of the repository at root into dir: a copy of the
// chapter with the exercise's regions stubbed, the repository modules it
// requires under dir/_deps with replace directives, a README for the learner
// and MetaFile. dir must not exist or be empty. Start returns the functions
// it stubbed.
func Start(root string, ex Exercise, dir string) ([]string, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty; pick a new directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	src := filepath.Join(root, ex.Chapter)
	module, err := modulePath(src)
	if err != nil {
		return nil, err
	}
	absSrc, err1 := filepath.Abs(src)
	absDir, err2 := filepath.Abs(dir)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if absDir == absSrc || strings.HasPrefix(absDir, absSrc+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is inside the chapter it would copy; pick a directory outside %s", dir, src)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	stubbed, printed, err := copyChapter(src, dir, ex.ID)
	if err != nil {
		return nil, err
	}
	if len(stubbed) == 0 {
		return nil, fmt.Errorf("exercise %s: no markers in %s", ex.ID, ex.Chapter)
	}
	if err := vendorRepoModules(root, dir); err != nil {
		return nil, err
	}
	if err := writeReadme(dir, ex, stubbed, printed); err != nil {
		return nil, err
	}
	meta, err := json.MarshalIndent(Meta{Exercise: ex.ID, Chapter: ex.Chapter, Module: module}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, MetaFile), append(meta, '\n'), 0o644); err != nil {
		return nil, err
	}
	return stubbed, nil
}

// Solution writes the chapter of ex into dir like Start, but with nothing
// cut: the marker lines go, the solution stays. It lets a test run an
// exercise's tests against the solution in the same standalone layout the
// learner gets.
func Solution(root string, ex Exercise, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, _, err := copyChapter(filepath.Join(root, ex.Chapter), dir, ""); err != nil {
		return err
	}
	return vendorRepoModules(root, dir)
}

// copyChapter copies the chapter tree src into dst, cutting exercise id
// from its Go files and dropping every marker line. The chapter's README
// becomes CHAPTER.md (README.md is the learner's); its LESSON file, which
// only makes sense next to the previous chapter, is left out. It returns
// the functions it stubbed and the lines the cut code prints.
func copyChapter(src, dst, id string) ([]string, []Line, error) {
	var stubbed []string
	var printed []Line
	err := copyFiles(src, dst, func(rel string, data []byte) (string, []byte, error) {
		out := rel
		switch rel {
		case "LESSON":
			return "", nil, nil
		case "README.md":
			out = "CHAPTER.md"
		}
		if strings.HasSuffix(rel, ".go") {
			name := filepath.Join(filepath.Base(src), rel)
			if !strings.HasSuffix(rel, "_test.go") && id != "" {
				lines, err := PrintedLines(name, data, id)
				if err != nil {
					return "", nil, err
				}
				printed = append(printed, lines...)
			}
			var fns []string
			var err error
			data, fns, err = Cut(name, data, id)
			if err != nil {
				return "", nil, err
			}
			for _, fn := range fns {
				stubbed = append(stubbed, filepath.ToSlash(filepath.Dir(rel))+": "+fn)
			}
		}
		return out, data, nil
	})
	return stubbed, printed, err
}

// modulePath returns the module path declared in dir/go.mod.
func modulePath(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod: no module line", dir)
}

// requiredRepoModules lists the example.com/byor/... modules that
// dir/go.mod requires.
func requiredRepoModules(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	var mods []string
	for _, req := range directiveEntries(string(data), "require") {
		if len(req) >= 2 && strings.HasPrefix(req[0], repoModulePrefix) {
			mods = append(mods, req[0])
		}
	}
	return mods, nil
}

// directiveEntries returns the fields of every entry of the directive verb
// in the text of a go.mod or go.work file, comments left out: of each line
// "verb a b" it gives [a b], and of each line inside "verb ( ... )" its
// fields.
func directiveEntries(text, verb string) [][]string {
	var entries [][]string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case f[0] == verb && len(f) >= 2 && f[1] == "(":
			inBlock = true
		case inBlock && f[0] == ")":
			inBlock = false
		case inBlock:
			entries = append(entries, f)
		case f[0] == verb && len(f) >= 2:
			entries = append(entries, f[1:])
		}
	}
	return entries
}

// workspaceModules maps the module path of every module the root's go.work
// uses to its directory.
func workspaceModules(root string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, err
	}
	mods := map[string]string{}
	for _, use := range directiveEntries(string(data), "use") {
		if len(use) != 1 {
			continue
		}
		abs := filepath.Join(root, use[0])
		mod, err := modulePath(abs)
		if err != nil {
			return nil, err
		}
		mods[mod] = abs
	}
	return mods, nil
}

// vendorRepoModules copies every repository module that dir's module needs,
// directly or through another copied module, into dir/_deps/NAME, points
// dir/go.mod at the copies with replace directives (only the main module's
// replaces count), and merges their go.sum lines so that dir builds on its
// own, without the workspace.
func vendorRepoModules(root, dir string) error {
	need, err := requiredRepoModules(dir)
	if err != nil {
		return err
	}
	if len(need) == 0 {
		return nil
	}
	ws, err := workspaceModules(root)
	if err != nil {
		return fmt.Errorf("the chapter requires %s: %w", strings.Join(need, ", "), err)
	}
	copied := map[string]string{} // module path -> directory relative to dir
	for len(need) > 0 {
		mod := need[0]
		need = need[1:]
		if _, done := copied[mod]; done {
			continue
		}
		src, ok := ws[mod]
		if !ok {
			return fmt.Errorf("the chapter requires %s, which go.work does not list", mod)
		}
		rel := DepsDir + "/" + strings.TrimPrefix(mod, repoModulePrefix)
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := copyTree(src, dst); err != nil {
			return err
		}
		copied[mod] = rel
		more, err := requiredRepoModules(dst)
		if err != nil {
			return err
		}
		need = append(need, more...)
	}
	mods := make([]string, 0, len(copied))
	for m := range copied {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	var b strings.Builder
	b.WriteString("\n// This repository's modules, copied beside the exercise so that it\n// builds without the workspace.\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "replace %s => ./%s\n", m, copied[m])
	}
	if err := appendFile(filepath.Join(dir, "go.mod"), b.String()); err != nil {
		return err
	}
	return mergeGoSum(dir, mods, copied)
}

// mergeGoSum adds the go.sum lines of the copied modules to dir/go.sum.
func mergeGoSum(dir string, mods []string, copied map[string]string) error {
	sumPath := filepath.Join(dir, "go.sum")
	have := map[string]bool{}
	old, err := os.ReadFile(sumPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(old), "\n") {
		have[l] = true
	}
	var add strings.Builder
	for _, m := range mods {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(copied[m]), "go.sum"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" && !have[l] {
				have[l] = true
				add.WriteString(l + "\n")
			}
		}
	}
	if add.Len() == 0 {
		return nil
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		return appendFile(sumPath, "\n"+add.String())
	}
	return appendFile(sumPath, add.String())
}

func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return copyFiles(src, dst, func(rel string, data []byte) (string, []byte, error) {
		return rel, data, nil
	})
}

// copyFiles copies the directories under src to dst, and each regular file
// as edit returns it: its path under dst ("" leaves the file out) and its
// contents, given its path under src and its contents.
func copyFiles(src, dst string, edit func(rel string, data []byte) (string, []byte, error)) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out, data, err := edit(rel, data)
		if err != nil || out == "" {
			return err
		}
		return os.WriteFile(filepath.Join(dst, out), data, 0o644)
	})
}

// writeReadme writes the learner's instructions into dir/README.md.
func writeReadme(dir string, ex Exercise, stubbed []string, printed []Line) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Exercise %s: %s\n\n", ex.ID, ex.Title)
	fmt.Fprintf(&b, "This directory is chapter %s of the Go port of *Build Your Own Redis*,\n", ex.Chapter)
	b.WriteString("on its own (its own Go module), with part of the working code cut out.\n")
	b.WriteString("CHAPTER.md is the chapter's own README.\n\n")
	fmt.Fprintf(&b, "## Your task (about %d minutes)\n\n%s\n\n", ex.Minutes, ex.Task)
	b.WriteString("Each place to fill in says `// Your code here` and panics until you replace\nthe panic with your code:\n\n")
	for _, s := range stubbed {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	b.WriteString("\nEverything else in the chapter works; read the code that calls yours,\nand the doc comment above each function. Imports that only the cut code\nused are gone too: add back what your code needs.\n\n")
	if len(printed) > 0 {
		b.WriteString("## What the tests expect to see\n\n")
		b.WriteString("The tests compare what the server prints, line for line, so the code you\n")
		b.WriteString("write must print exactly these lines (`%d`, `%s` and `%v` stand for the\n")
		b.WriteString("values printed, as in `fmt.Printf`):\n\n")
		for _, l := range printed {
			fmt.Fprintf(&b, "    %s: %s\n", l.Stream, l.Format)
		}
		b.WriteString("\nstdout is what the server prints with fmt.Printf; stderr its log (msg).\n\n")
	}
	b.WriteString("## Check your work\n\nIn this directory, the tests that exercise your code first:\n\n")
	for _, t := range ex.Tests {
		fmt.Fprintf(&b, "    go test -run '%s' %s\n", t.Run, t.Pkg)
	}
	b.WriteString("\nthen every test of the chapter, and the server by hand:\n\n")
	b.WriteString("    go test ./...\n    go run ./cmd/server               # in one terminal\n")
	for _, c := range ClientCommands(ex.Chapter) {
		fmt.Fprintf(&b, "    %s\n", c)
	}
	b.WriteString("\n(the client commands in another terminal, in this directory too).\n\n")
	b.WriteString("From the repository this exercise came from, `go run ./tools/workshop check DIR`\n")
	b.WriteString("runs all of that and the chapter's conformance checks against your server,\n")
	b.WriteString("stops at the first step that fails, and says what failed.\n\n")
	if ex.Hint != "" {
		fmt.Fprintf(&b, "## If you are stuck\n\n%s\n\n", ex.Hint)
	}
	b.WriteString("If this directory sits inside another Go workspace (a go.work above it),\nrun the commands with GOWORK=off.\n")
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644)
}
