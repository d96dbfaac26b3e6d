// Package docgen fills the generated blocks of the reader's guides in
// docs/: console sessions taken from the chapters' testscript files, and
// the chapter map of docs/README.md.
package docgen

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

	"example.com/byor/tools/internal/scriptread"
)

// shellSafe matches words a shell user would type without quotes.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote writes w as a POSIX shell user would type it. A word holding
// an unquoted variable stays as written, so that the shell expands it too.
func shellQuote(w scriptread.Word) string {
	if shellSafe.MatchString(w.Val) || w.Variable && !strings.ContainsAny(w.Val, " \t'\"") {
		return w.Val
	}
	return "'" + strings.ReplaceAll(w.Val, "'", `'\''`) + "'"
}

// step is one client command of a session with what the script proves it
// prints.
type step struct {
	line      int      // the script line of the command, for errors
	comments  []string // the script's comment lines just before the command
	command   string   // as typed: "bin/client get k"
	negated   bool     // the command is expected to fail
	unordered bool     // its stdout's lines may come in any order
	stdout    []string // stdout as compared in full; nil until then
	stderr    []string // likewise for stderr
}

// RenderSession turns a testscript archive into a fenced console block:
// each client command the script runs against its server becomes a line
// "$ bin/client ARGS..." (or "$ redis-cli ARGS..." for Redis's client,
// which must be given --no-raw or --raw, so that its output is the same
// in the script's pipe as on the reader's terminal),
// with what "stdin FILE" gives it as a here-document, followed by
// everything it prints. Only full
// comparisons tell what that is: "cmp stdout FILE", the harness's
// "cmpvary ... stdout FILE|TEXT" (whose «name=regexp» placeholders show as
// <name>, and whose -unordered adds "# lines in any order" to the command),
// and "! stdout ." for no output; likewise for stderr. Pattern checks
// (stdout REGEXP, waitfor's pattern) prove part of the output only, so they
// show nothing. It fails unless every client command's stdout is compared in
// full, and its stderr too when the command is expected to fail: a guide
// never shows a command with part of its output. It also fails when the
// script runs no client command, when a comparison names a file the archive
// lacks, or when a line cannot be parsed. Server commands, waits and checks
// of anything but the client are left out.
func RenderSession(archive []byte) (string, error) {
	ar := txtar.Parse(archive)
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	var (
		steps    []*step
		cur      *step    // the step later checks belong to, or nil
		comments []string // comment lines directly above the current line
		stdin    string   // what "stdin FILE" gives the next command
		// background holds the steps of commands run in the background
		// ("exec redis-cli ... &name&": a second terminal, whose client
		// waits), by name: "wait name" makes its output the one checked.
		background = map[string]*step{}
	)
	for n, line := range strings.Split(string(ar.Comment), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			comments = nil
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			comments = append(comments, trimmed)
			continue
		}
		above := comments
		comments = nil
		// Conditions such as [linux] do not change what is printed.
		l, err := scriptread.Parse(trimmed)
		if err != nil {
			return "", fmt.Errorf("script line %d: %v", n+1, err)
		}
		if l.Name == "" {
			continue
		}
		negated, args := l.Negated, l.Args
		switch name := l.Name; {
		case name == "stdin" && len(args) == 1:
			// The input of the next command, which shows it: the
			// comments above belong to that command too.
			data, ok := files[args[0].Val]
			if !ok {
				return "", fmt.Errorf("script line %d: stdin names %s, which the archive does not hold", n+1, args[0].Val)
			}
			stdin, comments, cur = data, above, nil
		case name == "exec" && len(args) > 0 && args[0].Val == "client":
			cur = &step{line: n + 1, comments: above, command: clientCommand(args[1:]) + hereDoc(stdin), negated: negated}
			steps = append(steps, cur)
			stdin = ""
		case name == "exec" && len(args) > 0 && args[0].Val == "redis-cli":
			if !terminalFormat(args[1:]) {
				return "", fmt.Errorf("script line %d: redis-cli without --no-raw (or --raw) prints its replies raw into the script's pipe, but formatted on the reader's terminal: the guide would show what a reader never sees", n+1)
			}
			bg := ""
			if last := args[len(args)-1].Val; len(last) > 2 && strings.HasPrefix(last, "&") && strings.HasSuffix(last, "&") {
				bg, args = last[1:len(last)-1], args[:len(args)-1]
			}
			cur = &step{line: n + 1, comments: above, command: redisCLICommand(args[1:]) + hereDoc(stdin), negated: negated}
			steps = append(steps, cur)
			stdin = ""
			if bg != "" {
				// Its output is known once it is waited for.
				background[bg], cur = cur, nil
			}
		case name == "wait" && len(args) == 1 && background[args[0].Val] != nil:
			cur = background[args[0].Val]
		case name == "waitfor" && len(args) > 1 && args[1].Val == "client":
			cur = &step{line: n + 1, comments: above, command: clientCommand(args[2:])}
			steps = append(steps, cur)
		case name == "cmp" && !negated && len(args) == 2 && isStream(args[0].Val):
			if cur == nil {
				continue
			}
			data, ok := files[args[1].Val]
			if !ok {
				return "", fmt.Errorf("script line %d: cmp names %s, which the archive does not hold", n+1, args[1].Val)
			}
			cur.set(args[0].Val, splitLines(data))
		case name == "cmpvary" && !negated:
			if cur == nil {
				continue
			}
			stream, out, unordered, err := cmpVary(args, files)
			if err != nil {
				return "", fmt.Errorf("script line %d: %v", n+1, err)
			}
			cur.set(stream, out)
			cur.unordered = cur.unordered || unordered && stream == "stdout"
		case (name == "stdout" || name == "stderr") && negated && len(args) == 1 && args[0].Val == ".":
			// "! stdout ." proves there is no output at all.
			if cur != nil {
				cur.set(name, []string{})
			}
		case name == "stdout" || name == "stderr" || name == "cmp" || name == "cmpenv" || name == "cmpvary":
			// A check that proves part of the output; it still concerns cur.
		default:
			// Any other command replaces stdout and stderr, so checks
			// after it no longer describe the client; an exec takes the
			// input stdin gave.
			cur = nil
			if name == "exec" {
				stdin = ""
			}
		}
	}
	if len(steps) == 0 {
		return "", fmt.Errorf("script runs no client command")
	}
	var incomplete []string
	for _, s := range steps {
		switch {
		case s.stdout == nil:
			incomplete = append(incomplete, fmt.Sprintf("script line %d: %q: no full comparison of its stdout (cmp, cmpvary or ! stdout .)", s.line, s.command))
		case s.negated && s.stderr == nil:
			incomplete = append(incomplete, fmt.Sprintf("script line %d: %q fails but its stderr is not compared in full", s.line, s.command))
		}
	}
	if len(incomplete) > 0 {
		return "", fmt.Errorf("session incomplete, the guide would show part of the output:\n\t%s", strings.Join(incomplete, "\n\t"))
	}
	var b strings.Builder
	b.WriteString("```console\n")
	for i, s := range steps {
		if len(s.comments) > 0 && i > 0 {
			b.WriteString("\n")
		}
		for _, c := range s.comments {
			b.WriteString(c + "\n")
		}
		b.WriteString("$ " + s.command)
		if s.unordered {
			b.WriteString("  " + UnorderedNote)
		}
		b.WriteString("\n")
		for _, o := range append(s.stdout, s.stderr...) {
			b.WriteString(o + "\n")
		}
	}
	b.WriteString("```\n")
	return b.String(), nil
}

// hereDoc shows input given to a command as a shell here-document, its
// lines between "<<'EOF'" and "EOF" (quoted, so that the shell leaves them
// as they are); no input shows as nothing.
func hereDoc(input string) string {
	if input == "" {
		return ""
	}
	if !strings.HasSuffix(input, "\n") {
		input += "\n"
	}
	return " <<'EOF'\n" + input + "EOF"
}

// UnorderedNote follows a command whose output lines may come in any
// order; being a shell comment, the line can still be pasted as it is.
const UnorderedNote = "# lines in any order"

func isStream(s string) bool { return s == "stdout" || s == "stderr" }

// set records the full output of one stream.
func (s *step) set(stream string, lines []string) {
	if lines == nil {
		lines = []string{}
	}
	if stream == "stdout" {
		s.stdout = lines
	} else {
		s.stderr = lines
	}
}

// splitLines splits text into lines, without the final newline's empty one.
func splitLines(text string) []string {
	if text == "" {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// cmpVary reads the arguments of the harness's command
// "cmpvary [-unordered] [-text] stdout|stderr FILE|TEXT" and returns the
// stream it compares and the expected lines as a guide shows them.
func cmpVary(args []scriptread.Word, files map[string]string) (stream string, lines []string, unordered bool, err error) {
	inline := false
	for len(args) > 0 && strings.HasPrefix(args[0].Val, "-") {
		switch args[0].Val {
		case "-unordered":
			unordered = true
		case "-text":
			inline = true
		default:
			return "", nil, false, fmt.Errorf("cmpvary: unknown flag %s", args[0].Val)
		}
		args = args[1:]
	}
	if len(args) != 2 || !isStream(args[0].Val) {
		return "", nil, false, fmt.Errorf("cmpvary: want [-unordered] [-text] stdout|stderr FILE|TEXT")
	}
	text := args[1].Val
	if inline && text != "" {
		text += "\n"
	} else if !inline {
		data, ok := files[text]
		if !ok {
			return "", nil, false, fmt.Errorf("cmpvary names %s, which the archive does not hold", text)
		}
		text = data
	}
	lines = splitLines(text)
	for i, l := range lines {
		if lines[i], err = ShowPlaceholders(l); err != nil {
			return "", nil, false, fmt.Errorf("cmpvary %s: %v", args[1].Val, err)
		}
	}
	return args[0].Val, lines, unordered, nil
}

// ShowPlaceholders renders one expected line of cmpvary for a reader: each
// «name=regexp» (a part that varies from run to run) becomes <name>. It
// fails on a placeholder the harness would refuse.
func ShowPlaceholders(line string) (string, error) { return scriptread.Show(line) }

// ClientPath is where the guides have the reader build the chapter's
// client ("go build -o bin/ ./chNN_name/cmd/..." at the repository root).
const ClientPath = "bin/client"

// clientCommand writes the client's arguments as a reader would type them,
// leaving out the "-addr $ADDR" that points the script's client at its
// server on a free port (the reader's server listens on the default one).
func clientCommand(args []scriptread.Word) string {
	parts := []string{ClientPath}
	for i := 0; i < len(args); i++ {
		if args[i].Val == "-addr" && i+1 < len(args) && args[i+1].Val == "$ADDR" {
			i++
			continue
		}
		parts = append(parts, shellQuote(args[i]))
	}
	return strings.Join(parts, " ")
}

// terminalFormat reports whether redis-cli, given args, prints through a
// pipe what it prints on a terminal: --no-raw gives a pipe the terminal's
// format, --raw gives a terminal the pipe's. Without either, redis-cli
// formats its replies only for a terminal.
func terminalFormat(args []scriptread.Word) bool {
	for _, a := range args {
		if a.Val == "--no-raw" || a.Val == "--raw" {
			return true
		}
	}
	return false
}

// RESPPort is the port a redis-cli session is shown talking to: the
// default of the server's -resp-addr, where scripts use a free port.
const RESPPort = "6380"

// redisCLICommand renders the arguments of "exec redis-cli" as a reader
// would type them against a server started with its defaults: the
// script's free port becomes RESPPort, and -h $RESP_HOST (loopback,
// redis-cli's default anyway) is left out. So is --no-raw: scripts give
// it so that redis-cli, piped, prints replies as it does on a terminal
// ("hello world" quoted, (integer) 2, (nil)), which is its default there.
func redisCLICommand(args []scriptread.Word) string {
	parts := []string{"redis-cli"}
	for i := 0; i < len(args); i++ {
		if args[i].Val == "--no-raw" {
			continue
		}
		if i+1 < len(args) && args[i].Val == "-h" && args[i+1].Val == "$RESP_HOST" {
			i++
			continue
		}
		if i+1 < len(args) && args[i].Val == "-p" && args[i+1].Val == "$RESP_PORT" {
			parts = append(parts, "-p", RESPPort)
			i++
			continue
		}
		parts = append(parts, shellQuote(args[i]))
	}
	return strings.Join(parts, " ")
}
