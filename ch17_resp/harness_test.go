package chapter_test

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// A serverProcess is the chapter's server binary running on a free loopback
// port. testscript.Main puts the binary on $PATH as "server".
type serverProcess struct {
	cmd     *exec.Cmd
	Addr    string
	stdout  lockedBuffer
	stderr  lockedBuffer
	exited  chan struct{}
	waitErr error
}

// startServer starts the server on 127.0.0.1:0, its RESP listener too, with
// extra flags and waits until it reports the address it is listening on.
func startServer(args ...string) (*serverProcess, error) {
	p := &serverProcess{exited: make(chan struct{})}
	// Both listeners on free ports: tests run side by side.
	p.cmd = exec.Command("server", append([]string{"-addr", "127.0.0.1:0", "-resp-addr", "127.0.0.1:0"}, args...)...)
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
	deadline := time.After(10 * time.Second)
	for {
		if m := listening.FindStringSubmatch(p.stderr.String()); m != nil {
			p.Addr = m[1]
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("server exited before listening (%v):\n%s", p.waitErr, p.stderr.String())
		case <-deadline:
			p.cmd.Process.Kill()
			return nil, fmt.Errorf("server not listening after 10s:\n%s", p.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM and waits for the server to exit. A server that exits
// with an error, or does not exit within 10s, is an error.
func (p *serverProcess) stop() error {
	select {
	case <-p.exited:
		return fmt.Errorf("server had already exited: %v", p.waitErr)
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		return errors.New("server ignored SIGTERM for 10s")
	}
}

// waitLog waits up to 10s for the server's stderr to match re.
func (p *serverProcess) waitLog(re *regexp.Regexp) error {
	deadline := time.Now().Add(10 * time.Second)
	for !re.MatchString(p.stderr.String()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("server stderr never matched %q:\n%s", re, p.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// running reports whether the server process is still alive.
func (p *serverProcess) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// startTestServer starts a server for a Go test and stops it when the test
// ends, failing the test if the server did not exit cleanly.
func startTestServer(t *testing.T, args ...string) *serverProcess {
	t.Helper()
	p, err := startServer(args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Errorf("stopping server: %v", err)
		}
		if t.Failed() {
			t.Logf("server stdout:\n%s\nserver stderr:\n%s", p.stdout.String(), p.stderr.String())
		}
	})
	return p
}

// scriptServers maps each running script to its server.
var scriptServers sync.Map // *testscript.TestScript -> *serverProcess

// cmdStartServer is the script command "startserver [flags]": it starts the
// server on a free port and sets $ADDR to its address.
func cmdStartServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! startserver")
	}
	if _, ok := scriptServers.Load(ts); ok {
		ts.Fatalf("a server is already running")
	}
	p, err := startServer(args...)
	ts.Check(err)
	scriptServers.Store(ts, p)
	ts.Setenv("ADDR", p.Addr)
	ts.Defer(func() {
		if p.running() {
			p.cmd.Process.Kill()
			<-p.exited
		}
		scriptServers.Delete(ts)
	})
}

// cmdStopServer is the script command "stopserver": it stops the server
// with SIGTERM and makes everything it printed the command's output, for
// stdout/stderr/cmp to check. It fails unless the server exited cleanly.
func cmdStopServer(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := scriptServers.Load(ts)
	if !ok {
		ts.Fatalf("no server running")
	}
	p := v.(*serverProcess)
	err := p.stop()
	ts.Stdout().Write([]byte(p.stdout.String()))
	ts.Stderr().Write([]byte(p.stderr.String()))
	if err != nil && !neg {
		ts.Fatalf("server did not exit cleanly: %v", err)
	}
	if err == nil && neg {
		ts.Fatalf("server exited cleanly, unexpectedly")
	}
}

// cmdWaitLog is the script command "waitlog regexp": it waits until the
// server has logged a line matching regexp, for events the client cannot
// see, such as the server noticing that a client hung up.
func cmdWaitLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitlog regexp")
	}
	v, ok := scriptServers.Load(ts)
	if !ok {
		ts.Fatalf("no server running")
	}
	ts.Check(v.(*serverProcess).waitLog(regexp.MustCompile("(?m)" + args[0])))
}

// cmdWaitFor is the script command "waitfor regexp cmd [args...]": it runs
// cmd every 50 ms, for up to 10 s, until its stdout matches regexp. It is
// how scripts wait for something that happens in time, such as a key
// expiring, without a fixed sleep.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: waitfor regexp cmd [args...]")
	}
	re := regexp.MustCompile("(?m)" + args[0])
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := ts.Exec(args[1], args[2:]...)
		out := ts.ReadFile("stdout")
		if err == nil && re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("after 10s, %s still prints %q (error %v), not matching %q", args[1], out, err, args[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
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
