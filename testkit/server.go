package testkit

import (
	"regexp"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
)

// ServerProgram is the name under which a chapter's TestMain registers its
// server (see Main); StartServer runs it from $PATH.
const ServerProgram = "server"

// A Server is the chapter's server binary running on a free loopback port:
// a serverproc.Process (its Addr, Pid, Running, Stdout, Stderr, Kill...)
// whose Stop and WaitLog wait for as long as Scale(30s).
type Server struct {
	*serverproc.Process
}

// ServerArgs are flags given to every server StartServer starts, before the
// caller's. A chapter whose server opens more listeners than -addr sets
// them in its TestMain so that those listeners take free ports too, and
// tests can run side by side.
var ServerArgs []string

// StartServer starts the server on 127.0.0.1:0 with ServerArgs and then
// args as flags, and waits until it reports the address it is listening on.
func StartServer(args ...string) (*Server, error) {
	argv := append([]string{ServerProgram, "-addr", "127.0.0.1:0"}, ServerArgs...)
	p, err := serverproc.Launch(append(argv, args...), 0)
	if err != nil {
		return nil, err
	}
	if err := p.WaitListening(Scale(30 * time.Second)); err != nil {
		if p.Running() {
			p.Kill()
		}
		return nil, err
	}
	return &Server{p}, nil
}

// Stop sends SIGTERM and waits for the server to exit. A server that exits
// with an error, had exited already, or does not exit within Scale(30s)
// (it is then killed), is an error.
func (p *Server) Stop() error { return p.Process.Stop(Scale(30 * time.Second)) }

// WaitLog waits up to Scale(30s) for the server's stderr to match re.
func (p *Server) WaitLog(re *regexp.Regexp) error {
	_, err := p.Process.WaitLog(re, Scale(30*time.Second))
	return err
}

// StartTestServer starts a server for a Go test and stops it when the test
// ends, failing the test if the server did not exit cleanly. When the test
// fails, it logs what the server printed.
func StartTestServer(t testing.TB, args ...string) *Server {
	t.Helper()
	p, err := StartServer(args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("stopping server: %v", err)
		}
		if t.Failed() {
			t.Logf("server stdout:\n%s\nserver stderr:\n%s", p.Stdout(), p.Stderr())
		}
	})
	return p
}
