// Command renumber moves the chapters beyond a number up (or down), so
// that a chapter can be cut in two, or two joined, without hunting for
// every place that names one: the directories and module paths, go.work,
// imports, the short names (ch17, ch17-ch22, "(ch17 on)"), the prose
// ("chapter 17's server", "chapters 17 and 18"), and the file names that
// carry a chapter's number (docs/ch17_resp.md, the stored diffs,
// tools/internal/conform/resp18.go).
//
// Run it from the repository root, on a clean tree, and commit the result
// as a step of its own:
//
//	go run ./tools/renumber -at 15 -by 1 [-n]
//
// moves every chapter numbered 15 or more up by one, leaving room for a
// new ch15; the book's chapters (up to 14) never move. -n prints what
// would change and changes nothing. Only the files git tracks are read,
// and only text files are rewritten. Numbers written without "ch" or
// "chapter" before them ("15-22", "the 8 chapters beyond the book") are
// not touched: after a run, read the diff.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// kFirstOwn is the first chapter beyond the book; a shift never moves a
// chapter below it, or the book's chapters at all.
const kFirstOwn = 15

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("renumber", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository's root")
	at := fs.Int("at", 0, "the first chapter number to move (at least 15)")
	by := fs.Int("by", 0, "how far to move them: 1 makes room for one new chapter")
	dry := fs.Bool("n", false, "print what would change; change nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || *at < kFirstOwn || *by == 0 || *at+*by < kFirstOwn || *at+*by > 99 {
		fmt.Fprintf(stderr, "usage: renumber -at N -by K [-n] (N >= %d, N+K >= %d)\n", kFirstOwn, kFirstOwn)
		return 2
	}
	files, err := tracked(*root)
	if err != nil {
		fmt.Fprintln(stderr, "renumber:", err)
		return 1
	}
	m := mapper{at: *at, by: *by, chapters: chapterNumbers(files)}
	if err := m.check(); err != nil {
		fmt.Fprintln(stderr, "renumber:", err)
		return 1
	}
	edited := 0
	moves := map[string]string{}
	for _, f := range files {
		path := filepath.Join(*root, f)
		body, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(stderr, "renumber:", err)
			return 1
		}
		var out []byte
		// The tool's own files name chapters as examples, which stay put.
		if isText(body) && !strings.HasPrefix(f, "tools/renumber/") {
			out = m.text(body)
		}
		to := m.path(f)
		if out != nil && !bytes.Equal(out, body) {
			edited++
			if *dry {
				fmt.Fprintf(stdout, "edit %s\n", f)
			} else if err := os.WriteFile(path, out, 0o644); err != nil {
				fmt.Fprintln(stderr, "renumber:", err)
				return 1
			}
		}
		if to != f {
			moves[f] = to
			if *dry {
				fmt.Fprintf(stdout, "move %s -> %s\n", f, to)
			}
		}
	}
	if !*dry {
		if err := moveAll(*root, moves); err != nil {
			fmt.Fprintln(stderr, "renumber:", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "renumber: %d files edited, %d moved\n", edited, len(moves))
	return 0
}

// mapper moves the numbers of the chapters at or above at by by. Only
// numbers a chapter has move: "chapter 16, 64 requests" keeps its 64.
type mapper struct {
	at, by   int
	chapters map[int]bool
}

// num maps one chapter number, written as digits.
func (m mapper) num(digits string) string {
	n, err := strconv.Atoi(digits)
	if err != nil || n < m.at || !m.chapters[n] {
		return digits
	}
	return fmt.Sprintf("%0*d", len(digits), n+m.by)
}

// shortName is a chapter's short name or the start of its directory's:
// "ch" and two digits, not inside a longer word or number.
var shortName = regexp.MustCompile(`(^|[^A-Za-z0-9_])(ch)(\d\d)([^0-9]|$)`)

// prose is "chapter" or "chapters" and the numbers after it: "chapter
// 17", "chapters 17 and 18", "chapters 15, 16 and 17", "chapters 19-20".
var prose = regexp.MustCompile(`([Cc]hapters?\s+)(\d{1,2}(?:(?:\s*(?:,|and|or|to|through|-|–)\s*)\d{1,2})*)\b`)

var digits = regexp.MustCompile(`\d{1,2}`)

// registryNum is a chapter's number in tools/internal/chapters'
// registry, written beside its short name: {ID: "ch17", Num: 17, ...}.
var registryNum = regexp.MustCompile(`(ID: "ch)(\d\d)(", Num: )(\d{1,2})\b`)

// text returns body with every chapter number it names moved.
func (m mapper) text(body []byte) []byte {
	out := registryNum.ReplaceAllFunc(body, func(s []byte) []byte {
		g := registryNum.FindSubmatch(s)
		return []byte(fmt.Sprintf("%s%s%s%s", g[1], g[2], g[3], m.num(string(g[4]))))
	})
	out = replaceShort(out, m)
	return prose.ReplaceAllFunc(out, func(s []byte) []byte {
		g := prose.FindSubmatchIndex(s)
		head, nums := s[:g[4]], s[g[4]:g[5]]
		moved := digits.ReplaceAllFunc(nums, func(d []byte) []byte { return []byte(m.num(string(d))) })
		return append(append([]byte{}, head...), moved...)
	})
}

// replaceShort moves the numbers of short names. Neighbouring matches
// share their edges ("ch17-ch18"), which one pass of the expression
// would skip, so it loops until no name is left unmoved.
func replaceShort(body []byte, m mapper) []byte {
	var b bytes.Buffer
	i := 0
	for i < len(body) {
		loc := shortName.FindSubmatchIndex(body[i:])
		if loc == nil {
			break
		}
		numStart, numEnd := i+loc[6], i+loc[7]
		b.Write(body[i:numStart])
		b.WriteString(m.num(string(body[numStart:numEnd])))
		i = numEnd // the character after the digits may start the next name
	}
	b.Write(body[i:])
	return b.Bytes()
}

// confFile is a conform stage's file, named for the chapter it checks.
var confFile = regexp.MustCompile(`^(resp)(\d\d)([^0-9].*)$`)

// path returns where the tracked file f moves: each component that is, or
// starts with, a chapter's short name, and the conform stages' files.
func (m mapper) path(f string) string {
	parts := strings.Split(filepath.ToSlash(f), "/")
	for i, p := range parts {
		p = string(replaceShort([]byte(p), m))
		if g := confFile.FindStringSubmatch(p); g != nil && strings.Contains(f, "conform/") {
			p = g[1] + m.num(g[2]) + g[3]
		}
		parts[i] = p
	}
	return filepath.FromSlash(strings.Join(parts, "/"))
}

// chapterDir is the name of a chapter's directory.
var chapterDir = regexp.MustCompile(`^ch(\d\d)_`)

// chapterNumbers returns the numbers of the chapter directories files are in.
func chapterNumbers(files []string) map[int]bool {
	nums := map[int]bool{}
	for _, f := range files {
		first := strings.SplitN(filepath.ToSlash(f), "/", 2)[0]
		if g := chapterDir.FindStringSubmatch(first); g != nil {
			n, _ := strconv.Atoi(g[1])
			nums[n] = true
		}
	}
	return nums
}

// check refuses a shift that would land a chapter on a number a chapter
// that stays has, or below the first chapter beyond the book.
func (m mapper) check() error {
	var moving []int
	for n := range m.chapters {
		if n >= m.at {
			moving = append(moving, n)
		}
	}
	if len(moving) == 0 {
		return fmt.Errorf("no chapter is numbered %d or more", m.at)
	}
	sort.Ints(moving)
	for _, n := range moving {
		to := n + m.by
		if to < kFirstOwn {
			return fmt.Errorf("ch%02d would become ch%02d, a book chapter's number", n, to)
		}
		if m.chapters[to] && to < m.at {
			return fmt.Errorf("ch%02d would become ch%02d, which a chapter that stays has", n, to)
		}
	}
	return nil
}

// tracked lists the files git tracks under root, as relative paths.
func tracked(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// isText reports whether body looks like text: no NUL byte in its first
// 8 KiB, as git decides.
func isText(body []byte) bool {
	return !bytes.Contains(body[:min(len(body), 8192)], []byte{0})
}

// moveAll renames the files of moves (from -> to, relative to root): all
// first into a directory of their own, then into place, so that ch21's
// files may take ch22's places before ch22's have left. Directories the
// moves leave empty are removed.
func moveAll(root string, moves map[string]string) error {
	if len(moves) == 0 {
		return nil
	}
	tmp, err := os.MkdirTemp(root, ".renumber-")
	if err != nil {
		return err
	}
	for from, to := range moves {
		if err := rename(filepath.Join(root, from), filepath.Join(tmp, to)); err != nil {
			return err
		}
		pruneDirs(root, filepath.Dir(from))
	}
	for _, to := range moves {
		dst := filepath.Join(root, to)
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s: already there; the moved file waits in %s", to, tmp)
		}
		if err := rename(filepath.Join(tmp, to), dst); err != nil {
			return err
		}
	}
	return os.RemoveAll(tmp) // only empty directories are left in it
}

// rename moves a file, making the directory it goes to.
func rename(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// pruneDirs removes dir, relative to root, and its parents while they are
// empty.
func pruneDirs(root, dir string) {
	for ; dir != "." && dir != "/" && dir != ""; dir = filepath.Dir(dir) {
		if os.Remove(filepath.Join(root, dir)) != nil {
			return // not empty
		}
	}
}
