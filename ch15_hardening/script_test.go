package chapter_test

import (
	"testing"

	"example.com/byor/testkit"

	"example.com/byor/ch15_hardening/client"
	"example.com/byor/ch15_hardening/server"
)

// TestMain lets the test binary double as the chapter's server and client,
// so scripts run the real programs as "exec server" and "exec client".
func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Programs{"server": server.Main, "client": client.Main})
}

// TestScripts replays the sessions in testdata/script: each starts the
// server, runs the client and compares what both print with the book.
func TestScripts(t *testing.T) {
	testkit.Run(t, "testdata/script")
}
