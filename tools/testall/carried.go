package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Chapters repeat each other by design: most of a chapter's test files are
// the previous chapter's, carried forward unchanged, and their tests would
// check again what the chapter that wrote them checked. The README's
// command runs a test in the chapter whose file brought or changed it and
// in the newest chapter, where everything meets; CI runs every test in
// every chapter (AllTestsEnv).

// AllTestsEnv set to 1 makes testall run every test of every package it
// keeps, carried or not.
const AllTestsEnv = "BYOR_ALL_TESTS"

// chapterDir matches a chapter's directory name and captures its number.
var chapterDir = regexp.MustCompile(`^ch([0-9]{2})_[A-Za-z0-9_]+$`)

// selection is what to run of one package: every test (all), the tests
// named (only), or nothing (both empty).
type selection struct {
	all  bool
	only []string
}

// selectTests says what to run of the package in dir, within the
// repository whose chapters sit in root, newest being the newest
// chapter's directory name. A package outside a chapter, in the newest
// chapter, or without a counterpart in an earlier chapter runs whole;
// otherwise only the tests of its test files that are new or changed
// since the nearest earlier chapter with that package and, if its
// testdata changed, of those that name testdata (the scripts, the
// guide's sessions).
func selectTests(root, dir, newest string) selection {
	rel, err := filepath.Rel(root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return selection{all: true}
	}
	chName, sub, _ := strings.Cut(filepath.ToSlash(rel), "/")
	m := chapterDir.FindStringSubmatch(chName)
	if m == nil || chName == newest {
		return selection{all: true}
	}
	prev := earlierWith(root, chName, sub)
	if prev == "" {
		return selection{all: true}
	}
	prevDir := filepath.Join(root, prev, sub)
	dataChanged := !sameTree(filepath.Join(dir, "testdata"), chName, filepath.Join(prevDir, "testdata"), prev)
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return selection{all: true}
	}
	var only []string
	for _, f := range files {
		mine, err := os.ReadFile(f)
		if err != nil {
			return selection{all: true}
		}
		theirs, err := os.ReadFile(filepath.Join(prevDir, filepath.Base(f)))
		if err == nil && bytes.Equal(fold(mine, chName), fold(theirs, prev)) &&
			!(dataChanged && bytes.Contains(mine, []byte("testdata"))) {
			continue // carried unchanged, and so is what it reads
		}
		names, ok := testNames(f, mine)
		if !ok {
			return selection{all: true} // let go test report it
		}
		only = append(only, names...)
	}
	sort.Strings(only)
	return selection{only: only}
}

// earlierWith returns the nearest chapter before chName that has the
// package sub ("" is the chapter's root package), or "".
func earlierWith(root, chName, sub string) string {
	num, _ := strconv.Atoi(chapterDir.FindStringSubmatch(chName)[1])
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	best, bestNum := "", -1
	for _, e := range entries {
		m := chapterDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n >= num || n <= bestNum {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, e.Name(), sub)); err == nil && fi.IsDir() {
			best, bestNum = e.Name(), n
		}
	}
	return best
}

// fold replaces a chapter's module path in src, the one difference a file
// carried forward unchanged has.
func fold(src []byte, chName string) []byte {
	return bytes.ReplaceAll(src, []byte("example.com/byor/"+chName), []byte("example.com/byor/CHAPTER"))
}

// sameTree reports whether the directories a (of chapter an) and b (of bn)
// hold the same files, folded; two missing directories are the same.
func sameTree(a, an, b, bn string) bool {
	ma, errA := readTree(a, an)
	mb, errB := readTree(b, bn)
	if errA != nil || errB != nil || len(ma) != len(mb) {
		return false
	}
	for name, body := range ma {
		if other, ok := mb[name]; !ok || !bytes.Equal(body, other) {
			return false
		}
	}
	return true
}

// readTree reads every file under dir, folded, by its path inside dir; a
// missing dir is empty.
func readTree(dir, chName string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = fold(body, chName)
		return nil
	})
	return out, err
}

// testNames lists the tests and fuzz targets a test file declares (not
// TestMain, which every run of the package calls anyway).
func testNames(name string, src []byte) ([]string, bool) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name == "TestMain" {
			continue
		}
		n := fn.Name.Name
		if strings.HasPrefix(n, "Test") || strings.HasPrefix(n, "Fuzz") {
			out = append(out, n)
		}
	}
	return out, true
}

// runPattern is the -run pattern of names: exactly those top-level tests.
func runPattern(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// newestChapter returns the directory name of the highest-numbered chapter
// in root.
func newestChapter(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	best, bestNum := "", -1
	for _, e := range entries {
		if m := chapterDir.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			if n, _ := strconv.Atoi(m[1]); n > bestNum {
				best, bestNum = e.Name(), n
			}
		}
	}
	return best
}
