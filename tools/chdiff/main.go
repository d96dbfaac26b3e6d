// Command chdiff compares the chapter modules of the repository: it prints
// the diff between two chapters, keeps a directory of diffs between
// neighbouring chapters up to date, checks that each chapter changes only
// what its LESSON manifest declares, and regenerates the generated parts of
// the reader's guides (sessions taken from testscript files, the chapter
// map, the diffs).
//
// Run it from the repository root:
//
//	go run ./tools/chdiff [-stat] [-code] A B     (A, B: ch07_basic or ch07)
//	go run ./tools/chdiff -write docs/diffs
//	go run ./tools/chdiff -check-diffs docs/diffs
//	go run ./tools/chdiff -lineage
//	go run ./tools/chdiff -docs docs
//	go run ./tools/chdiff -check-docs docs
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/cmdflag"
	"example.com/byor/tools/internal/docgen"
)

const usage = `usage:
  chdiff [-stat] [-code] A B  diff chapter A against B (a directory, ch07_basic, or
                              just its number, ch07): code first, then tests, test
                              data, docs and LESSON, the fuzz corpus last; within
                              each, the files in the order B's LESSON lists them
                              (the lesson's core first), then the others by path;
                              -code leaves out all but the code; -stat prints
                              changed-line counts per file instead
  chdiff -write DIR           write DIR/A..B.diff for each pair of neighbouring chapters,
                              removing .diff files for pairs that no longer exist
  chdiff -check-diffs DIR     fail if DIR differs from what -write would produce
  chdiff -lineage             fail if a chapter changes a file of the previous chapter
                              without declaring it in its LESSON file
  chdiff -docs DIR            regenerate the blocks between <!-- session: PATH --> and
                              <!-- end session --> (PATH: a testscript file relative to
                              the repository root) and between <!-- chapter map --> and
                              <!-- end chapter map --> in DIR/*.md, and write DIR/diffs
  chdiff -check-docs DIR      fail if -docs would change DIR/*.md or DIR/diffs

Each chapter's module path is folded to ` + chapters.Placeholder + `, and its name
to ` + chapters.NamePlaceholder + `, in its text files, and the workshop's "// exercise:" marker
lines are dropped from Go files; go.sum files are left out, and so are files
git ignores. Chapters are the chNN_name directories with a go.mod.

flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command and returns its exit code: 0 on success, 1 when
// a check fails or an error occurs, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fs := cmdflag.NewFlagSet("chdiff", usage, stderr)
	root := fs.String("root", ".", "repository `dir`ectory holding the chapters")
	stat := fs.Bool("stat", false, "print changed-line counts per file instead of the diff")
	code := fs.Bool("code", false, "diff only code: no tests, test data, docs or LESSON")
	write := fs.String("write", "", "write the neighbouring-chapter diffs into `dir`")
	check := fs.String("check-diffs", "", "check the diffs in `dir` are up to date")
	lineage := fs.Bool("lineage", false, "check each chapter against the previous one")
	docs := fs.String("docs", "", "regenerate the guides' generated blocks and diffs in `dir`")
	checkDocs := fs.String("check-docs", "", "check the guides' generated blocks and diffs in `dir` are up to date")
	if status, stop := cmdflag.ParseArgs(fs, args); stop {
		return status
	}
	modes := 0
	for _, on := range []bool{*write != "", *check != "", *lineage, *docs != "", *checkDocs != "", fs.NArg() > 0} {
		if on {
			modes++
		}
	}
	if err := cmdflag.First(
		cmdflag.Check(modes == 1, "give exactly one of: two chapters A B, -write, -check-diffs, -lineage, -docs, -check-docs"),
		cmdflag.Check(fs.NArg() == 0 || fs.NArg() == 2, "give two chapters to diff, not %d", fs.NArg()),
		cmdflag.Check(fs.NArg() > 0 || !*stat && !*code, "-stat and -code go only with two chapters to diff"),
	); err != nil {
		return cmdflag.Fail(fs, err)
	}

	var err error
	// What a check found, if anything, reported with summary after it.
	var problems []string
	var summary string
	switch {
	case *write != "":
		err = chapters.WriteDiffs(*root, *write)
	case *check != "":
		problems, err = chapters.CheckDiffs(*root, *check)
		summary = "regenerate with: go run ./tools/chdiff -write " + *check
	case *docs != "":
		err = docgen.Write(*root, *docs)
	case *checkDocs != "":
		problems, err = docgen.Check(*root, *checkDocs)
		summary = "regenerate with: go run ./tools/chdiff -docs " + *checkDocs
	case *lineage:
		var res chapters.Lineage
		res, problems, err = chapters.CheckLineage(*root)
		summary = fmt.Sprintf("lineage: %d problem(s)", len(problems))
		if err == nil && len(problems) == 0 {
			fmt.Fprintf(stdout, "lineage: %d chapters, %d shared files in step\n", res.Chapters, res.InStep)
		}
	default:
		var ds []chapters.FileDiff
		var a, b string
		if a, err = chapterDir(*root, fs.Arg(0)); err == nil {
			if b, err = chapterDir(*root, fs.Arg(1)); err == nil {
				ds, err = chapters.DiffChapters(*root, a, b)
			}
		}
		if *code {
			ds = chapters.CodeOnly(ds)
		}
		if err == nil && *stat {
			err = chapters.WriteStat(stdout, ds)
		} else if err == nil {
			err = chapters.WriteUnified(stdout, ds)
		}
	}
	if err == nil && len(problems) > 0 {
		return reportProblems(stderr, problems, summary)
	}
	if err != nil {
		fmt.Fprintln(stderr, "chdiff:", err)
		return 1
	}
	return 0
}

// chapterDir returns the chapter directory arg names: a directory under
// root as it is, or a chapter's number ("ch07", as tools/conform takes
// it) as the one chapter directory it starts (ch07_basic).
func chapterDir(root, arg string) (string, error) {
	arg = strings.TrimSuffix(arg, "/")
	if info, err := os.Stat(filepath.Join(root, arg)); err == nil && info.IsDir() {
		return arg, nil
	}
	chs, err := chapters.List(root)
	if err != nil {
		return "", err
	}
	for _, ch := range chs {
		if strings.HasPrefix(ch.Name, arg+"_") {
			return ch.Name, nil
		}
	}
	return "", fmt.Errorf("no chapter %s under %s (a chNN_name directory, or chNN)", arg, root)
}

// reportProblems prints each problem a check found, then the last line,
// and returns the exit status of a failed check.
func reportProblems(stderr io.Writer, problems []string, last string) int {
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	fmt.Fprintln(stderr, last)
	return 1
}
