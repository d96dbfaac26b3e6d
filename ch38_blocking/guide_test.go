package chapter_test

import (
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"example.com/byor/testkit"
)

// guideSession matches a session marker of a guide: the script that
// generates the session, relative to the repository root.
var guideSession = regexp.MustCompile(`(?m)^<!--\s*session:\s*(\S+)\s*-->$`)

// TestGuideInOrder types the sessions of the chapter's guide as a reader
// does: one after the other, in the guide's order, on one server started
// once. Each script is the session it generates, so every session must
// print the same on a server the sessions before it have used as on a
// fresh one of its own: no session may count on a key another one left,
// or trip over one.
func TestGuideInOrder(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	chapter := filepath.Base(wd) // the guide is docs/<chapter>.md
	data, err := os.ReadFile(filepath.Join("..", "docs", chapter+".md"))
	if os.IsNotExist(err) {
		t.Skip("no guide beside the chapter (a copy outside the repository)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var scripts []string
	for _, m := range guideSession.FindAllStringSubmatch(string(data), -1) {
		rel, ok := strings.CutPrefix(m[1], chapter+"/")
		if !ok {
			t.Fatalf("the guide shows a session of another chapter: %s", m[1])
		}
		if strings.HasPrefix(rel, "testdata/aof/") {
			continue // they kill their own servers (TestAOFScripts)
		}
		scripts = append(scripts, filepath.FromSlash(rel))
	}
	if len(scripts) < 2 {
		t.Skipf("the guide has %d sessions on the reader's one server; this test is for a guide of several", len(scripts))
	}

	srv := testkit.StartTestServer(t)
	resp, err := respAddr(srv)
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(resp)
	if err != nil {
		t.Fatal(err)
	}
	// The scripts' startserver and stopserver stand for the reader's one
	// server: started before the first session, stopped after the last.
	shared := func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) > 0 {
			ts.Fatalf("a session of the guide runs on the server as the reader starts it")
		}
		ts.Setenv("ADDR", srv.Addr)
		ts.Setenv("RESP_HOST", host)
		ts.Setenv("RESP_PORT", port)
	}
	for i, script := range scripts {
		// t.Run returns once the script, which testscript runs as a
		// parallel subtest, has ended: the sessions run one at a time.
		t.Run(fmt.Sprintf("%d_%s", i+1, strings.TrimSuffix(path.Base(filepath.ToSlash(script)), ".txtar")), func(t *testing.T) {
			p := testkit.Params("")
			p.Files = []string{script}
			p.Cmds["startserver"] = shared
			p.Cmds["stopserver"] = func(ts *testscript.TestScript, neg bool, args []string) {}
			testscript.Run(t, p)
		})
		if t.Failed() {
			t.Fatalf("session %d (%s) did not print what the guide shows when typed after the ones before it", i+1, script)
		}
	}
}
