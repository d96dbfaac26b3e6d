package testkit

import (
	"regexp"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptServers maps each running script to its server.
var scriptServers sync.Map // *testscript.TestScript -> *Server

// cmdStartServer is the script command "startserver [flags]": it starts the
// server on a free port and sets $ADDR to its address.
func cmdStartServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! startserver")
	}
	if _, ok := scriptServers.Load(ts); ok {
		ts.Fatalf("a server is already running")
	}
	p, err := StartServer(args...)
	ts.Check(err)
	scriptServers.Store(ts, p)
	ts.Setenv("ADDR", p.Addr)
	ts.Defer(func() {
		p.kill()
		scriptServers.Delete(ts)
	})
}

// cmdStopServer is the script command "stopserver": it stops the server
// with SIGTERM and makes everything it printed the command's output, for
// stdout/stderr/cmp to check. It fails unless the server exited cleanly.
func cmdStopServer(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := scriptServers.Load(ts)
	if !ok {
		ts.Fatalf("no server running")
	}
	p := v.(*Server)
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
	v, ok := scriptServers.Load(ts)
	if !ok {
		ts.Fatalf("no server running")
	}
	ts.Check(v.(*Server).WaitLog(regexp.MustCompile("(?m)" + args[0])))
}

// cmdWaitFor is the script command "waitfor regexp cmd [args...]": it runs
// cmd every 50 ms, for up to 10 s, until its stdout matches regexp. It is
// how scripts wait for something that happens in time, such as a key
// expiring, without a fixed sleep.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: waitfor regexp cmd [args...]")
	}
	re := regexp.MustCompile("(?m)" + args[0])
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := ts.Exec(args[1], args[2:]...)
		out := ts.ReadFile("stdout")
		if err == nil && re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("after 10s, %s still prints %q (error %v), not matching %q", args[1], out, err, args[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
