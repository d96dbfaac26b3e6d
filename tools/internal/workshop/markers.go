// Package workshop turns a chapter of the repository into an exercise: a
// standalone copy of the chapter with marked pieces of the working solution
// cut out and replaced by stubs that fail loudly.
//
// Exercises are marked in the chapter code itself, so they cannot drift from
// the tested solution. A marker pair sits inside a function body, each
// marker alone on its line:
//
//	func rotLeft[T any](node *AVLNode[T]) *AVLNode[T] {
//		// exercise: ch10-avl-rotate
//		...the solution...
//		// end exercise: ch10-avl-rotate
//	}
//
// Cutting exercise ch10-avl-rotate replaces the lines between the markers
// with panic("exercise ch10-avl-rotate: implement rotLeft"). One exercise
// may mark several functions; a function holds at most one region of an
// exercise. The id starts with the chapter it belongs to (chNN-), so a
// marker carried unchanged into later chapters' copies of a file is ignored
// there. Markers that are nested, unclosed, closed with another id, cut
// nothing, or sit outside a function body are errors.
package workshop

import (
	"fmt"
	"regexp"
	"strings"
)

const (
	beginPrefix = "// exercise:"
	endPrefix   = "// end exercise:"
)

// idPattern is the shape of an exercise id: the chapter number, then words.
var idPattern = regexp.MustCompile(`^ch[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*$`)

// Region is one marked piece of a file: the lines strictly between its
// markers (1-based, inclusive) are the solution that an exercise cuts.
type Region struct {
	ID        string
	BeginLine int // line of "// exercise: ID"
	EndLine   int // line of "// end exercise: ID"
	Indent    string
}

// MarkerError reports a malformed marker, naming the file and line.
type MarkerError struct {
	File string
	Line int
	Msg  string
}

func (e *MarkerError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// markerLine reports whether line is a marker, and which kind and id.
func markerLine(line string) (isEnd bool, id string, ok bool) {
	t := strings.TrimSpace(line)
	if rest, found := strings.CutPrefix(t, endPrefix); found {
		return true, strings.TrimSpace(rest), true
	}
	if rest, found := strings.CutPrefix(t, beginPrefix); found {
		return false, strings.TrimSpace(rest), true
	}
	return false, "", false
}

// IsMarker reports whether line is an exercise marker of any id.
func IsMarker(line string) bool {
	_, _, ok := markerLine(line)
	return ok
}

// ParseMarkers finds the marked regions of a source file. name is used in
// errors only. It checks the markers' shape; that each region sits inside
// a function body is checked when cutting (see Cut).
func ParseMarkers(name string, src []byte) ([]Region, error) {
	lines := strings.Split(string(src), "\n")
	var regions []Region
	var open *Region
	for i, line := range lines {
		n := i + 1
		isEnd, id, ok := markerLine(line)
		if !ok {
			continue
		}
		if !idPattern.MatchString(id) {
			return nil, &MarkerError{name, n, fmt.Sprintf("bad exercise id %q: want chNN-words-with-dashes", id)}
		}
		if !isEnd {
			if open != nil {
				return nil, &MarkerError{name, n, fmt.Sprintf("exercise %s begins inside exercise %s (opened on line %d): markers do not nest", id, open.ID, open.BeginLine)}
			}
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			open = &Region{ID: id, BeginLine: n, Indent: indent}
			continue
		}
		if open == nil {
			return nil, &MarkerError{name, n, fmt.Sprintf("end of exercise %s without its beginning", id)}
		}
		if open.ID != id {
			return nil, &MarkerError{name, n, fmt.Sprintf("end of exercise %s closes exercise %s (opened on line %d)", id, open.ID, open.BeginLine)}
		}
		open.EndLine = n
		empty := true
		for _, l := range lines[open.BeginLine : open.EndLine-1] {
			if strings.TrimSpace(l) != "" {
				empty = false
				break
			}
		}
		if empty {
			return nil, &MarkerError{name, open.BeginLine, fmt.Sprintf("exercise %s cuts nothing", id)}
		}
		regions = append(regions, *open)
		open = nil
	}
	if open != nil {
		return nil, &MarkerError{name, open.BeginLine, fmt.Sprintf("exercise %s is never closed (want %q)", open.ID, endPrefix+" "+open.ID)}
	}
	return regions, nil
}

// ChapterOf returns the chapter number prefix of an exercise id ("ch10").
func ChapterOf(id string) string {
	prefix, _, _ := strings.Cut(id, "-")
	return prefix
}
