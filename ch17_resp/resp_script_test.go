package chapter_test

import (
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// respListening is the line the server logs for its RESP listener.
var respListening = regexp.MustCompile(`(?m)^listening for RESP on (\S+)$`)

// TestRESPScripts replays the sessions in testdata/resp: each starts the
// server and talks to it with Redis's own command-line client, redis-cli,
// comparing what it prints. They are skipped where redis-cli is not
// installed (Debian's redis-tools package has it).
func TestRESPScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/resp",
		Deadline:            time.Now().Add(2 * time.Minute),
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"startserver": cmdStartRESPServer,
			"stopserver":  cmdStopServer,
			"waitlog":     cmdWaitLog,
		},
	})
}

// cmdStartRESPServer is "startserver [flags]" for RESP scripts: it starts
// the server like cmdStartServer, and also sets $RESP_HOST and $RESP_PORT,
// where the server speaks RESP, for redis-cli's -h and -p.
func cmdStartRESPServer(ts *testscript.TestScript, neg bool, args []string) {
	cmdStartServer(ts, neg, args)
	v, _ := scriptServers.Load(ts)
	addr, err := respAddr(v.(*serverProcess))
	ts.Check(err)
	host, port, err := net.SplitHostPort(addr)
	ts.Check(err)
	ts.Setenv("RESP_HOST", host)
	ts.Setenv("RESP_PORT", port)
}

// respAddr returns the address of the server's RESP listener, which it
// logs before it says it is listening (see startServer).
func respAddr(p *serverProcess) (string, error) {
	if err := p.waitLog(respListening); err != nil {
		return "", err
	}
	return respListening.FindStringSubmatch(p.stderr.String())[1], nil
}
