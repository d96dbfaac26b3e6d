package conform

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/testkit/resp"
	"example.com/byor/testkit/serverproc"
)

// A real Redis with one fault: the test binary, run as "-respfake MODE
// -addr ADDR", starts a redis-server of its own and stands in front of it,
// rewriting one kind of request on its way in. The replies pass through
// untouched, so everything but the fault is Redis's.
//
// Modes:
//
//	scanmiss  SCAN without MATCH gets MATCH *[^9]: keys ending in 9 are
//	          never returned
//	nowatch   WATCH becomes UNWATCH: EXEC runs whatever was written

// respFakeMain runs the faulty Redis if the test binary was started as one.
func respFakeMain() bool {
	mode, addr, ok := fakeArgs("respfake", "")
	if !ok {
		return false
	}
	fail := func(err error) bool {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
		return true
	}
	backend, err := serverproc.FreeAddr()
	if err != nil {
		return fail(err)
	}
	_, port, _ := net.SplitHostPort(backend)
	// In this process's group: the runner's stop ends it too.
	redis := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", os.TempDir())
	if err := redis.Start(); err != nil {
		return fail(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", backend); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("redis-server on %s did not start", backend))
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fail(err)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			return fail(err)
		}
		go proxyRESP(c, backend, mode)
	}
}

// proxyRESP passes c's commands to the Redis at backend, rewritten as
// mode says, and the replies back.
func proxyRESP(c net.Conn, backend, mode string) {
	defer c.Close()
	b, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	defer b.Close()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := b.Read(buf)
			if n > 0 {
				c.Write(buf[:n])
			}
			if err != nil {
				c.Close()
				return
			}
		}
	}()
	r := bufio.NewReader(c)
	for {
		raw, err := resp.ReadRaw(r, nil, maxRESPReply)
		if err != nil {
			return
		}
		if args, ok := splitBulks(raw); ok && len(args) > 0 {
			name := strings.ToUpper(args[0])
			switch {
			case mode == "scanmiss" && name == "SCAN" && !slices.ContainsFunc(args, func(a string) bool { return strings.EqualFold(a, "MATCH") }):
				raw = command(append(args, "MATCH", "*[^9]")...)
			case mode == "nowatch" && name == "WATCH":
				raw = command("UNWATCH")
			}
		}
		if _, err := b.Write(raw); err != nil {
			return
		}
	}
}

// TestScanWatchFaults: the ch25 and ch26 stages fail a Redis with one fault,
// in the check about it, saying what went wrong.
func TestScanWatchFaults(t *testing.T) {
	testkit.Heavy(t) // each failing check waits for a server that may have died
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (Debian: apt-get install redis-server)")
	}
	for _, c := range []struct{ mode, stage, match, want string }{
		{"scanmiss", "ch25", "SCAN: a cursor", "missing conform:scan:009"},
		{"scanmiss", "ch25", "SCAN while keys", "missing conform:scanstay:009"},
		{"nowatch", "ch26", "WATCH", "a watched key written by another connection"},
	} {
		t.Run(c.mode+" "+c.match, func(t *testing.T) {
			t.Parallel()
			cmd := []string{os.Args[0], "-respfake", c.mode, "-addr", "{addr}"}
			expectFailure(t, Config{Server: cmd}, c.stage, c.match, c.want)
		})
	}
}
