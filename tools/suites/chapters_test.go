package suites

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

func TestMain(m *testing.M) { testkit.MainWithBuilds(m) }

// A chapter is one chapter module whose server the suites can run, as the
// tools' registry of chapters lists it; its Protocol says how its server
// frames requests and replies, its flags what the suites may ask of it.
type chapter struct {
	*chapters.Info
}

// listChapters returns the chapters numbered from on, from the registry.
func listChapters(t *testing.T, from int) []chapter {
	t.Helper()
	var out []chapter
	for _, ch := range chapters.From(from) {
		out = append(out, chapter{ch})
	}
	if len(out) == 0 {
		t.Fatalf("no chapters from ch%02d on", from)
	}
	return out
}

// server returns the path of the chapter's server binary, building it the
// first time. Every suite here runs servers, so this is where they are
// gated: they run only with the heavy suites (see testkit.Heavy).
func (c chapter) server(t *testing.T) string {
	t.Helper()
	testkit.Heavy(t)
	srv, _, err := testkit.Builds.Build(filepath.Join(root, c.Dir))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// idleTimeout returns the flags that set the idle timeout of chapters that
// have one (ch12 on), so that only what a test does closes a connection.
func (c chapter) idleTimeout(d string) []string {
	if !c.HasFlag(chapters.FlagIdleTimeout) {
		return nil
	}
	return []string{"-idle-timeout", d}
}

// extraFlags returns the flags the suites need of a server that has them:
// -log-conns, for the per-connection lines the tests count (off by default
// from ch17 on), and a free port for a second listener (-resp-addr, ch23
// on), so servers run side by side, and no save rules (-save "", ch35 on).
func (c chapter) extraFlags() []string {
	var flags []string
	if c.HasFlag(chapters.FlagLogConns) {
		flags = append(flags, "-log-conns")
	}
	if c.HasFlag(chapters.FlagRESPAddr) {
		flags = append(flags, "-resp-addr", "127.0.0.1:0")
	}
	if c.HasFlag(chapters.FlagSave) {
		// No dump.rdb saved in the test's directory on SIGTERM.
		flags = append(flags, "-save", "")
	}
	return flags
}

// start starts the chapter's server on a free loopback port and stops it
// when the test ends, failing the test unless it exits cleanly.
func (c chapter) start(t *testing.T, args ...string) *serverproc.Process {
	t.Helper()
	srv := c.server(t)
	var p *serverproc.Process
	var err error
	// The free port may be taken before the server binds it; try again.
	for range 3 {
		var addr string
		if addr, err = serverproc.FreeAddr(); err != nil {
			t.Fatal(err)
		}
		argv := append(append([]string{srv, "-addr", addr}, c.extraFlags()...), args...)
		p, err = serverproc.Start(argv, addr, testkit.Scale(30*time.Second))
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(testkit.Scale(10 * time.Second)); err != nil {
			t.Errorf("stopping the server: %v", err)
		}
		if t.Failed() {
			t.Logf("server stdout:\n%s\nserver stderr:\n%s", p.Stdout(), p.Stderr())
		}
	})
	if err := p.WaitListening(testkit.Scale(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return p
}

// req frames a command as the chapter's client would: from ch07 a list of
// strings; in ch06, whose server echoes, the words joined by spaces.
func (c chapter) req(cmd ...string) []byte {
	if c.Protocol().TextMessages() {
		return frame(strings.Join(cmd, " "))
	}
	return wire.AppendRawRequest(nil, cmd...)
}

// setReply is the reply to "set k v".
func (c chapter) setReply(k, v string) string {
	switch p := c.Protocol(); {
	case p.TextMessages():
		return "set " + k + " " + v
	case p.StatusReplies():
		return string(le32(0))
	}
	return string(wire.AppendNil(nil))
}

// getReply is the reply to "get k" when k holds v.
func (c chapter) getReply(k, v string) string {
	switch p := c.Protocol(); {
	case p.TextMessages():
		return "get " + k
	case p.StatusReplies():
		return string(le32(0)) + v
	}
	return string(wire.AppendStr(nil, v))
}

// checkReply checks that body is one well-formed reply of the chapter's
// protocol: for serialized replies, one value as its proto package writes
// them, in its numbering of the types.
func (c chapter) checkReply(body []byte) error {
	switch p := c.Protocol(); {
	case p.TextMessages():
		return nil
	case p.StatusReplies():
		if len(body) < 4 {
			return fmt.Errorf("%d bytes, shorter than a status code", len(body))
		}
		return nil
	}
	_, n, err := c.Protocol().Tags().Decode(body)
	if err == nil && n < len(body) {
		err = fmt.Errorf("%d bytes after the value", len(body)-n)
	}
	return err
}

// frame prefixes body with its 4-byte little-endian length.
func frame(body string) []byte { return wire.AppendFrame(nil, []byte(body)) }

// le32 is a 4-byte little-endian integer.
func le32(n uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, n)
}

// concat joins byte slices.
func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// The tests run connections in goroutines, where t.Fatal is not allowed,
// so the helpers below return errors instead of failing the test.

// dial connects to addr with every read and write bounded by timeout.
func dial(addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(timeout))
	return c, nil
}

// dialT connects to addr for the test, which closes the connection when it
// ends; every read and write gives up after 10s.
func dialT(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := dial(addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readFrame reads one framed reply, of at most the protocol's 4096 bytes,
// and returns its body.
func readFrame(c net.Conn) ([]byte, error) { return wire.ReadFrame(c, nil) }

// expect reads len(want) replies and checks each.
func expect(c net.Conn, want ...string) error {
	for i, w := range want {
		body, err := readFrame(c)
		if err != nil {
			return fmt.Errorf("reply %d: %w", i, err)
		}
		if string(body) != w {
			return fmt.Errorf("reply %d is %q, want %q", i, body, w)
		}
	}
	return nil
}

// exchange sends a framed request and checks the reply.
func exchange(c net.Conn, req []byte, want string) error {
	if _, err := c.Write(req); err != nil {
		return err
	}
	if err := expect(c, want); err != nil {
		return fmt.Errorf("%q: %w", req, err)
	}
	return nil
}

// expectClosed checks that the server closes c without sending more.
func expectClosed(c net.Conn) error {
	n, err := c.Read(make([]byte, 1))
	if n != 0 || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		return fmt.Errorf("read = %d, %v; want the connection closed", n, err)
	}
	return nil
}

// errList collects the errors of many goroutines and reports a few.
type errList struct {
	mu   sync.Mutex
	errs []error
}

func (e *errList) add(err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

// report fails the test with the first few errors and says whether there
// were any.
func (e *errList) report(t *testing.T) bool {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, err := range e.errs {
		if i == 10 {
			t.Errorf("... and %d more errors", len(e.errs)-i)
			break
		}
		t.Error(err)
	}
	return len(e.errs) > 0
}

// waitLogCount waits up to 10s until the server's stderr has at least
// want lines equal to line, and returns how many it has.
func waitLogCount(srv *serverproc.Process, line string, want int) int {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(line) + `$`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := len(re.FindAllStringIndex(srv.Stderr(), -1))
		if got >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}
