// Package testkit is the test harness every chapter shares: it lets a
// chapter's test binary double as the chapter's server and client, runs the
// chapter's testscript sessions with a few script commands of its own, and
// starts the server for Go tests that talk to it over a socket.
//
// A chapter's script_test.go is then a few lines:
//
//	func TestMain(m *testing.M) {
//		testkit.Main(m, testkit.Programs{"server": server.Main, "client": client.Main})
//	}
//
//	func TestScripts(t *testing.T) { testkit.Run(t, "testdata/script") }
//
// The script commands, one function each, are registered in Commands:
//
//	startserver [flags]         start the server on a free port, set $ADDR
//	stopserver                  SIGTERM; its output becomes the command's
//	waitlog regexp              wait until the server logs a matching line
//	waitfor regexp cmd [args]   rerun cmd until its stdout matches
package testkit

import (
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Programs maps a program name, as scripts run it ("exec server"), to its
// main function, which takes the arguments after the program name and
// returns the exit status.
type Programs map[string]func(args []string) int

// Main is the chapter's TestMain: when the test binary is run under one of
// the names in progs, it runs that program and exits; otherwise it runs the
// tests with every program on $PATH. It does not return.
func Main(m *testing.M, progs Programs) {
	cmds := make(map[string]func(), len(progs))
	for name, main := range progs {
		cmds[name] = func() { os.Exit(main(os.Args[1:])) }
	}
	testscript.Main(m, cmds)
}

// ScriptCmd is a script command: neg is true when the script line starts
// with "!", and args are the words after the command's name.
type ScriptCmd = func(ts *testscript.TestScript, neg bool, args []string)

// Commands are the script commands every chapter's scripts may use, by
// name. Params copies them, so a chapter can add its own.
var Commands = map[string]ScriptCmd{
	"startserver": cmdStartServer,
	"stopserver":  cmdStopServer,
	"waitlog":     cmdWaitLog,
	"cmpvary":     cmdCmpVary,
	"waitfor":     cmdWaitFor,
}

// Params returns the settings for running the scripts in dir. Its Setup
// gives each script the state the commands share; a chapter that sets its
// own Setup must call the one it replaces.
func Params(dir string) testscript.Params {
	cmds := make(map[string]ScriptCmd, len(Commands))
	for name, f := range Commands {
		cmds[name] = f
	}
	return testscript.Params{
		Dir: dir,
		// A client stuck waiting for a reply is killed, and its script
		// failed, after this rather than at the end of go test's timeout.
		// It only guards against a hang: generous, and scaled by
		// BYOR_TIMEOUT_SCALE on a slow machine.
		Deadline:            time.Now().Add(Scale(2 * time.Minute)),
		RequireExplicitExec: true,
		Cmds:                cmds,
		Setup:               setup,
	}
}

// Run replays the sessions in dir: each starts the server, runs the client
// and compares what both print with what the script expects.
//
// A go test -timeout shorter than the scripts' own deadline becomes their
// deadline, so that a hung client is killed, and its script fails with
// what it printed, before go test gives up on the whole binary.
func Run(t *testing.T, dir string) {
	p := Params(dir)
	if d, ok := t.Deadline(); ok && d.Before(p.Deadline) {
		p.Deadline = d
	}
	testscript.Run(t, p)
}
