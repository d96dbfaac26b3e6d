package testkit

import (
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptState is what the commands of one script share. Each script gets
// its own (see setup), so scripts running in parallel never see each
// other's servers.
type scriptState struct {
	server *Server // the server startserver started, or nil
}

// stateKey is the key of a script's *scriptState in its Env.Values.
type stateKey struct{}

// setup is the Params.Setup of every script: it gives the script its state.
func setup(env *testscript.Env) error {
	env.Values[stateKey{}] = &scriptState{}
	return nil
}

// state returns the script's state.
func state(ts *testscript.TestScript) *scriptState {
	s, ok := ts.Value(stateKey{}).(*scriptState)
	if !ok {
		ts.Fatalf("testkit: the script was not set up by testkit.Params")
	}
	return s
}

// scriptRegexp compiles a regexp taken from a script, in multi-line mode. A
// bad one fails that script, with the reason, rather than panicking.
func scriptRegexp(ts *testscript.TestScript, pattern string) *regexp.Regexp {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		ts.Fatalf("bad regexp %q: %v", pattern, err)
	}
	return re
}

// cmdStartServer is the script command "startserver [flags]": it starts the
// server on a free port and sets $ADDR to its address.
func cmdStartServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! startserver")
	}
	st := state(ts)
	if st.server != nil {
		ts.Fatalf("a server is already running")
	}
	p, err := StartServer(args...)
	ts.Check(err)
	st.server = p
	ts.Setenv("ADDR", p.Addr)
	ts.Defer(func() {
		if p.Running() {
			p.Kill()
		}
	})
}

// cmdStopServer is the script command "stopserver": it stops the server
// with SIGTERM and makes everything it printed the command's output, for
// stdout/stderr/cmp to check. It fails unless the server exited cleanly.
// A script may start a new server afterwards.
func cmdStopServer(ts *testscript.TestScript, neg bool, args []string) {
	st := state(ts)
	p := st.server
	if p == nil {
		ts.Fatalf("no server running")
	}
	st.server = nil
	err := p.Stop()
	ts.Stdout().Write([]byte(p.Stdout()))
	ts.Stderr().Write([]byte(p.Stderr()))
	if err != nil && !neg {
		ts.Fatalf("server did not exit cleanly: %v", err)
	}
	if err == nil && neg {
		ts.Fatalf("server exited cleanly, unexpectedly")
	}
}

// cmdWaitLog is the script command "waitlog regexp": it waits until the
// server has logged a line matching regexp, for events the client cannot
// see, such as the server noticing that a client hung up.
func cmdWaitLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitlog regexp")
	}
	re := scriptRegexp(ts, args[0])
	p := state(ts).server
	if p == nil {
		ts.Fatalf("no server running")
	}
	ts.Check(p.WaitLog(re))
}

// cmdWaitFor is the script command "waitfor regexp cmd [args...]": it runs
// cmd every 50 ms, for up to Scale(30s), until its stdout matches regexp. It is
// how scripts wait for something that happens in time, such as a key
// expiring, without a fixed sleep.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: waitfor regexp cmd [args...]")
	}
	re := scriptRegexp(ts, args[0])
	limit := Scale(30 * time.Second)
	for deadline := time.Now().Add(limit); ; {
		err := ts.Exec(args[1], args[2:]...)
		out := ts.ReadFile("stdout")
		if err == nil && re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("after %v, %s still prints %q (error %v), not matching %q", limit, args[1], out, err, args[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdCmpVary is the script command
//
//	cmpvary [-unordered] [-text] stdout|stderr FILE|TEXT
//
// It compares the whole of the last command's stdout or stderr with FILE
// (or, with -text, with the one line TEXT; an empty TEXT means no output).
// In the expected text, «name=regexp» stands for a part that differs from
// run to run (a TTL, a port): it matches what regexp matches within the
// line, and the guides show it as <name>. With -unordered the lines may
// come in any order, for replies whose order the server does not promise.
// "! cmpvary" succeeds when the output does not match.
func cmdCmpVary(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: cmpvary [-unordered] [-text] stdout|stderr FILE|TEXT"
	unordered, inline := false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-unordered":
			unordered = true
		case "-text":
			inline = true
		default:
			ts.Fatalf("%s", usage)
		}
		args = args[1:]
	}
	if len(args) != 2 || args[0] != "stdout" && args[0] != "stderr" {
		ts.Fatalf("%s", usage)
	}
	want := args[1]
	if inline && want != "" {
		want += "\n"
	} else if !inline {
		want = ts.ReadFile(args[1])
	}
	got := ts.ReadFile(args[0])
	ok, err := MatchVary(got, want, unordered)
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	switch {
	case !ok && !neg:
		ts.Fatalf("%s does not match %s:\n--- got\n%s--- want\n%s", args[0], args[1], got, want)
	case ok && neg:
		ts.Fatalf("%s matches %s, unexpectedly", args[0], args[1])
	}
}

// ScriptServer returns the server the script's startserver started, or nil
// if none is running. A chapter's own script commands use it to learn more
// about the server than $ADDR says.
func ScriptServer(ts *testscript.TestScript) *Server {
	return state(ts).server
}
