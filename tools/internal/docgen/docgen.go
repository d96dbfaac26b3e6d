package docgen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"example.com/byor/tools/internal/chapters"
)

// The markers around generated blocks, each on a line of its own.
var (
	sessionStart = regexp.MustCompile(`^<!--\s*session:\s*(\S+)\s*-->$`)
	sessionEnd   = regexp.MustCompile(`^<!--\s*end session\s*-->$`)
	mapStart     = regexp.MustCompile(`^<!--\s*chapter map\s*-->$`)
	mapEnd       = regexp.MustCompile(`^<!--\s*end chapter map\s*-->$`)
	// anyMarker catches misspelt markers, which would otherwise be
	// left alone silently.
	anyMarker = regexp.MustCompile(`^<!--\s*(end\s+)?(session|chapter map)\b`)
)

// generator renders the blocks of the markdown files of one docs directory.
type generator struct {
	root, dir string
	chMap     string // rendered on first use
}

func (g *generator) chapterMap() (string, error) {
	if g.chMap == "" {
		m, err := ChapterMap(g.root, g.dir)
		if err != nil {
			return "", err
		}
		g.chMap = m
	}
	return g.chMap, nil
}

// session renders the block for a session marker naming script, a
// slash-separated path relative to the repository root.
func (g *generator) session(script string) (string, error) {
	if path.IsAbs(script) || path.Clean(script) != script || script == ".." || strings.HasPrefix(script, "../") {
		return "", fmt.Errorf("session script %q is not a clean path relative to the repository root", script)
	}
	data, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(script)))
	if err != nil {
		return "", fmt.Errorf("session script %s: %w", script, err)
	}
	out, err := RenderSession(data)
	if err != nil {
		return "", fmt.Errorf("session script %s: %w", script, err)
	}
	return out, nil
}

// regenerate returns data with every generated block filled afresh. name
// labels errors. Markers inside fenced code blocks are text, not markers,
// so that a document can show the marker syntax.
func (g *generator) regenerate(name string, data []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	var out strings.Builder
	fence := "" // the opening fence of the code block we are in, or ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		text := strings.TrimRight(line, " \t\r\n")
		if fence != "" {
			if strings.HasPrefix(text, fence) && strings.Trim(text, fence[:1]) == "" {
				fence = ""
			}
			out.WriteString(line)
			continue
		}
		if f := fenceOf(text); f != "" {
			fence = f
			out.WriteString(line)
			continue
		}
		var (
			end      *regexp.Regexp
			endName  string
			generate func() (string, error)
		)
		switch m := sessionStart.FindStringSubmatch(text); {
		case m != nil:
			end, endName = sessionEnd, "<!-- end session -->"
			generate = func() (string, error) { return g.session(m[1]) }
		case mapStart.MatchString(text):
			end, endName = mapEnd, "<!-- end chapter map -->"
			generate = g.chapterMap
		case sessionEnd.MatchString(text) || mapEnd.MatchString(text):
			return nil, fmt.Errorf("%s:%d: %s has no opening marker", name, i+1, text)
		case anyMarker.MatchString(text):
			return nil, fmt.Errorf("%s:%d: malformed marker %s", name, i+1, text)
		default:
			out.WriteString(line)
			continue
		}
		// Find the closing marker; the old block between them is dropped.
		j := i + 1
		for ; j < len(lines); j++ {
			t := strings.TrimRight(lines[j], " \t\r\n")
			if end.MatchString(t) || sessionStart.MatchString(t) || mapStart.MatchString(t) {
				break
			}
		}
		if j == len(lines) || !end.MatchString(strings.TrimRight(lines[j], " \t\r\n")) {
			return nil, fmt.Errorf("%s:%d: %s is not closed by %s", name, i+1, text, endName)
		}
		block, err := generate()
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n")
		}
		out.WriteString(block)
		out.WriteString(lines[j])
		i = j
	}
	return []byte(out.String()), nil
}

// fenceOf returns the fence that opens a fenced code block on this line
// (a run of three or more backticks or tildes), or "".
func fenceOf(text string) string {
	for _, c := range "`~" {
		run := strings.TrimLeft(text, string(c))
		if n := len(text) - len(run); n >= 3 {
			return text[:n]
		}
	}
	return ""
}

// file is one markdown file of a docs directory with its regenerated text.
type file struct {
	path     string
	old, new []byte
}

// render regenerates every DIR/*.md (not recursively), collecting the
// errors of all files rather than stopping at the first.
func render(root, dir string) ([]file, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	g := &generator{root: root, dir: dir}
	var files []file
	var errs []error
	for _, p := range names {
		old, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		new, err := g.regenerate(p, old)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, file{p, old, new})
	}
	return files, errors.Join(errs...)
}

// Write regenerates the blocks of every markdown file in dir, writing only
// the files that change, and writes the chapter diffs into dir/diffs. When
// any file has an error nothing is written.
func Write(root, dir string) error {
	files, err := render(root, dir)
	if err != nil {
		return err
	}
	// Render the diffs before writing anything, so that an error there
	// also leaves the directory as it was.
	if _, err := chapters.RenderPairs(root); err != nil {
		return err
	}
	for _, f := range files {
		if bytes.Equal(f.old, f.new) {
			continue
		}
		if err := os.WriteFile(f.path, f.new, 0o644); err != nil {
			return err
		}
	}
	return chapters.WriteDiffs(root, filepath.Join(dir, DiffsDir))
}

// Check compares dir with what Write would produce and returns one problem
// per markdown file whose blocks are stale and per stale file of dir/diffs,
// plus what lint finds in each markdown file: commands shown without
// output, and guides missing a required section.
// A file that cannot be regenerated is an error, not a problem.
func Check(root, dir string) ([]string, error) {
	files, err := render(root, dir)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, f := range files {
		if !bytes.Equal(f.old, f.new) {
			problems = append(problems, f.path+" has stale generated blocks")
		}
		problems = append(problems, lint(f.path, f.new)...)
	}
	ps, err := chapters.CheckDiffs(root, filepath.Join(dir, DiffsDir))
	if err != nil {
		return nil, err
	}
	return append(problems, ps...), nil
}
