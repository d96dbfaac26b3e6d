package chapter_test

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"example.com/byor/testkit"
)

// TestAOFScripts replays the sessions in testdata/aof, which stop the
// server the hard way and start it again on its log: "killserver" sends
// SIGKILL (kill -9), which gives the server no chance to write anything
// more, and "! stopserver" then forgets it. They are skipped where
// redis-cli is not installed.
func TestAOFScripts(t *testing.T) {
	p := testkit.Params("testdata/aof")
	p.Cmds["startserver"] = cmdStartRESPServer
	p.Cmds["killserver"] = func(ts *testscript.TestScript, neg bool, args []string) {
		p := testkit.ScriptServer(ts)
		if neg || len(args) > 0 || p == nil {
			ts.Fatalf("usage: killserver, with a server running")
		}
		p.Kill()
	}
	testscript.Run(t, p)
}
