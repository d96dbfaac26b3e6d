package testkit

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ServerProgram is the name under which a chapter's TestMain registers its
// server (see Main); StartServer runs it from $PATH.
const ServerProgram = "server"

// A Server is the chapter's server binary running on a free loopback port.
type Server struct {
	Addr    string // the address it listens on, from its "listening on" line
	cmd     *exec.Cmd
	stdout  lockedBuffer
	stderr  lockedBuffer
	exited  chan struct{}
	waitErr error
}

// ServerArgs are flags given to every server StartServer starts, before the
// caller's. A chapter whose server opens more listeners than -addr sets
// them in its TestMain so that those listeners take free ports too, and
// tests can run side by side.
var ServerArgs []string

// StartServer starts the server on 127.0.0.1:0 with ServerArgs and then
// args as flags, and waits until it reports the address it is listening on.
func StartServer(args ...string) (*Server, error) {
	p := &Server{exited: make(chan struct{})}
	argv := append([]string{"-addr", "127.0.0.1:0"}, ServerArgs...)
	p.cmd = exec.Command(ServerProgram, append(argv, args...)...)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()

	listening := regexp.MustCompile(`(?m)^listening on (\S+)$`)
	limit := Scale(30 * time.Second)
	deadline := time.After(limit)
	for {
		if m := listening.FindStringSubmatch(p.stderr.String()); m != nil {
			p.Addr = m[1]
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("server exited before listening (%v):\n%s", p.waitErr, p.stderr.String())
		case <-deadline:
			p.kill()
			return nil, fmt.Errorf("server not listening after %v:\n%s", limit, p.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop sends SIGTERM and waits for the server to exit. A server that exits
// with an error, or does not exit within Scale(30s), is an error.
func (p *Server) Stop() error {
	select {
	case <-p.exited:
		return fmt.Errorf("server had already exited: %v", p.waitErr)
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	limit := Scale(30 * time.Second)
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(limit):
		p.kill()
		return fmt.Errorf("server ignored SIGTERM for %v", limit)
	}
}

// kill kills the server, if it still runs, and waits for it to exit.
func (p *Server) kill() {
	if p.Running() {
		p.cmd.Process.Kill()
	}
	<-p.exited
}

// WaitLog waits up to Scale(30s) for the server's stderr to match re.
func (p *Server) WaitLog(re *regexp.Regexp) error {
	deadline := time.Now().Add(Scale(30 * time.Second))
	for !re.MatchString(p.stderr.String()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("server stderr never matched %q:\n%s", re, p.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Running reports whether the server process is still alive.
func (p *Server) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Pid returns the server's process id.
func (p *Server) Pid() int { return p.cmd.Process.Pid }

// Stdout returns everything the server has printed on stdout so far.
func (p *Server) Stdout() string { return p.stdout.String() }

// Stderr returns everything the server has printed on stderr so far.
func (p *Server) Stderr() string { return p.stderr.String() }

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

// lockedBuffer is a bytes.Buffer safe for one writer and many readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
