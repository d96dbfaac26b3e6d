package docgen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"example.com/byor/tools/internal/chapters"
)

// DiffsDir is the directory, inside a docs directory, that holds the diffs
// between neighbouring chapters.
const DiffsDir = "diffs"

// ChapterMap renders the markdown table of docs/README.md: one row per
// chapter under root, with links relative to the docs directory dir.
func ChapterMap(root, dir string) (string, error) {
	chs, err := chapters.List(root)
	if err != nil {
		return "", err
	}
	up, err := relDir(dir, root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| book chapter | module | what it adds | guide | run | diff |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	prev := 0
	for i, ch := range chs {
		num, err := strconv.Atoi(ch.Name[2:4])
		if err != nil {
			return "", err
		}
		adds, err := readmeSummary(root, ch.Name)
		if err != nil {
			return "", err
		}
		guide := ""
		if fileExists(filepath.Join(dir, ch.Name+".md")) {
			guide = fmt.Sprintf("[%s.md](%s.md)", ch.Name, ch.Name)
		}
		run := ""
		if fileExists(filepath.Join(root, ch.Name, "cmd", "server")) {
			run = fmt.Sprintf("`go run ./%s/cmd/server`", ch.Name)
		}
		diff := ""
		if i > 0 {
			a := chs[i-1].Name
			diff = fmt.Sprintf("[`go run ./tools/chdiff %s %s`](%s/%s)", a, ch.Name, DiffsDir, chapters.DiffFileName(a, ch.Name))
		}
		fmt.Fprintf(&b, "| %s | [%s](%s%s) | %s | %s | %s | %s |\n",
			bookChapters(i == 0, prev, num), ch.Name, up, ch.Name, cell(adds), guide, run, diff)
		prev = num
	}
	return b.String(), nil
}

// bookChapters names the book chapters a chapter module covers. A module
// numbered past its predecessor's next number also covers the chapters in
// the gap (ch06_eventloop after ch04_protocol is the book's 05-06: chapter
// 05 explains the ideas, chapter 06 has the code). The first module covers
// just its own number, since the book's earlier chapters have no code.
func bookChapters(first bool, prev, num int) string {
	switch {
	case chapters.Beyond(num):
		return "beyond the book"
	case !first && prev+1 < num:
		return fmt.Sprintf("%02d-%02d", prev+1, num)
	default:
		return fmt.Sprintf("%02d", num)
	}
}

// readmeSummary returns what the first line of root/name/README.md says the
// chapter adds: the text after "# name:".
func readmeSummary(root, name string) (string, error) {
	p := filepath.Join(root, name, "README.md")
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	first := ""
	if sc.Scan() {
		first = sc.Text()
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	adds, ok := strings.CutPrefix(first, "# "+name+":")
	if adds = strings.TrimSpace(adds); !ok || adds == "" {
		return "", fmt.Errorf("%s: first line is %q, want \"# %s: what it adds\"", p, first, name)
	}
	return adds, nil
}

// cell escapes text for a markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// relDir returns the slash-separated path from directory from to
// directory to, ending in a slash ("" when they are the same).
func relDir(from, to string) (string, error) {
	absFrom, err := filepath.Abs(from)
	if err != nil {
		return "", err
	}
	absTo, err := filepath.Abs(to)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absFrom, absTo)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel) + "/", nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
