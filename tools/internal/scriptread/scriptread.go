// Package scriptread reads the chapters' testscript files as the tools
// need them: a script line split into words as testscript splits it, its
// conditions and negation, and the «name=regexp» placeholders of the
// harness's cmpvary. The conformance runner (which replays the sessions
// against any server) and the docs generator (which shows them to
// readers) both read scripts through it, so they cannot disagree on what
// a line says.
package scriptread

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Word is one argument of a script line: its value after testscript's
// quoting rules, and whether any of it was written outside quotes with a
// '$' (a variable that testscript would expand).
type Word struct {
	Val      string
	Variable bool
}

// Words splits a script line into words the way testscript does: spaces
// and tabs separate words, single quotes group them (inside them, two
// single quotes make one), and an unquoted '#' starts a comment. Variables are not
// expanded. It fails on an unterminated quote.
func Words(line string) ([]Word, error) {
	var (
		words  []Word
		cur    strings.Builder
		inWord bool
		isVar  bool
		quoted bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'' && i+1 < len(line) && line[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\r' || c == '#':
			if inWord {
				words = append(words, Word{cur.String(), isVar})
				cur.Reset()
				inWord, isVar = false, false
			}
			if c == '#' {
				return words, nil
			}
		case c == '\'':
			quoted, inWord = true, true
		default:
			if c == '$' {
				isVar = true
			}
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quoted argument")
	}
	if inWord {
		words = append(words, Word{cur.String(), isVar})
	}
	return words, nil
}

// Line is one command of a script.
type Line struct {
	Conds   []string // conditions such as [linux], without brackets
	Negated bool     // "! cmd": the command must fail
	Maybe   bool     // "? cmd": it may fail or not
	Name    string   // the command, "" for a line with only a comment
	Args    []Word
}

// Vals returns the arguments' values.
func (l Line) Vals() []string {
	out := make([]string, len(l.Args))
	for i, a := range l.Args {
		out[i] = a.Val
	}
	return out
}

// Parse reads one script line (a comment or blank line gives a Line with
// no Name).
func Parse(line string) (Line, error) {
	ws, err := Words(strings.TrimSpace(line))
	if err != nil {
		return Line{}, err
	}
	var l Line
	for len(ws) > 0 && strings.HasPrefix(ws[0].Val, "[") && strings.HasSuffix(ws[0].Val, "]") {
		l.Conds = append(l.Conds, strings.Trim(ws[0].Val, "[]"))
		ws = ws[1:]
	}
	if len(ws) > 0 && (ws[0].Val == "!" || ws[0].Val == "?") {
		l.Negated, l.Maybe = ws[0].Val == "!", ws[0].Val == "?"
		ws = ws[1:]
	}
	if len(ws) == 0 {
		if l.Negated || l.Maybe || len(l.Conds) > 0 {
			return Line{}, errors.New("a condition or negation with no command")
		}
		return l, nil
	}
	l.Name, l.Args = ws[0].Val, ws[1:]
	return l, nil
}

// Part is a piece of an expected cmpvary line: literal text, or a
// placeholder «Name=Pattern» for a part that varies from run to run.
type Part struct {
	Lit     string
	Name    string // "" for literal text
	Pattern string
}

// Placeholders splits an expected line into literal text and
// placeholders. It fails on a placeholder the harness would refuse:
// unclosed, without a name, or with a pattern that does not compile.
func Placeholders(line string) ([]Part, error) {
	var parts []Part
	for {
		start := strings.Index(line, "«")
		if start < 0 {
			break
		}
		end := strings.Index(line[start:], "»")
		if end < 0 {
			return nil, fmt.Errorf("unclosed placeholder in %q (want «name=regexp»)", line)
		}
		name, pattern, ok := strings.Cut(line[start+len("«"):start+end], "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("malformed placeholder in %q (want «name=regexp»)", line)
		}
		if _, err := regexp.Compile(pattern); err != nil {
			return nil, fmt.Errorf("placeholder %s: %v", name, err)
		}
		if start > 0 {
			parts = append(parts, Part{Lit: line[:start]})
		}
		parts = append(parts, Part{Name: name, Pattern: pattern})
		line = line[start+end+len("»"):]
	}
	if line != "" {
		parts = append(parts, Part{Lit: line})
	}
	return parts, nil
}

// Show renders an expected line for a reader: each placeholder becomes
// <name>.
func Show(line string) (string, error) {
	parts, err := Placeholders(line)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Name != "" {
			b.WriteString("<" + p.Name + ">")
		} else {
			b.WriteString(p.Lit)
		}
	}
	return b.String(), nil
}

// CheckText checks every line of an expected text's placeholders.
func CheckText(text string) error {
	for _, line := range strings.Split(text, "\n") {
		if _, err := Placeholders(line); err != nil {
			return err
		}
	}
	return nil
}
