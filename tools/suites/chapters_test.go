package suites

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
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
)

// root is the repository root, seen from this package's directory.
const root = "../.."

func TestMain(m *testing.M) { testkit.MainWithBuilds(m) }

// A dialect is how a chapter's server frames requests and replies.
type dialect int

const (
	echo    dialect = iota // ch06: the reply repeats the request's body
	status                 // ch07-ch08: a request is a list of strings; a reply is a u32 status, then data
	tagged9                // ch09-ch10: replies are serialized values, arrays tagged 4
	tagged                 // ch11 on: doubles tagged 4, arrays 5
)

// A chapter is one chapter module whose server the suites can run.
type chapter struct {
	name    string // directory, e.g. "ch14_threadpool"
	num     int    // 14
	dialect dialect
}

// listChapters returns the chapters numbered from on, with their dialects,
// as the tools' registry of chapters lists them.
func listChapters(t *testing.T, from int) []chapter {
	t.Helper()
	var out []chapter
	for _, ch := range chapters.From(from) {
		c := chapter{name: ch.Dir, num: ch.Num}
		switch ch.Protocol() {
		case chapters.Hello, chapters.World, chapters.Echo:
			c.dialect = echo
		case chapters.Status:
			c.dialect = status
		case chapters.Tagged9:
			c.dialect = tagged9
		default:
			c.dialect = tagged
		}
		out = append(out, c)
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
	srv, _, err := testkit.Builds.Build(filepath.Join(root, c.name))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// idleTimeout returns the flags that set the idle timeout of chapters that
// have one (ch12 on), so that only what a test does closes a connection.
func (c chapter) idleTimeout(d string) []string {
	if c.num < 12 {
		return nil
	}
	return []string{"-idle-timeout", d}
}

// extraFlags returns the flags the suites need of a server that has them,
// as its usage text (-h) shows: -log-conns, for the per-connection lines
// the tests count (off by default from ch16 on), and a free port for a
// second listener (-resp-addr, ch17 on), so servers run side by side.
func (c chapter) extraFlags(t *testing.T, srv string) []string {
	t.Helper()
	f, _ := usages.LoadOrStore(c.name, sync.OnceValue(func() string {
		out, _ := exec.Command(srv, "-h").CombinedOutput() // exits 2 after usage
		return string(out)
	}))
	usage := f.(func() string)()
	var flags []string
	if strings.Contains(usage, "-log-conns") {
		flags = append(flags, "-log-conns")
	}
	if strings.Contains(usage, "-resp-addr") {
		flags = append(flags, "-resp-addr", "127.0.0.1:0")
	}
	return flags
}

// usages holds each chapter's server usage text, read once per run.
var usages sync.Map // chapter name -> func() string

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
		argv := append(append([]string{srv, "-addr", addr}, c.extraFlags(t, srv)...), args...)
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
	if c.dialect == echo {
		return frame(strings.Join(cmd, " "))
	}
	body := le32(uint32(len(cmd)))
	for _, s := range cmd {
		body = append(body, le32(uint32(len(s)))...)
		body = append(body, s...)
	}
	return frame(string(body))
}

// setReply is the reply to "set k v".
func (c chapter) setReply(k, v string) string {
	switch c.dialect {
	case echo:
		return "set " + k + " " + v
	case status:
		return string(le32(0))
	}
	return "\x00"
}

// getReply is the reply to "get k" when k holds v.
func (c chapter) getReply(k, v string) string {
	switch c.dialect {
	case echo:
		return "get " + k
	case status:
		return string(le32(0)) + v
	}
	return "\x02" + string(le32(uint32(len(v)))) + v
}

// checkReply checks that body is one well-formed reply of the dialect.
func (c chapter) checkReply(body []byte) error {
	switch c.dialect {
	case echo:
		return nil
	case status:
		if len(body) < 4 {
			return fmt.Errorf("%d bytes, shorter than a status code", len(body))
		}
		return nil
	}
	rest, err := c.checkValue(body)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("%d bytes after the value", len(rest))
	}
	return err
}

// checkValue consumes one serialized value (nil, err, str, int, dbl or arr,
// as the chapter's proto package writes them) from the front of b and
// returns the rest.
func (c chapter) checkValue(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errors.New("value missing")
	}
	need := func(n int) error {
		if len(b) < n {
			return fmt.Errorf("type %d value needs %d bytes, has %d", b[0], n, len(b))
		}
		return nil
	}
	tag := b[0]
	if c.dialect == tagged9 && tag == 4 {
		tag = 5 // arrays, before ch11 gave their tag to doubles
	} else if c.dialect == tagged9 && tag == 5 {
		return nil, fmt.Errorf("unknown type tag %d", b[0])
	}
	switch tag {
	case 0: // nil
		return b[1:], nil
	case 1: // err: code, length, message
		if err := need(9); err != nil {
			return nil, err
		}
		if err := need(9 + int(binary.LittleEndian.Uint32(b[5:9]))); err != nil {
			return nil, err
		}
		return b[9+binary.LittleEndian.Uint32(b[5:9]):], nil
	case 2: // str: length, bytes
		if err := need(5); err != nil {
			return nil, err
		}
		if err := need(5 + int(binary.LittleEndian.Uint32(b[1:5]))); err != nil {
			return nil, err
		}
		return b[5+binary.LittleEndian.Uint32(b[1:5]):], nil
	case 3, 4: // int, dbl
		if err := need(9); err != nil {
			return nil, err
		}
		return b[9:], nil
	case 5: // arr: count, then the values
		if err := need(5); err != nil {
			return nil, err
		}
		n, rest := binary.LittleEndian.Uint32(b[1:5]), b[5:]
		// Every value takes at least a byte, which bounds the loop.
		if int64(n) > int64(len(rest)) {
			return nil, fmt.Errorf("array of %d values in %d bytes", n, len(rest))
		}
		for i := uint32(0); i < n; i++ {
			var err error
			if rest, err = c.checkValue(rest); err != nil {
				return nil, err
			}
		}
		return rest, nil
	}
	return nil, fmt.Errorf("unknown type tag %d", b[0])
}

// frame prefixes body with its 4-byte little-endian length.
func frame(body string) []byte {
	return append(le32(uint32(len(body))), body...)
}

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

// readFrame reads one framed reply and returns its body.
func readFrame(c net.Conn) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n > 4096 {
		return nil, fmt.Errorf("reply of %d bytes, above the 4096-byte message limit", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c, body); err != nil {
		return nil, err
	}
	return body, nil
}

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
