package conform

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"example.com/byor/testkit"
	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/scriptread"
)

// Sessions are the chapters' testscript files read as data: each
// "exec client -addr $ADDR args..." becomes one request sent over a raw
// socket, its reply is printed as the chapter's client prints it, and the
// "cmp stdout" / "stdout" lines that follow are checked against that text.
// Lines about the server's own output, or about the programs' flags, are
// left out: only the wire is checked.

// step is one request of a session and what its printed reply must match.
type step struct {
	line    int
	args    []string // the client's arguments after -addr $ADDR
	noArgs  bool     // "exec client -addr $ADDR" with nothing after
	waitFor *regexp.Regexp
	checks  []outCheck
}

// outCheck is one assertion on the printed reply.
type outCheck struct {
	line   int
	neg    bool
	want   string         // cmp stdout: the whole text
	re     *regexp.Regexp // stdout: a match
	count  int            // stdout -count=N; 0 means "at least one"
	isCmp  bool
	vary   bool // cmpvary: want may hold «name=regexp» placeholders
	anyOrd bool // cmpvary -unordered: the lines in any order
	source string
}

// session is one script's steps.
type session struct {
	name     string
	comment  string
	steps    []step
	usesKeys bool     // calls keys, whose answer depends on the whole key space
	keys     []string // the keys it touches (its commands' first argument)
}

// loadSessions reads the sessions of chapter dir (e.g. "ch07_basic").
func loadSessions(root, dir string) ([]*session, error) {
	files, err := filepath.Glob(filepath.Join(root, dir, "testdata", "script", "*.txtar"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*session
	for _, f := range files {
		switch filepath.Base(f) {
		case "usage.txtar":
			continue // the programs' flags, not the wire
		case "drip.txtar":
			continue // the client's -drip; chapter 15's stage checks it (hardChecks)
		}
		ar, err := txtar.ParseFile(f)
		if err != nil {
			return nil, err
		}
		s, err := parseSession(strings.TrimSuffix(filepath.Base(f), ".txtar"), ar)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if len(s.steps) > 0 {
			out = append(out, s)
		}
	}
	return out, nil
}

func parseSession(name string, ar *txtar.Archive) (*session, error) {
	s := &session{name: name}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	seen := map[string]bool{}
	stopped := false
	for i, raw := range strings.Split(string(ar.Comment), "\n") {
		ln := i + 1
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if s.comment == "" {
				s.comment = strings.TrimSpace(strings.TrimPrefix(line, "#"))
			}
			continue
		}
		l, err := scriptread.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", ln, err)
		}
		if l.Name == "" {
			continue
		}
		if len(l.Conds) > 0 || l.Maybe {
			return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
		}
		neg, words := l.Negated, append([]string{l.Name}, l.Vals()...)
		last := func() *step {
			if len(s.steps) == 0 {
				return nil
			}
			return &s.steps[len(s.steps)-1]
		}
		switch words[0] {
		case "startserver", "waitlog":
		case "stopserver":
			stopped = true
		case "exec", "waitfor":
			var re *regexp.Regexp
			if words[0] == "waitfor" {
				re, err = regexp.Compile("(?m)" + words[1])
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", ln, err)
				}
				words = words[1:]
			}
			if neg || len(words) < 4 || words[1] != "client" || words[2] != "-addr" || words[3] != "$ADDR" {
				return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
			}
			st := step{line: ln, args: words[4:], noArgs: len(words) == 4, waitFor: re}
			s.steps = append(s.steps, st)
			if len(st.args) > 0 && strings.EqualFold(st.args[0], "keys") {
				s.usesKeys = true
			}
			if len(st.args) > 1 && !seen[st.args[1]] {
				seen[st.args[1]] = true
				s.keys = append(s.keys, st.args[1])
			}
		case "cmp":
			if len(words) != 3 || words[1] != "stdout" {
				return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
			}
			if stopped {
				continue // the server's output, not a reply
			}
			want, ok := files[words[2]]
			if !ok {
				return nil, fmt.Errorf("line %d: no file %s", ln, words[2])
			}
			if st := last(); st != nil {
				st.checks = append(st.checks, outCheck{line: ln, neg: neg, want: want, isCmp: true, source: line})
			}
		case "cmpvary":
			// The harness's whole-output comparison with placeholders:
			// cmpvary [-unordered] [-text] stdout|stderr FILE|TEXT.
			oc := outCheck{line: ln, neg: neg, isCmp: true, vary: true, source: line}
			args, inline := words[1:], false
			for len(args) > 0 && strings.HasPrefix(args[0], "-") {
				switch args[0] {
				case "-unordered":
					oc.anyOrd = true
				case "-text":
					inline = true
				default:
					return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
				}
				args = args[1:]
			}
			if len(args) != 2 || args[0] != "stdout" && args[0] != "stderr" {
				return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
			}
			if stopped || args[0] == "stderr" {
				continue // the server's output or the programs' messages
			}
			switch {
			case inline && args[1] != "":
				oc.want = args[1] + "\n"
			case !inline:
				want, ok := files[args[1]]
				if !ok {
					return nil, fmt.Errorf("line %d: no file %s", ln, args[1])
				}
				oc.want = want
			}
			if err := scriptread.CheckText(oc.want); err != nil {
				return nil, fmt.Errorf("line %d: %v", ln, err)
			}
			if st := last(); st != nil {
				st.checks = append(st.checks, oc)
			}
		case "stdout":
			if stopped {
				continue
			}
			oc := outCheck{line: ln, neg: neg, source: line}
			args := words[1:]
			if len(args) == 2 && strings.HasPrefix(args[0], "-count=") {
				n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-count="))
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", ln, err)
				}
				oc.count, args = n, args[1:]
			}
			if len(args) != 1 {
				return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
			}
			oc.re, err = regexp.Compile("(?m)" + args[0])
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", ln, err)
			}
			if st := last(); st != nil {
				st.checks = append(st.checks, oc)
			}
		case "stderr":
			// The programs' error messages: not the wire.
		default:
			return nil, fmt.Errorf("line %d: cannot replay %q", ln, line)
		}
	}
	return s, nil
}

// sessionChecks turns chapter dir's scripts into checks.
func sessionChecks(st *Stage, cfg *Config) []Check {
	name := "sessions"
	if st.Proto == chapters.RESP {
		return nil // the chapter's scripts replay its book-protocol listener
	}
	if cfg.Edition == EditionNewer {
		return []Check{{Name: name, Skip: "the sessions are the 2023 edition's"}}
	}
	if cfg.Root == "" {
		return []Check{{Name: name, Skip: "chNN_*/testdata/script not found: run from the repository"}}
	}
	ss, err := loadSessions(cfg.Root, st.Dir)
	if err != nil {
		return []Check{{Name: name, Run: func(*Env) error { return err }}}
	}
	var out []Check
	for _, s := range ss {
		s := s
		ck := Check{
			Name:          fmt.Sprintf("session %s: %s", s.name, strings.TrimSuffix(s.comment, ":")),
			Section:       st.Section + " (" + filepath.Join(st.Dir, "testdata", "script", s.name+".txtar") + ")",
			Hint:          "the script's comments say what the book expects here",
			Fresh:         true,
			FreshOptional: !s.usesKeys,
			Timeout:       60 * time.Second,
			Run:           func(e *Env) error { return runSession(e, s) },
		}
		if len(ck.Name) > 80 {
			cut := strings.LastIndex(ck.Name[:77], " ")
			ck.Name = strings.TrimRight(ck.Name[:cut], ",:;") + "..."
		}
		out = append(out, ck)
	}
	return out
}

// runSession replays s; each client run is a fresh connection, as it is
// for the real client.
func runSession(e *Env, s *session) error {
	if !e.fresh && e.stage.Proto.Commands() {
		// A shared server: clear the keys the session uses first.
		c, err := e.Dial()
		if err != nil {
			return err
		}
		for _, k := range s.keys {
			if err := c.Send(e.Req("del", k)); err != nil {
				return err
			}
			if _, err := c.ReadReply(); err != nil {
				return err
			}
		}
		c.Close()
	}
	var bug *bookBug // a book bug whose consequences the next steps may show
	warned := map[*bookBug]bool{}
	for _, st := range s.steps {
		if st.waitFor != nil {
			if err := waitFor(e, s, st); err != nil {
				return err
			}
			continue
		}
		out, req, raw, err := runClient(e, st)
		if err != nil {
			return fmt.Errorf("%s.txtar line %d: %v", s.name, st.line, err)
		}
		key := strings.Join(st.args, " ")
		for _, oc := range st.checks {
			if msg := oc.fails(out); msg != "" {
				if bug != nil && bug.book[key] != nil && bug.book[key].MatchString(out) {
					if !warned[bug] {
						warned[bug] = true
						e.Warn("%s.txtar line %d: after %q, %s answers %s where this session expects %s: %s",
							s.name, oc.line, bug.trigger, e.showRequest(req), strings.TrimSuffix(out, "\n"), msg, bug.why)
					}
					break
				}
				return fmt.Errorf("%s.txtar line %d: %s\nrequest:  %s\nexpected: %s\nreceived: %s%s",
					s.name, oc.line, oc.source, e.showRequest(req), msg, strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", " | "), e.hexNote(req, raw))
			}
		}
		if b := findBookBug(s.name, key); b != nil {
			bug = b
		}
	}
	return nil
}

func (e *Env) hexNote(req, raw []byte) string {
	if !e.verbose {
		return ""
	}
	return "\nrequest hex:  " + hexOf(req) + "\nreceived hex: " + hexOf(raw)
}

// fails returns "" if out passes the check, else what was expected.
func (oc outCheck) fails(out string) string {
	var ok bool
	var want string
	switch {
	case oc.vary:
		ok, _ = testkit.MatchVary(out, oc.want, oc.anyOrd) // checked when parsed
		want = strings.ReplaceAll(strings.TrimSuffix(oc.want, "\n"), "\n", " | ")
	case oc.isCmp:
		ok = out == oc.want
		want = strings.ReplaceAll(strings.TrimSuffix(oc.want, "\n"), "\n", " | ")
	case oc.count > 0:
		ok = len(oc.re.FindAllString(out, -1)) == oc.count
		want = fmt.Sprintf("%d lines matching %s", oc.count, oc.re)
	default:
		ok = oc.re.MatchString(out)
		want = "a line matching " + oc.re.String()
	}
	if oc.neg {
		ok = !ok
		want = "no " + strings.TrimPrefix(want, "a ")
	}
	if ok {
		return ""
	}
	return want
}

// waitFor repeats a step until its printed reply matches, for up to 10 s.
func waitFor(e *Env, s *session, st step) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, req, _, err := runClient(e, st)
		if err != nil {
			return fmt.Errorf("%s.txtar line %d: %v", s.name, st.line, err)
		}
		if st.waitFor.MatchString(out) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s.txtar line %d: after 10 s, %s still answers %s, not matching %s",
				s.name, st.line, e.showRequest(req), strings.TrimSpace(out), st.waitFor)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runClient does what the chapter's client does for one run and returns
// what it would print, the (last) request and the raw reply bytes.
func runClient(e *Env, st step) (out string, req, raw []byte, err error) {
	c, err := e.Dial()
	if err != nil {
		return "", nil, nil, err
	}
	defer c.Close()
	switch p := e.stage.Proto; {
	case p == chapters.Hello:
		// Say hello and print what one read of up to 64 bytes brings,
		// as the book's client does.
		req = []byte("hello")
		if err := c.Send(req); err != nil {
			return "", req, nil, err
		}
		buf := make([]byte, 64)
		c.got = c.got[:0]
		n, rerr := c.br.Read(buf)
		if n == 0 {
			return "", req, nil, c.readErr("reading the reply", rerr)
		}
		raw = buf[:n]
		s, _ := e.render(raw)
		return s, req, raw, nil
	case p.TextMessages():
		msgs := []string{"hello1", "hello2", "hello3"}
		var sb strings.Builder
		if e.stage.Proto.Pipelined() {
			var all []byte
			for _, m := range msgs {
				all = append(all, Frame([]byte(m))...)
			}
			req = all
			if err := c.Send(all); err != nil {
				return "", req, nil, err
			}
		}
		for _, m := range msgs {
			if !e.stage.Proto.Pipelined() {
				req = Frame([]byte(m))
				if err := c.Send(req); err != nil {
					return "", req, nil, err
				}
			}
			body, err := c.ReadReply()
			if err != nil {
				return sb.String(), req, nil, err
			}
			raw = body
			s, _ := e.render(body)
			sb.WriteString(s)
		}
		return sb.String(), req, raw, nil
	}
	req = e.Req(st.args...)
	if err := c.Send(req); err != nil {
		return "", req, nil, err
	}
	body, err := c.ReadReply()
	if err != nil {
		return "", req, nil, err
	}
	s, rerr := e.render(body)
	if rerr != nil {
		// Left to the step's checks, which then show what was expected.
		s = fmt.Sprintf("undecodable reply (%v): %x\n", rerr, clip(body))
	}
	return s, req, body, nil
}

// bookBug is a place where a session expects this repository's fix of a
// bug in the book's own code: a server that behaves as the book's code
// does there is reported with a warning that explains the bug, not a
// failure (-strict makes it one).
type bookBug struct {
	script  string // the session
	trigger string // the request, words joined by blanks, from which the book's code differs
	why     string
	// book holds, for the session's later requests, what the book's
	// code prints instead of what the session expects.
	book map[string]*regexp.Regexp
}

var bookBugs = []*bookBug{{
	script:  "ttl",
	trigger: "pexpire n 99999999999999999999",
	why: "the book's code computes the deadline as now + ms*1000 microseconds in uint64_t without a check; " +
		"for 2^63-1 ms (what strtoll makes of 99999999999999999999) the sum wraps around to 1 ms before now and the key expires at once, " +
		"where this repository's servers keep it (the pexpire overflow; see docs/ch13_heap_ttl.md)",
	book: map[string]*regexp.Regexp{
		"pttl n":     regexp.MustCompile(`^\(int\) (-2|0)\n$`), // removed, or due and not yet removed
		"pexpire n ": regexp.MustCompile(`^\(int\) 0\n$`),      // the key is gone
	},
}}

// findBookBug returns the book bug that request req (words joined by
// blanks) of session script triggers, or nil.
func findBookBug(script, req string) *bookBug {
	for _, b := range bookBugs {
		if b.script == script && b.trigger == req {
			return b
		}
	}
	return nil
}
