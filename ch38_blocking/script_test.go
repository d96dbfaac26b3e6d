package chapter_test

import (
	"testing"

	"example.com/byor/testkit"

	"example.com/byor/ch38_blocking/client"
	"example.com/byor/ch38_blocking/server"
)

// TestMain lets the test binary double as the chapter's server and client,
// so scripts run the real programs as "exec server" and "exec client".
// The tests watch the lines the server logs about single connections,
// which it writes only when asked (-log-conns), so their server asks.
func TestMain(m *testing.M) {
	// The RESP listener takes a free port too, so tests run side by side;
	// no save rules, so that a server stopped by SIGTERM in the chapter's
	// directory leaves no dump.rdb there (a test wanting them says so).
	testkit.ServerArgs = []string{"-resp-addr", "127.0.0.1:0", "-save", ""}
	serve := func(args []string) int { return server.Main(append([]string{"-log-conns"}, args...)) }
	testkit.Main(m, testkit.Programs{"server": serve, "client": client.Main})
}

// TestScripts replays the sessions in testdata/script: each starts the
// server, runs the client and compares what both print with the book.
func TestScripts(t *testing.T) {
	testkit.Run(t, "testdata/script")
}
