package chapter_test

import (
	"testing"

	"example.com/byor/testkit"

	"example.com/byor/ch24_redis_commands/client"
	"example.com/byor/ch24_redis_commands/server"
)

// TestMain lets the test binary double as the chapter's server and client,
// so scripts run the real programs as "exec server" and "exec client".
// The tests watch the lines the server logs about single connections,
// which it writes only when asked (-log-conns), so their server asks.
func TestMain(m *testing.M) {
	// The RESP listener takes a free port too, so tests run side by side.
	testkit.ServerArgs = []string{"-resp-addr", "127.0.0.1:0"}
	serve := func(args []string) int { return server.Main(append([]string{"-log-conns"}, args...)) }
	testkit.Main(m, testkit.Programs{"server": serve, "client": client.Main})
}

// TestScripts replays the sessions in testdata/script: each starts the
// server, runs the client and compares what both print with the book.
func TestScripts(t *testing.T) {
	testkit.Run(t, "testdata/script")
}
