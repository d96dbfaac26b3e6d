package chapter_test

import (
	"net"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"example.com/byor/testkit"
)

// respListening is the line the server logs for its RESP listener.
var respListening = regexp.MustCompile(`(?m)^listening for RESP on (\S+)$`)

// TestRESPScripts replays the sessions in testdata/resp: each starts the
// server and talks to it with Redis's own command-line client, redis-cli,
// comparing what it prints. They are skipped where redis-cli is not
// installed (Debian's redis-tools package has it).
func TestRESPScripts(t *testing.T) {
	p := testkit.Params("testdata/resp")
	p.Cmds["startserver"] = cmdStartRESPServer
	testscript.Run(t, p)
}

// cmdStartRESPServer is "startserver [flags]" for RESP scripts: it starts
// the server like the harness's startserver, and also sets $RESP_HOST and
// $RESP_PORT, where the server speaks RESP, for redis-cli's -h and -p.
func cmdStartRESPServer(ts *testscript.TestScript, neg bool, args []string) {
	testkit.Commands["startserver"](ts, neg, args)
	addr, err := respAddr(testkit.ScriptServer(ts))
	ts.Check(err)
	host, port, err := net.SplitHostPort(addr)
	ts.Check(err)
	ts.Setenv("RESP_HOST", host)
	ts.Setenv("RESP_PORT", port)
}

// respAddr returns the address of the server's RESP listener, which it
// logs before it says it is listening.
func respAddr(p *testkit.Server) (string, error) {
	if err := p.WaitLog(respListening); err != nil {
		return "", err
	}
	return respListening.FindStringSubmatch(p.Stderr())[1], nil
}
