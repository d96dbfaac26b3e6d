package docgen

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// GuideSections are the level-2 headings every chapter guide has, in this
// order, so that a reader finds the same things in the same places. A
// heading matches when it starts with the prefix; guides may add sections
// of their own between them.
var GuideSections = []string{
	"What this chapter adds",
	"From the book's C++ to Go",
	"What is different in Go",
	"Try it",
	"Exercises",
	"Picture",
	"Links",
}

// guideName matches the file names of chapter guides.
var guideName = regexp.MustCompile(`^ch[0-9]{2}_[A-Za-z0-9_]+\.md$`)

// lint returns the problems of one markdown file: in a ```console block, a
// "$ " command with no output under it (a reader cannot tell whether it
// printed nothing or the output was left out), and, in a chapter guide,
// required sections missing or out of order.
func lint(path string, data []byte) []string {
	var problems []string
	lines := strings.Split(string(data), "\n")
	fence, console := "", false
	var headings []string
	for i, line := range lines {
		text := strings.TrimRight(line, " \t\r")
		if fence != "" {
			if strings.HasPrefix(text, fence) && strings.Trim(text, fence[:1]) == "" {
				fence, console = "", false
				continue
			}
			if console && strings.HasPrefix(text, "$ ") {
				next := ""
				if i+1 < len(lines) {
					next = strings.TrimRight(lines[i+1], " \t\r")
				}
				if next == "" || strings.HasPrefix(next, "$ ") || strings.HasPrefix(next, "# ") || strings.HasPrefix(next, fence) {
					problems = append(problems, fmt.Sprintf("%s:%d: %q shows no output", path, i+1, text))
				}
			}
			continue
		}
		if f := fenceOf(text); f != "" {
			fence, console = f, strings.TrimSpace(text[len(f):]) == "console"
			continue
		}
		if h, ok := strings.CutPrefix(text, "## "); ok {
			headings = append(headings, h)
		}
	}
	if !guideName.MatchString(filepath.Base(path)) {
		return problems
	}
	problems = append(problems, lintWords(path, lines)...)
	last := -1
	for _, want := range GuideSections {
		at := -1
		for i, h := range headings {
			if strings.HasPrefix(h, want) {
				at = i
				break
			}
		}
		switch {
		case at < 0:
			problems = append(problems, fmt.Sprintf("%s: no section %q (every guide has, in order: %s)",
				path, want, strings.Join(GuideSections, "; ")))
		case at < last:
			problems = append(problems, fmt.Sprintf("%s: section %q out of order (every guide has, in order: %s)",
				path, want, strings.Join(GuideSections, "; ")))
		default:
			last = at
		}
	}
	return problems
}

// A guide beyond the book (its title starts "# Beyond the book") is a
// chapter a reader studies in one sitting, as the book's are: at most
// kWordsBeforeSession words before its first session, and kGuideWords in
// all. The sessions, generated from the tests, do not count; code shown
// in the guide does, as the reader reads it too.
const (
	kWordsBeforeSession = 1500
	kGuideWords         = 3000
)

// lintWords returns the problems of a guide beyond the book that is over
// either bound, with its counts.
func lintWords(path string, lines []string) []string {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# Beyond the book") {
		return nil
	}
	words, before := 0, -1
	inSession := false
	for _, line := range lines {
		text := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(text, "<!-- session:"):
			if before < 0 {
				before = words
			}
			inSession = true
		case strings.HasPrefix(text, "<!-- end session"):
			inSession = false
		case !inSession:
			words += len(strings.Fields(text))
		}
	}
	if before < 0 {
		before = words
	}
	var problems []string
	if before > kWordsBeforeSession {
		problems = append(problems, fmt.Sprintf("%s: %d words before the first session, over %d", path, before, kWordsBeforeSession))
	}
	if words > kGuideWords {
		problems = append(problems, fmt.Sprintf("%s: %d words outside the sessions, over %d", path, words, kGuideWords))
	}
	return problems
}
