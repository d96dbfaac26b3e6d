package testkit_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"example.com/byor/testkit"
)

// The tests stand in a small server and client for a chapter's: the server
// answers each connection's one line with the line and the connection's
// number, and logs what it got.
func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Programs{"server": fakeServer, "client": fakeClient})
}

func fakeServer(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:1234", "listen on `host:port`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// SIGTERM is caught before the listening line, like the chapters'
	// servers do: a test may stop the server as soon as it reads the line.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "listening on %s\n", l.Addr())
	var mu sync.Mutex // keeps the log's lines whole
	go func() {
		for n := 1; ; n++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			line = strings.TrimSuffix(line, "\n")
			mu.Lock()
			fmt.Fprintf(os.Stderr, "got: %s\n", line)
			mu.Unlock()
			fmt.Fprintf(c, "%s #%d\n", line, n)
			c.Close()
		}
	}()
	<-sig
	mu.Lock()
	fmt.Fprintln(os.Stderr, "terminated")
	return 0
}

func fakeClient(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:1234", "connect to `host:port`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c, err := net.Dial("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	fmt.Fprintln(c, strings.Join(fs.Args(), " "))
	io.Copy(os.Stdout, c)
	return 0
}

// TestScripts runs the scripts in testdata/script, which use every command.
// They run in parallel, each with its own server.
func TestScripts(t *testing.T) {
	testkit.Run(t, "testdata/script")
}

// recordT is a testscript.T that records a script's failure instead of
// failing the test, so the test can check how a script fails.
type recordT struct {
	mu     sync.Mutex
	log    strings.Builder
	failed bool
}

func (r *recordT) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(&r.log, args...)
}

func (r *recordT) FailNow() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recordT) Fatal(args ...any) { r.Log(args...); r.FailNow() }
func (r *recordT) Skip(args ...any)  { r.Log(args...); runtime.Goexit() }
func (r *recordT) Parallel()         {}
func (r *recordT) Verbose() bool     { return false }

// Run runs f to the end, or until it calls FailNow, before returning.
func (r *recordT) Run(name string, f func(testscript.T)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

// TestScriptMistakes: a script that misuses a command fails, saying why,
// and only that script: a bad regexp in particular must not panic the test
// binary.
func TestScriptMistakes(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"waitlog with a bad regexp", "startserver\nwaitlog 'a(b'\n", "bad regexp \"a(b\""},
		{"waitfor with a bad regexp", "waitfor '[z-a]' client -addr $ADDR x\n", "bad regexp \"[z-a]\""},
		{"waitlog without a server", "waitlog x\n", "no server running"},
		{"stopserver without a server", "stopserver\n", "no server running"},
		{"a second server", "startserver\nstartserver\n", "a server is already running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.txtar"), []byte(tt.script), 0o666); err != nil {
				t.Fatal(err)
			}
			var r recordT
			testscript.RunT(&r, testkit.Params(dir))
			if !r.failed {
				t.Fatalf("the script passed; want it to fail with %q. Log:\n%s", tt.want, r.log.String())
			}
			if !strings.Contains(r.log.String(), tt.want) {
				t.Fatalf("the script failed without saying %q. Log:\n%s", tt.want, r.log.String())
			}
		})
	}
}

// TestStartTestServer starts the server for a Go test and reads its log.
func TestStartTestServer(t *testing.T) {
	srv := testkit.StartTestServer(t)
	c, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(c, "hi")
	reply, err := io.ReadAll(c)
	c.Close()
	if err != nil || string(reply) != "hi #1\n" {
		t.Fatalf("reply %q, %v; want %q", reply, err, "hi #1\n")
	}
	if !srv.Running() || srv.Pid() <= 0 {
		t.Fatalf("server not running (pid %d)", srv.Pid())
	}
	if err := srv.WaitLog(regexp.MustCompile(`(?m)^got: hi$`)); err != nil {
		t.Fatal(err)
	}
}

// TestScale: BYOR_TIMEOUT_SCALE multiplies the hang guards; nonsense is 1.
func TestScale(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
	}{{"", 10 * time.Second}, {"3", 30 * time.Second}, {"0.5", 5 * time.Second}, {"x", 10 * time.Second}, {"-2", 10 * time.Second}} {
		t.Setenv(testkit.ScaleEnv, c.env)
		if got := testkit.Scale(10 * time.Second); got != c.want {
			t.Errorf("%s=%q: Scale(10s) = %v, want %v", testkit.ScaleEnv, c.env, got, c.want)
		}
	}
}
