package chapter_test

import (
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"example.com/byor/ch16_performance/client"
	"example.com/byor/ch16_performance/server"
)

// TestMain lets the test binary double as the chapter's server and client,
// so scripts run the real programs as "exec server" and "exec client".
// The tests watch the lines the server logs about single connections,
// which it writes only when asked (-log-conns), so their server asks.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"server": func() { os.Exit(server.Main(append([]string{"-log-conns"}, os.Args[1:]...))) },
		"client": func() { os.Exit(client.Main(os.Args[1:])) },
	})
}

// TestScripts replays the sessions in testdata/script: each starts the
// server, runs the client and compares what both print with the book.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// A client stuck waiting for a reply is killed, and its script
		// failed, after this rather than at the end of go test's timeout.
		Deadline:            time.Now().Add(2 * time.Minute),
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"startserver": cmdStartServer,
			"stopserver":  cmdStopServer,
			"waitlog":     cmdWaitLog,
			"waitfor":     cmdWaitFor,
		},
	})
}
