// Package docgen fills the generated blocks of the reader's guides in
// docs/: console sessions taken from the chapters' testscript files, and
// the chapter map of docs/README.md.
package docgen

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// word is one argument of a script line: its value after testscript's
// quoting rules, and whether any of it was written outside quotes with a
// '$' (a variable that testscript would expand).
type word struct {
	val      string
	variable bool
}

// splitWords splits a script line into words the way testscript does:
// spaces and tabs separate words, single quotes group them (” inside
// quotes is one quote), and an unquoted '#' starts a comment. Variables are
// not expanded. It fails on an unterminated quote.
func splitWords(line string) ([]word, error) {
	var (
		words  []word
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
				words = append(words, word{cur.String(), isVar})
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
		return nil, fmt.Errorf("unterminated quoted argument")
	}
	if inWord {
		words = append(words, word{cur.String(), isVar})
	}
	return words, nil
}

// shellSafe matches words a shell user would type without quotes.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote writes w as a POSIX shell user would type it. A word holding
// an unquoted variable stays as written, so that the shell expands it too.
func shellQuote(w word) string {
	if shellSafe.MatchString(w.val) || w.variable && !strings.ContainsAny(w.val, " \t'\"") {
		return w.val
	}
	return "'" + strings.ReplaceAll(w.val, "'", `'\''`) + "'"
}

// literalLine returns the text a testscript stdout/stderr pattern stands
// for when the pattern matches exactly one fixed line (or run of lines):
// anchored at both ends, literal characters in between, no case folding.
// Anything else (alternatives, classes, repeats, unanchored substrings)
// reports false, since printing it would show output the program does not
// necessarily print.
func literalLine(pattern string) (string, bool) {
	// testscript compiles patterns in multi-line mode.
	re, err := syntax.Parse("(?m)"+pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return "", false
	}
	first, last := re.Sub[0].Op, re.Sub[len(re.Sub)-1].Op
	if first != syntax.OpBeginLine && first != syntax.OpBeginText ||
		last != syntax.OpEndLine && last != syntax.OpEndText {
		return "", false
	}
	var text strings.Builder
	for _, sub := range re.Sub[1 : len(re.Sub)-1] {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 {
			return "", false
		}
		text.WriteString(string(sub.Rune))
	}
	return text.String(), true
}

// step is one client command of a session with what the script expects
// it to print.
type step struct {
	comments []string // the script's comment lines just before the command
	command  string   // as typed: "./client get k"
	output   []string // expected lines, in the order the script checks them
}

// RenderSession turns a testscript archive into a fenced console block:
// each client command the script runs against its server becomes a line
// "$ ./client ARGS..." (or "$ redis-cli ARGS..." for Redis's client),
// followed by the output the script checks for it.
// Server commands, waits and checks of anything but the client are left
// out. It fails when the script runs no client command, when a cmp names a
// file the archive lacks, or when a line cannot be parsed.
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
		ws, err := splitWords(trimmed)
		if err != nil {
			return "", fmt.Errorf("script line %d: %v", n+1, err)
		}
		// Conditions such as [linux] do not change what is printed.
		for len(ws) > 0 && strings.HasPrefix(ws[0].val, "[") {
			ws = ws[1:]
		}
		negated := false
		if len(ws) > 0 && (ws[0].val == "!" || ws[0].val == "?") {
			negated = ws[0].val == "!"
			ws = ws[1:]
		}
		if len(ws) == 0 {
			continue
		}
		args := ws[1:]
		switch name := ws[0].val; {
		case name == "exec" && len(args) > 0 && args[0].val == "client":
			cur = &step{comments: above, command: clientCommand(args[1:])}
			steps = append(steps, cur)
		case name == "exec" && len(args) > 0 && args[0].val == "redis-cli":
			cur = &step{comments: above, command: redisCLICommand(args[1:])}
			steps = append(steps, cur)
		case name == "waitfor" && len(args) > 1 && args[1].val == "client":
			cur = &step{comments: above, command: clientCommand(args[2:])}
			if text, ok := literalLine(args[0].val); ok {
				cur.output = append(cur.output, text)
			}
			steps = append(steps, cur)
		case (name == "stdout" || name == "stderr") && !negated:
			if cur != nil {
				cur.output = append(cur.output, matchOutput(args)...)
			}
		case name == "cmp" && !negated && len(args) == 2 && (args[0].val == "stdout" || args[0].val == "stderr"):
			if cur == nil {
				continue
			}
			data, ok := files[args[1].val]
			if !ok {
				return "", fmt.Errorf("script line %d: cmp names %s, which the archive does not hold", n+1, args[1].val)
			}
			if data != "" {
				cur.output = append(cur.output, strings.Split(strings.TrimSuffix(data, "\n"), "\n")...)
			}
		case name == "stdout" || name == "stderr" || name == "cmp" || name == "cmpenv":
			// A check this renderer cannot show; it still concerns cur.
		default:
			// Any other command replaces stdout and stderr, so checks
			// after it no longer describe the client.
			cur = nil
		}
	}
	if len(steps) == 0 {
		return "", fmt.Errorf("script runs no client command")
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
		b.WriteString("$ " + s.command + "\n")
		for _, o := range s.output {
			b.WriteString(o + "\n")
		}
	}
	b.WriteString("```\n")
	return b.String(), nil
}

// clientCommand writes the client's arguments as a reader would type them,
// leaving out the "-addr $ADDR" that points the script's client at its
// server on a free port (the reader's server listens on the default one).
func clientCommand(args []word) string {
	parts := []string{"./client"}
	for i := 0; i < len(args); i++ {
		if args[i].val == "-addr" && i+1 < len(args) && args[i+1].val == "$ADDR" {
			i++
			continue
		}
		parts = append(parts, shellQuote(args[i]))
	}
	return strings.Join(parts, " ")
}

// RESPPort is the port a redis-cli session is shown talking to: the
// default of the server's -resp-addr, where scripts use a free port.
const RESPPort = "6380"

// redisCLICommand renders the arguments of "exec redis-cli" as a reader
// would type them against a server started with its defaults: the
// script's free port becomes RESPPort, and -h $RESP_HOST (loopback,
// redis-cli's default anyway) is left out.
func redisCLICommand(args []word) string {
	parts := []string{"redis-cli"}
	for i := 0; i < len(args); i++ {
		if i+1 < len(args) && args[i].val == "-h" && args[i+1].val == "$RESP_HOST" {
			i++
			continue
		}
		if i+1 < len(args) && args[i].val == "-p" && args[i+1].val == "$RESP_PORT" {
			parts = append(parts, "-p", RESPPort)
			i++
			continue
		}
		parts = append(parts, shellQuote(args[i]))
	}
	return strings.Join(parts, " ")
}

// matchOutput renders the arguments of a stdout or stderr check: the line
// its pattern stands for, or nothing when the pattern is not literal or
// counts matches other than exactly one.
func matchOutput(args []word) []string {
	if len(args) > 0 {
		if count, ok := strings.CutPrefix(args[0].val, "-count="); ok {
			if n, err := strconv.Atoi(count); err != nil || n != 1 {
				return nil
			}
			args = args[1:]
		}
	}
	if len(args) != 1 {
		return nil
	}
	text, ok := literalLine(args[0].val)
	if !ok {
		return nil
	}
	return strings.Split(text, "\n")
}
