// Package serverproc builds and runs servers under test: a chapter's own
// server built from this repository, or any program that listens on a TCP
// address. It assumes nothing of the program but that it accepts
// connections: no log line and no flag are required.
//
// It is shared by everything that drives whole servers (testkit's
// StartServer for the chapters' own tests, the conformance runner, the
// hostile-client tests, the cross-chapter suites) so that building,
// starting, waiting for and stopping a server is written once.
package serverproc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Build compiles the cmd/server and cmd/client programs of the chapter
// directory chapterDir (e.g. "../ch13_heap_ttl") into dir and returns their
// paths. The chapter is built as the workspace sees it.
func Build(chapterDir, dir string) (server, client string, err error) {
	abs, err := filepath.Abs(chapterDir)
	if err != nil {
		return "", "", err
	}
	name := filepath.Base(abs)
	server = filepath.Join(dir, name+"-server")
	client = filepath.Join(dir, name+"-client")
	for out, pkg := range map[string]string{server: "./cmd/server", client: "./cmd/client"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = abs
		if msg, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("building %s %s: %v\n%s", name, pkg, err, msg)
		}
	}
	return server, client, nil
}

// A Cache builds each chapter at most once, into one directory, for test
// suites that run the same chapters' servers many times. Different
// chapters may build at the same time.
type Cache struct {
	dir    string
	builds sync.Map // absolute chapter directory -> func() (programs, error)
}

// programs are the paths of one chapter's built server and client.
type programs struct{ server, client string }

// NewCache returns a cache that builds into dir.
func NewCache(dir string) *Cache { return &Cache{dir: dir} }

// Build returns the paths of chapterDir's server and client, building
// them (see Build) the first time a chapter is asked for.
func (c *Cache) Build(chapterDir string) (server, client string, err error) {
	abs, err := filepath.Abs(chapterDir)
	if err != nil {
		return "", "", err
	}
	f, _ := c.builds.LoadOrStore(abs, sync.OnceValues(func() (programs, error) {
		srv, cli, err := Build(abs, c.dir)
		return programs{srv, cli}, err
	}))
	built, err := f.(func() (programs, error))()
	return built.server, built.client, err
}

// handedOut holds the ports FreeAddr has returned in this process. The
// kernel may give a port back as soon as its probe listener closes, so two
// servers started in parallel could be told the same port: one fails to
// bind, and its starter, dialing, reaches the other one.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeAddr returns a loopback address with a port that was free a moment
// ago and that it has not returned before in this process. It draws the
// port at random from outside the kernel's ephemeral range (see
// fixedPorts), where the kernel picks the ports of sockets bound to port
// 0 and of outgoing connections: a port from inside that range could be
// taken, between this probe and the server's bind, by any other test's
// server or client. Another process calling FreeAddr may still draw the
// same port; callers that can pass port 0 to the server should prefer
// that.
func FreeAddr() (string, error) {
	lo, hi := fixedPorts()
	for tries := 0; ; tries++ {
		port := 0
		if hi > lo {
			port = lo + rand.IntN(hi-lo)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			if port != 0 && tries < 1000 {
				continue // in use: draw another
			}
			return "", err
		}
		addr := l.Addr().(*net.TCPAddr)
		l.Close()
		handedOut.Lock()
		fresh := !handedOut.ports[addr.Port]
		handedOut.ports[addr.Port] = true
		handedOut.Unlock()
		if fresh || tries >= 1000 {
			return addr.String(), nil
		}
	}
}

// fixedPorts returns the ports [lo, hi) FreeAddr draws from: those below
// the kernel's ephemeral range, or above it if there is more room there.
// Where the range cannot be read, or leaves fewer than 1,000 ports on
// either side, it returns an empty span and FreeAddr asks the kernel for
// a port, as a bind to port 0 does.
func fixedPorts() (lo, hi int) {
	const first, room = 10000, 1000
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0
	}
	eLo, err1 := strconv.Atoi(f[0])
	eHi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	below, above := eLo-first, 65536-(eHi+1)
	switch {
	case below >= room && below >= above:
		return first, eLo
	case above >= room:
		return eHi + 1, 65536
	}
	return 0, 0
}

// ErrExited is wrapped by Start's error when the server exited before it
// accepted a connection: a crash at start-up, or a port another process
// took first.
var ErrExited = errors.New("server exited")

// MaxOutput bounds how much of a server's stdout and stderr is kept.
const MaxOutput = 64 << 10

// A Process is a running server. Its output is kept (capped, see Launch)
// for showing when a check fails.
type Process struct {
	Addr    string // the address it was told to, or found to, listen on
	cmd     *exec.Cmd
	stdout  cappedBuffer
	stderr  cappedBuffer
	exited  chan struct{}
	waitErr error
}

// Start runs argv (argv[0] is the program) in its own process group and
// waits, up to timeout, until addr accepts a TCP connection. It fails at
// once if the process exits first. It keeps MaxOutput bytes of each output.
func Start(argv []string, addr string, timeout time.Duration) (*Process, error) {
	p, err := Launch(argv, MaxOutput)
	if err != nil {
		return nil, err
	}
	p.Addr = addr
	if err := p.WaitAccepting(timeout); err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

// Launch runs argv (argv[0] is the program) in its own process group and
// returns at once, with Addr unset, for callers that learn the address from
// the server's log (see WaitLog). It keeps the first keep bytes of each of
// the server's stdout and stderr, or all of them if keep is 0.
func Launch(argv []string, keep int) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("serverproc: empty command")
	}
	p := &Process{exited: make(chan struct{})}
	p.stdout.limit, p.stderr.limit = keep, keep
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// WaitAccepting polls until the server accepts a TCP connection on p.Addr,
// the process exits, or timeout passes.
func (p *Process) WaitAccepting(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", p.Addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%w before accepting connections on %s (%v)%s", ErrExited, p.Addr, p.waitErr, p.outputNote())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server did not accept connections on %s within %v: %v%s", p.Addr, timeout, err, p.outputNote())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// listening matches the line this repository's servers log once they are
// ready: after their listeners (ch23's RESP one logs its own line before)
// and after they handle signals. It captures the address.
var listening = regexp.MustCompile(`(?m)^listening on (\S+)$`)

// WaitListening waits until the server, one of this repository's
// chapters, has logged its listening line, the process exits, or timeout
// passes, and sets Addr to the address the line names. For those servers
// it is the better wait than WaitAccepting: the kernel completes
// connections as soon as listen() returns, before the server has done the
// rest of its start-up (installed its signal handlers, opened a second
// listener).
func (p *Process) WaitListening(timeout time.Duration) error {
	m, err := p.WaitLog(listening, timeout)
	if err != nil {
		return err
	}
	p.Addr = m[1]
	return nil
}

// WaitLog waits until the server's stderr matches re, the process exits,
// or timeout passes, and returns the match and its submatches.
func (p *Process) WaitLog(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if m := re.FindStringSubmatch(p.Stderr()); m != nil {
			return m, nil
		}
		if !p.Running() {
			return nil, fmt.Errorf("the server exited (%v) before logging a line matching %q:\n%s", p.waitErr, re, p.Stderr())
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server logged no line matching %q within %v:\n%s", re, timeout, p.Stderr())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Running reports whether the process has not exited yet.
func (p *Process) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Pid returns the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop sends SIGTERM to the process group and waits up to grace for the
// server to exit, then kills the group. It returns the server's exit error
// (nil for a clean exit), or an error saying it had to be killed or had
// already exited.
func (p *Process) Stop(grace time.Duration) error {
	if !p.Running() {
		return fmt.Errorf("server had already exited: %v", p.waitErr)
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(grace):
		p.Kill()
		return fmt.Errorf("server ignored SIGTERM for %v and was killed", grace)
	}
}

// Kill kills the whole process group and waits for the server to exit.
func (p *Process) Kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// Stdout returns what the server has printed on stdout so far (capped).
func (p *Process) Stdout() string { return p.stdout.String() }

// Stderr returns what the server has printed on stderr so far (capped).
func (p *Process) Stderr() string { return p.stderr.String() }

func (p *Process) outputNote() string {
	var b strings.Builder
	if s := p.Stdout(); s != "" {
		fmt.Fprintf(&b, "\nserver stdout:\n%s", s)
	}
	if s := p.Stderr(); s != "" {
		fmt.Fprintf(&b, "\nserver stderr:\n%s", s)
	}
	return b.String()
}

// Expand replaces {addr} and {port} in each word of command with addr's
// parts and reports whether any word named them.
func Expand(command []string, addr string) ([]string, bool) {
	_, port, _ := net.SplitHostPort(addr)
	out := make([]string, len(command))
	used := false
	for i, w := range command {
		if strings.Contains(w, "{addr}") || strings.Contains(w, "{port}") {
			used = true
		}
		w = strings.ReplaceAll(w, "{addr}", addr)
		out[i] = strings.ReplaceAll(w, "{port}", port)
	}
	return out, used
}

// cappedBuffer keeps the first limit bytes written to it (all if limit is
// 0); it is safe for one writer and many readers.
type cappedBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     bytes.Buffer
	dropped int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - b.buf.Len()
	if b.limit > 0 && room < len(p) {
		if room > 0 {
			b.buf.Write(p[:room])
		}
		b.dropped += len(p) - max(room, 0)
		return len(p), nil
	}
	b.buf.Write(p)
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		return fmt.Sprintf("%s\n[... %d more bytes not kept]\n", b.buf.String(), b.dropped)
	}
	return b.buf.String()
}
