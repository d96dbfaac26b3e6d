package hostile

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// TestHangupExitsCleanly: SIGHUP (the terminal went away) ends the server
// with status 0 and a log line; it used to kill it silently.
func TestHangupExitsCleanly(t *testing.T) {
	eachChapter(t, fieldChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, 0)
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
	eachChapter(t, fieldChapters, func(t *testing.T, ch string) {
		for i := range tries {
			p := startAccepting(t, ch)
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

// TestDrippingClientDropped: a client that sends one byte of a request at
// a time, never quite idle, is closed once the request has not arrived
// whole within the idle timeout (on the RESP listener, Redis's timeout,
// set to 1 s here: it is 0, never, by default).
func TestDrippingClientDropped(t *testing.T) {
	eachChapter(t, fieldChapters, func(t *testing.T, ch string) { testDrippingClient(t, ch, false) })
	// RESP connections (ch17 on) read into a buffer of their own.
	eachChapterAs(t, withFeature(chapters.RESPListener), "-RESP", func(t *testing.T, ch string) { testDrippingClient(t, ch, true) })
}

// testDrippingClient drips a request to chapter ch's server, in Redis's
// protocol on its RESP listener if resp.
func testDrippingClient(t *testing.T, ch string, resp bool) {
	const idle = 500 * time.Millisecond
	args := []string{"-idle-timeout", idle.String()}
	if resp {
		args = append(args, "-timeout", "1")
	}
	p := startServer(t, ch, 0, args...)
	addr := p.Addr
	req, _ := wire.AppendRequest(nil, "set", "k", strings.Repeat("v", 200))
	if resp {
		addr = respAddr(t, p)
		req = []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$200\r\n" + strings.Repeat("v", 200) + "\r\n")
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan error, 1)
	go func() {
		var b [1]byte
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := conn.Read(b[:])
		closed <- err
	}()
	for i := 0; i < len(req); i++ {
		if _, err := conn.Write(req[i : i+1]); err != nil {
			break // closed by the server
		}
		select {
		case err := <-closed:
			elapsed := time.Since(start)
			if err == nil {
				t.Fatalf("the connection stayed open until the request was whole and answered, after %v", elapsed)
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("want the server to close the connection, got %v", err)
			}
			// Dropped before the request was whole is the verdict; how
			// long it took depends on the machine's load, so it is only
			// reported.
			t.Logf("dropped after %v and %d of %d bytes", elapsed.Round(time.Millisecond), i+1, len(req))
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("the whole %d-byte request was sent one byte per 50 ms (%v) and the connection stayed open",
		len(req), time.Since(start).Round(time.Millisecond))
}
