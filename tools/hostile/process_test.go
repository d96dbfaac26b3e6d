package hostile

import (
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
	"golang.org/x/sys/unix"
)

// The server as a process: signals that end it (SIGHUP, even at its first
// accept) and its log output, on a pipe nobody reads or one that is closed.

// TestHangupExitsCleanly: SIGHUP (the terminal went away) ends the server
// with status 0 and a log line; it used to kill it silently.
func TestHangupExitsCleanly(t *testing.T) {
	eachChapter(t, hardChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, 0)
		if ignoresHangup(ch) {
			hangupIgnored(t, p)
			return
		}
		syscall.Kill(p.Pid(), syscall.SIGHUP)
		select {
		case <-p.Exited():
		case <-time.After(testkit.Scale(30 * time.Second)):
			t.Fatal("the server ignored SIGHUP")
		}
		// Stop reports how it had exited.
		if err := p.Stop(time.Second); !strings.Contains(err.Error(), "<nil>") {
			t.Errorf("the server did not exit cleanly: %v", err)
		}
		if !strings.Contains(p.Stderr(), "hangup: shutting down") {
			t.Errorf("no log line about the hangup:\n%s", p.Stderr())
		}
	})
}

// TestHangupAtFirstAccept: SIGHUP sent the moment the server first accepts
// a connection, before it has said it listens, still ends it cleanly. The
// kernel completes connections as soon as listen() returns, so a server
// that installs its signal handlers after listen() can be killed by the
// signal's default action in between. The window is narrow: try many
// times.
func TestHangupAtFirstAccept(t *testing.T) {
	const tries = 20
	eachChapter(t, hardChapters, func(t *testing.T, ch string) {
		for i := range tries {
			p := startAccepting(t, ch)
			if ignoresHangup(ch) {
				hangupIgnored(t, p)
				continue
			}
			syscall.Kill(p.Pid(), syscall.SIGHUP)
			select {
			case <-p.Exited():
			case <-time.After(testkit.Scale(30 * time.Second)):
				t.Fatalf("try %d of %d: the server ignored SIGHUP", i+1, tries)
			}
			if err := p.Stop(time.Second); !strings.Contains(err.Error(), "<nil>") {
				t.Fatalf("try %d of %d: SIGHUP at the first accept: the server did not exit cleanly: %v\n%s",
					i+1, tries, err, p.Stderr())
			}
			if !strings.Contains(p.Stderr(), "hangup: shutting down") {
				t.Fatalf("try %d of %d: no log line about the hangup:\n%s", i+1, tries, p.Stderr())
			}
		}
	})
}

// ignoresHangup reports whether chapter ch's server ignores SIGHUP, as
// Redis does: the chapter that saves on SIGTERM and the later ones.
func ignoresHangup(ch string) bool {
	for _, c := range chapters.All() {
		if c.Dir == ch {
			return c.Has(chapters.Snapshots)
		}
	}
	return false
}

// hangupIgnored sends SIGHUP, then SIGTERM, and checks the server ended on
// the second alone: the kernel delivers the lower signal first, so a
// server that took SIGHUP would have logged it before.
func hangupIgnored(t *testing.T, p *serverproc.Process) {
	t.Helper()
	syscall.Kill(p.Pid(), syscall.SIGHUP)
	syscall.Kill(p.Pid(), syscall.SIGTERM)
	select {
	case <-p.Exited():
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("SIGTERM after SIGHUP did not end the server")
	}
	if log := p.Stderr(); strings.Contains(log, "hangup") || strings.Contains(log, "SIGHUP") {
		t.Fatalf("the server took SIGHUP:\n%s", log)
	}
	// Stop reports how it had exited: by SIGTERM's clean exit, not killed.
	if err := p.Stop(time.Second); !strings.Contains(err.Error(), "<nil>") {
		t.Fatalf("the server did not exit cleanly: %v\n%s", err, p.Stderr())
	}
}

// startWithOutput runs chapter ch's server with stdout and stderr going to
// the files given, and waits until it accepts connections.
func startWithOutput(t *testing.T, ch string, stdout, stderr *os.File, args ...string) (addr string, cmd *exec.Cmd, exited chan error) {
	t.Helper()
	argv, addr := serverArgv(t, ch, args...)
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	// Its stdout and stderr may be pipes nobody reads, so a connect, not
	// the listening line, says it has started; these tests send it no
	// signal, for which a connect would be too early (see waitListening).
	for deadline := time.Now().Add(testkit.Scale(30 * time.Second)); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, cmd, exited
		}
		select {
		case err := <-exited:
			t.Fatalf("server exited before accepting connections: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not start accepting connections")
		}
	}
}

// churn opens and closes n connections, each after one request, so that a
// server that logs every connection that ends logs n lines. It may run on
// any goroutine.
func churn(addr string, n int) error {
	req, _ := wire.AppendRequest(nil, "get", "k")
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return err
		}
		c.SetDeadline(time.Now().Add(30 * time.Second))
		_, err = c.Write(req)
		if err == nil {
			_, err = wire.ReadFrame(c, nil)
		}
		c.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// TestUnreadLogDoesNotBlock: the server's stderr and stdout are a pipe
// nobody reads. Once the pipe is full a write to it blocks; a server that
// logs on its event loop then stops serving everyone.
func TestUnreadLogDoesNotBlock(t *testing.T) {
	eachChapter(t, hardChapters, func(t *testing.T, ch string) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// The smallest pipe (one page) fills after a few hundred lines.
		if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
			t.Fatal(err)
		}
		// With the lines that fill the pipe.
		args := append([]string{"-idle-timeout", "1s"}, logConnsFlag(ch)...)
		addr, _, _ := startWithOutput(t, ch, w, w, args...)
		w.Close()
		done := make(chan error, 1)
		go func() { done <- churn(addr, 3000) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("connecting 3,000 times: %v", err)
			}
		case <-time.After(testkit.Scale(2 * time.Minute)):
			t.Fatal("3,000 connections not served within minutes: the server is blocked")
		}
		c := dial(t, addr)
		c.conn.SetDeadline(time.Now().Add(5 * time.Second))
		if v := c.do("set", "k", "v"); v.Tag != 0 {
			t.Fatalf("set after the churn: %v", v)
		}
	})
}

// TestClosedLogDoesNotKill: the server's stdout and stderr are pipes whose
// reader has gone (as in "server | head -1" once head exits). Go kills a
// program that writes to such a stdout or stderr with SIGPIPE unless it
// says otherwise.
func TestClosedLogDoesNotKill(t *testing.T) {
	eachChapter(t, hardChapters, func(t *testing.T, ch string) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		// The reader stays open until the server is up, then goes.
		ready := make(chan struct{})
		go func() {
			buf := make([]byte, 4096)
			r.Read(buf) // "listening on ..."
			close(ready)
			r.Close()
		}()
		args := append([]string{"-idle-timeout", "100ms"}, logConnsFlag(ch)...)
		addr, _, exited := startWithOutput(t, ch, w, w, args...)
		w.Close()
		<-ready
		if err := churn(addr, 20); err != nil {
			t.Fatal(err)
		}
		// An idle client makes the server write to stdout, too.
		idle := dial(t, addr)
		idle.do("get", "k")
		time.Sleep(500 * time.Millisecond)
		select {
		case err := <-exited:
			t.Fatalf("the server died writing to a closed pipe: %v", err)
		default:
		}
		c := dial(t, addr)
		if v := c.do("get", "k"); v.Tag != 0 {
			t.Fatalf("get: %v", v)
		}
	})
}

// TestConnectionLinesOffByDefault: from chapter 17 on, the server logs
// nothing per connection unless asked to with -log-conns: not for clients
// that hang up, go idle or (on the RESP listener, ch23 on) break the protocol.
func TestConnectionLinesOffByDefault(t *testing.T) {
	eachChapter(t, withFeature(chapters.OutputBound), func(t *testing.T, ch string) {
		p := startServer(t, ch, 0, "-idle-timeout", "100ms")
		if err := churn(p.Addr, 50); err != nil {
			t.Fatal(err)
		}
		idle := dial(t, p.Addr)
		idle.do("get", "k")
		if chapters.ByDir(ch).Has(chapters.RESPListener) {
			addr := respAddr(t, p)
			for _, send := range []string{"PING\r\n", "*1\r\n+PING\r\n", "*1\r\n$4\r\nPI"} {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(30 * time.Second))
				io.WriteString(c, send)
				if strings.HasSuffix(send, "\n") { // answered: wait for it
					io.ReadAtLeast(c, make([]byte, 64), 1)
				}
				c.Close()
			}
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close() // left idle, to be timed out
		}
		time.Sleep(500 * time.Millisecond)
		if err := p.Stop(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(p.Stderr()+p.Stdout()), "\n") {
			if !strings.HasPrefix(line, "listening ") && !strings.Contains(line, "shutting down") {
				t.Errorf("unexpected log line %q", line)
			}
		}
	})
}
