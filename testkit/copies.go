package testkit

import (
	"bytes"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// AllCopiesEnv names the environment variable that makes RunUnlessCopy run
// a package's tests even where they are a copy's: set it to 1 to test every
// chapter's copy of a shared package, e.g.
//
//	BYOR_ALL_COPIES=1 go test ./...
const AllCopiesEnv = "BYOR_ALL_COPIES"

// RunUnlessCopy is the TestMain of a package that chapters carry forward
// unchanged (the AVL tree, the hashtable, the request parser...). It runs
// the tests (m.Run) unless every file of the package, tests and testdata
// included, is the same as in the nearest earlier chapter that has the
// package, with the module path folded, and so is every package of its
// chapter that it imports: those bytes were tested there, on the same code
// beneath them, so the test command tests each version of a package once,
// in the chapter that wrote it. A package with no earlier copy, or one that
// differs in any file or imports one that does, runs its tests; so does one
// outside the chapters' directories (a workshop exercise cut from it), one
// being fuzzed (go test -fuzz), and every copy when AllCopiesEnv is 1.
func RunUnlessCopy(m *testing.M) {
	// Fuzzing runs too: go test -fuzz names one package to explore, which
	// a copy's earlier run did not do.
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		os.Exit(m.Run())
	}
	if os.Getenv(AllCopiesEnv) != "1" {
		if prev, err := EarlierCopy("."); err != nil {
			fmt.Fprintf(os.Stderr, "testkit: comparing with the earlier chapter: %v\n", err)
			os.Exit(1)
		} else if prev != "" {
			fmt.Printf("skipped: the same files as %s, whose tests cover them (%s=1 runs them here too)\n",
				prev, AllCopiesEnv)
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// chapterDirName matches a chapter's directory name and captures its number.
var chapterDirName = regexp.MustCompile(`^ch([0-9]{2})_[A-Za-z0-9_]+$`)

// EarlierCopy returns the path (from the repository root) of the package
// that the package in dir copies unchanged from the nearest earlier
// chapter, or "" if it has no earlier copy or differs from it. It is
// RunUnlessCopy's test, and tools/testall's, which leaves such copies out
// of the test command rather than link them only to skip. A chapter's root
// package is an error: no later chapter copies it.
func EarlierCopy(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return earlierCopy(abs, map[string]bool{})
}

// earlierCopy is EarlierCopy for the absolute directory abs; seen holds the
// packages whose comparison is under way, so that a test's import of a
// package that imports this one does not loop.
func earlierCopy(abs string, seen map[string]bool) (string, error) {
	seen[abs] = true
	// Walk up to the chapter's directory: the package is rel inside it.
	chDir, rel := abs, ""
	for !chapterDirName.MatchString(filepath.Base(chDir)) {
		parent := filepath.Dir(chDir)
		if parent == chDir {
			// Not in a chapter's directory: a copy of its own, such as
			// a workshop exercise's, whose tests must run.
			return "", nil
		}
		rel = filepath.Join(filepath.Base(chDir), rel)
		chDir = parent
	}
	if rel == "" {
		return "", fmt.Errorf("%s is a chapter's root package, which no later chapter copies", abs)
	}
	root, name := filepath.Dir(chDir), filepath.Base(chDir)
	num, _ := strconv.Atoi(chapterDirName.FindStringSubmatch(name)[1])

	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	prev, prevNum := "", -1
	for _, e := range entries {
		m := chapterDirName.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n >= num || n <= prevNum {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, e.Name(), rel)); err == nil && fi.IsDir() {
			prev, prevNum = e.Name(), n
		}
	}
	if prev == "" {
		return "", nil
	}
	mine, err := foldedFiles(abs, name)
	if err != nil {
		return "", err
	}
	theirs, err := foldedFiles(filepath.Join(root, prev, rel), prev)
	if err != nil {
		return "", err
	}
	if len(mine) != len(theirs) {
		return "", nil
	}
	for path, data := range mine {
		if other, ok := theirs[path]; !ok || !bytes.Equal(data, other) {
			return "", nil
		}
	}
	// The same files run other code when a package they import has
	// changed: each of the chapter's packages they import must be a copy
	// of the one in the same earlier chapter.
	for _, dep := range chapterImports(mine) {
		depDir := filepath.Join(chDir, filepath.FromSlash(dep))
		if seen[depDir] {
			continue
		}
		depPrev, err := earlierCopy(depDir, seen)
		if err != nil || depPrev != filepath.Join(prev, filepath.FromSlash(dep)) {
			return "", err
		}
	}
	return filepath.Join(prev, rel), nil
}

// chapterImports returns the packages of their own chapter that the Go
// files among files import, tests included, as paths inside the chapter
// (files are foldedFiles', so the chapter's import paths start with
// foldedModule). A file that does not parse imports nothing here: the
// files are the same as the earlier chapter's, so the compiler says the
// same of it in both.
func chapterImports(files map[string][]byte) []string {
	var deps []string
	have := map[string]bool{}
	fset := token.NewFileSet()
	for name, data := range files {
		if !strings.HasSuffix(name, ".go") || strings.Contains(name, "testdata") {
			continue
		}
		f, err := parser.ParseFile(fset, name, data, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(path, foldedModule+"/")
			if err == nil && ok && !have[dep] {
				have[dep] = true
				deps = append(deps, dep)
			}
		}
	}
	return deps
}

// foldedModule is the module path that foldedFiles puts in place of a
// chapter's.
const foldedModule = "example.com/byor/CHAPTER"

// foldedFiles reads every file below dir, by path relative to dir, with the
// chapter's module path (example.com/byor/<chapter>) replaced by one that
// names no chapter, as tools/chdiff folds it.
func foldedFiles(dir, chapter string) (map[string][]byte, error) {
	module := []byte("example.com/byor/" + chapter)
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = bytes.ReplaceAll(data, module, []byte(foldedModule))
		return nil
	})
	return files, err
}
