// Package conform checks a server, in any language, against the wire
// behaviour of one chapter of the book: the book's sessions (replayed from
// the chapters' testscript files), reply tags, error codes and messages,
// the protocol's limits, bad framing, pipelining, and the timers of the
// later chapters. A stage is one chapter's checks; stages are data (see
// Stages), and Run runs some of them and reports one line per check.
package conform

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"example.com/byor/testkit/serverproc"
)

// Edition selects the profile of wire-visible values checked against.
type Edition string

// The editions known: the 2023 edition the chapters follow, and the book's
// newer edition as far as public sources tell.
const (
	Edition2023  Edition = "2023"
	EditionNewer Edition = "newer"
)

// Config says what to check and how.
type Config struct {
	// Addr is where the server listens. With Server set and naming
	// neither {addr} nor {port}, it is where the started server is
	// expected to listen.
	Addr string
	// Server is the command that starts the server, one word per
	// element; {addr} and {port} are replaced by a free loopback
	// address. Empty: the server at Addr is already running.
	Server []string
	// Strict turns warnings (behaviour the book's own code is known to
	// have) into failures.
	Strict bool
	// Verbose adds raw hex to failure reports.
	Verbose bool
	// Edition picks the profile; "" means Edition2023.
	Edition Edition
	// Root is the repository root, holding chNN_*/testdata/script. ""
	// looks for it (see FindRoot); if none is found sessions are skipped.
	Root string
	// SkipSlow leaves out the checks that take several seconds of
	// waiting by design (idle timeouts); the self-tests run those once
	// per chapter rather than once per stage.
	SkipSlow bool
	// Out receives the report; nil means os.Stdout.
	Out io.Writer
	// Match, if set, runs only the checks whose name contains it.
	Match string
	// MaxCheckTime, if set, caps every check's time limit (tests use it
	// to make a server that hangs fail quickly).
	MaxCheckTime time.Duration
	// StartTimeout bounds how long a started server may take to accept
	// connections; 0 means 60 s.
	StartTimeout time.Duration
}

// Outcome is the verdict on one check.
type Outcome int

// The possible outcomes.
const (
	OK Outcome = iota
	Failed
	Warned
	Skipped
	Unverified
)

func (o Outcome) String() string {
	return [...]string{"ok", "FAIL", "WARNING", "skipped", "unverified"}[o]
}

// Result is one check's outcome, as reported.
type Result struct {
	Stage, Check string
	Outcome      Outcome
	Detail       string // why it failed, warned or was skipped
}

// Summary is what Run found.
type Summary struct {
	Results []Result
	// Failed is true if any check failed (or warned, with Strict).
	Failed bool
	// Hint, after a failure, names the chapters whose format the server
	// seems to speak instead.
	Hint string
}

// Count returns how many results have outcome o.
func (s *Summary) Count(o Outcome) int {
	n := 0
	for _, r := range s.Results {
		if r.Outcome == o {
			n++
		}
	}
	return n
}

// Warning is returned by a check when the server behaves as the book's own
// code is known to (a book bug), rather than as the book means it to.
type Warning struct{ Msg string }

func (w *Warning) Error() string { return w.Msg }

// skip is returned by a check that cannot run against this server.
type skip struct{ why string }

func (s *skip) Error() string { return s.why }

// Run runs the stages named by ids (e.g. "ch07") in the order given. With
// stopAtFailure it stops after the first stage that fails. The error is
// for problems of the run itself (unknown stage, server not starting);
// check failures are in the summary.
func Run(cfg Config, ids []string, stopAtFailure bool) (*Summary, error) {
	if cfg.Out == nil {
		cfg.Out = os.Stdout
	}
	if cfg.Edition == "" {
		cfg.Edition = Edition2023
	}
	if cfg.Edition != Edition2023 && cfg.Edition != EditionNewer {
		return nil, fmt.Errorf("unknown edition %q (want 2023 or newer)", cfg.Edition)
	}
	if cfg.Root == "" {
		cfg.Root = FindRoot()
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	var stages []*Stage
	for _, id := range ids {
		st := StageByID(id)
		if st == nil {
			return nil, fmt.Errorf("unknown stage %q (known: %s)", id, strings.Join(StageIDs(), " "))
		}
		stages = append(stages, st)
	}
	if len(cfg.Server) == 0 {
		c, err := net.DialTimeout("tcp", cfg.Addr, 10*time.Second)
		if err != nil {
			return nil, fmt.Errorf("no server accepts connections on %s (%v); start one, or give -server", cfg.Addr, err)
		}
		c.Close()
	}
	sum := &Summary{}
	for _, st := range stages {
		failed, err := runStage(&cfg, st, sum, !sum.Failed)
		if err != nil {
			return sum, err
		}
		if failed && stopAtFailure {
			fmt.Fprintf(cfg.Out, "%s failed: stopping before the later stages\n", st.ID)
			break
		}
	}
	return sum, nil
}

// target is the server under test: either a fixed address or a process
// the runner starts and restarts.
type target struct {
	cfg  *Config
	proc *serverproc.Process
	argv []string // the command line proc was started with
}

func (t *target) managed() bool { return len(t.cfg.Server) > 0 }

// start starts the server (stopping any previous one).
func (t *target) start() error {
	t.stop()
	addr := t.cfg.Addr
	argv, uses := serverproc.Expand(t.cfg.Server, "")
	for tries := 1; ; tries++ {
		if uses {
			free, err := serverproc.FreeAddr()
			if err != nil {
				return err
			}
			addr = free
			argv, _ = serverproc.Expand(t.cfg.Server, addr)
		}
		p, err := serverproc.Start(argv, addr, t.cfg.StartTimeout)
		// A server that exits at once may have lost its port to another
		// process between FreeAddr and its bind: a new port is worth a
		// second try. A server that crashes at start-up fails every time.
		if err != nil && uses && tries < 3 && errors.Is(err, serverproc.ErrExited) {
			continue
		}
		if err != nil {
			return fmt.Errorf("starting %q: %v", strings.Join(argv, " "), err)
		}
		t.proc, t.argv = p, argv
		return nil
	}
}

// relaunch kills the server and starts it again with the same command
// line, on the same address.
func (t *target) relaunch() error {
	addr := t.proc.Addr
	t.proc.Kill()
	t.proc = nil
	p, err := serverproc.Start(t.argv, addr, t.cfg.StartTimeout)
	if err != nil {
		return fmt.Errorf("restarting %q: %v", strings.Join(t.argv, " "), err)
	}
	t.proc = p
	return nil
}

// ensure starts the server if it is not running.
func (t *target) ensure() error {
	if !t.managed() || (t.proc != nil && t.proc.Running()) {
		return nil
	}
	return t.start()
}

func (t *target) stop() {
	if t.proc != nil {
		t.proc.Stop(5 * time.Second)
		t.proc = nil
	}
}

func (t *target) addr() string {
	if t.proc != nil {
		return t.proc.Addr
	}
	return t.cfg.Addr
}

// runStage runs one stage's checks and reports whether any failed. With
// hint, a failed stage ends with a guess at which chapter's format the
// server speaks, if not the stage's.
func runStage(cfg *Config, st *Stage, sum *Summary, hint bool) (bool, error) {
	tg := &target{cfg: cfg}
	defer tg.stop()
	failed := false
	defer func() {
		if failed && hint && tg.ensure() == nil {
			if h := lookalike(st, tg.addr()); h != "" {
				sum.Hint = h
				fmt.Fprintln(cfg.Out, h)
			}
		}
	}()
	for _, ck := range st.Checks(cfg) {
		if cfg.Match != "" && !strings.Contains(ck.Name, cfg.Match) {
			continue
		}
		r := Result{Stage: st.ID, Check: ck.Name}
		switch {
		case ck.Slow && cfg.SkipSlow:
			r.Outcome, r.Detail = Skipped, "slow checks left out"
		case ck.Skip != "":
			r.Outcome, r.Detail = Skipped, ck.Skip
		case ck.Fresh && !tg.managed() && !ck.FreshOptional:
			r.Outcome, r.Detail = Skipped, "needs an empty key space: use -server so the runner can start one"
		default:
			var err error
			if ck.Fresh && tg.managed() {
				err = tg.start()
			} else {
				err = tg.ensure()
			}
			if err != nil {
				return true, err
			}
			r = runCheck(cfg, st, ck, tg)
		}
		if r.Outcome == Failed || (r.Outcome == Warned && cfg.Strict) {
			failed = true
			sum.Failed = true
		}
		sum.Results = append(sum.Results, r)
		report(cfg.Out, r)
	}
	return failed, nil
}

// runCheck runs one check against the running server.
func runCheck(cfg *Config, st *Stage, ck Check, tg *target) Result {
	r := Result{Stage: st.ID, Check: ck.Name}
	timeout := ck.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if cfg.MaxCheckTime > 0 && timeout > cfg.MaxCheckTime {
		timeout = cfg.MaxCheckTime
	}
	e := &Env{
		Addr:     tg.addr(),
		stage:    st,
		edition:  cfg.Edition,
		fresh:    ck.Fresh && tg.managed(),
		deadline: time.Now().Add(timeout),
		verbose:  cfg.Verbose,
	}
	done := make(chan struct{})
	// Stop waiting on the server as soon as it has died.
	watch := func(p *serverproc.Process, done chan struct{}) {
		select {
		case <-p.Exited():
			e.serverDied()
		case <-done:
		}
	}
	if tg.proc != nil {
		go watch(tg.proc, done)
		e.restart = func() error {
			close(done) // a death it causes is no failure
			err := tg.relaunch()
			done = make(chan struct{})
			e.mu.Lock()
			e.dead = tg.proc == nil
			e.mu.Unlock()
			if tg.proc != nil {
				go watch(tg.proc, done)
			}
			return err
		}
	}
	err := ck.Run(e)
	close(done)
	if err != nil && tg.proc != nil {
		// A connection may see the server's death before the watcher,
		// and on a loaded machine the exit can be reaped well after the
		// socket closed. Only a failing check waits here, so the wait
		// can be generous.
		select {
		case <-tg.proc.Exited():
			e.serverDied()
		case <-time.After(2 * time.Second):
		}
	}
	e.closeAll()
	if err == nil {
		if len(e.warnings) > 0 {
			err = &Warning{strings.Join(e.warnings, "\n")}
		} else {
			r.Outcome = OK
			return r
		}
	}
	var w *Warning
	var s *skip
	switch {
	case errors.As(err, &s):
		r.Outcome, r.Detail = Skipped, s.why
		return r
	case errors.As(err, &w):
		r.Outcome = Warned
		if cfg.Strict {
			r.Outcome = Failed
		}
		r.Detail = "WARNING (a bug of the book's own code, not of this server's port): " + w.Msg
	default:
		r.Outcome = Failed
		if ck.Unverified {
			r.Outcome = Unverified
		}
		r.Detail = err.Error()
		if e.died() {
			r.Detail += "\nthe server process exited" + procNote(tg.proc)
		}
	}
	sec := ck.Section
	if sec == "" {
		sec = st.Section
	}
	r.Detail += "\nbook: " + sec
	if ck.Hint != "" {
		r.Detail += "\nhint: " + ck.Hint
	}
	if r.Outcome == Unverified {
		r.Detail += "\n(the newer edition's value here is not confirmed by more than one source, so this does not fail)"
	}
	return r
}

func procNote(p *serverproc.Process) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	if s := p.Stderr(); s != "" {
		fmt.Fprintf(&b, "\nserver stderr:\n%s", tail(s, 2000))
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// report prints one result: a line, then the detail indented.
func report(w io.Writer, r Result) {
	line := fmt.Sprintf("%s %s ... %s", r.Stage, r.Check, r.Outcome)
	if r.Outcome == Skipped && r.Detail != "" {
		fmt.Fprintf(w, "%s (%s)\n", line, r.Detail)
		return
	}
	fmt.Fprintln(w, line)
	if r.Detail != "" {
		for _, l := range strings.Split(strings.TrimRight(r.Detail, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

// FindRoot returns the repository root (the directory with go.work and
// ch03_hello), looking up from the working directory, or "".
func FindRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "ch03_hello", "testdata", "script")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
