package workshop

import (
	"regexp"
	"strconv"
	"strings"
)

// A Line is a line that the code of an exercise prints: the tests compare
// what the server prints, so the learner's code must print it exactly.
type Line struct {
	Stream string // "stdout" or "stderr"
	Format string // the format string, without its newline: "%d" stands for a value
}

// printCall matches a call that prints one line with a literal format:
// the chapters log with msg (stderr) and print what clients say and what
// the server removes with fmt.Printf or fmt.Println (stdout).
var printCall = regexp.MustCompile(`\b(msg|fmt\.Printf|fmt\.Println)\(("(?:[^"\\]|\\.)*")`)

// onlyVerbs matches a format that is nothing but values, such as "%v" for
// an error: it names no text the learner could get wrong.
var onlyVerbs = regexp.MustCompile(`^(%[a-z])+$`)

// PrintedLines returns the lines printed by the code that exercise id cuts
// from src (a Go file), in order, each once.
func PrintedLines(name string, src []byte, id string) ([]Line, error) {
	regions, err := ParseMarkers(name, src)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	var out []Line
	seen := map[Line]bool{}
	for _, r := range regions {
		if r.ID != id {
			continue
		}
		for _, l := range lines[r.BeginLine : r.EndLine-1] {
			for _, m := range printCall.FindAllStringSubmatch(l, -1) {
				format, err := strconv.Unquote(m[2])
				if err != nil {
					continue
				}
				format = strings.TrimSuffix(format, "\n")
				if format == "" || onlyVerbs.MatchString(format) {
					continue
				}
				line := Line{Stream: "stdout", Format: format}
				if m[1] == "msg" {
					line.Stream = "stderr"
				}
				if !seen[line] {
					seen[line] = true
					out = append(out, line)
				}
			}
		}
	}
	return out, nil
}

// ClientCommands returns commands that run the client of chapter dir (e.g.
// "ch06_eventloop") against the server: up to ch06 the client takes no
// command and sends the chapter's own test messages; from ch07 on it sends
// the command it is given.
func ClientCommands(chapter string) []string {
	if len(chapter) >= 4 && chapter[:2] == "ch" && chapter[2:4] < "07" {
		return []string{"go run ./cmd/client                # sends the chapter's test messages"}
	}
	return []string{"go run ./cmd/client set k v", "go run ./cmd/client get k"}
}
