package hostile

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
)

// The frame the attacks share: each runs as a subtest per chapter, on a
// server started for it, and measures its work (and its honest twin's) by
// the server's CPU time and a bystander's worst answer meanwhile.

// eachChapter runs test as a subtest named for each chapter of chs.
func eachChapter(t *testing.T, chs []string, test func(t *testing.T, ch string)) {
	t.Helper()
	eachChapterAs(t, chs, "", test)
}

// eachChapterAs is eachChapter with suffix after each subtest's name, for
// a test that runs the same chapters twice (in either protocol).
func eachChapterAs(t *testing.T, chs []string, suffix string, test func(t *testing.T, ch string)) {
	t.Helper()
	for _, ch := range chs {
		t.Run(ch+suffix, func(t *testing.T) { test(t, ch) })
	}
}

// figures are what a measured piece of work reports: how long it took,
// the server's CPU time for it and the bystander's worst PING meanwhile.
type figures struct{ took, cpu, worst time.Duration }

// measure runs work while a bystander PINGs the server of process pid over
// RESP at addr, and returns its figures. The test fails, naming what, if
// one of the bystander's PINGs failed.
func measure(t *testing.T, pid int, addr, what string, work func()) figures {
	t.Helper()
	stop := pingWatch(t, addr)
	time.Sleep(20 * time.Millisecond)
	cpu0, start := cpuTime(t, pid), time.Now()
	work()
	f := figures{took: time.Since(start), cpu: cpuTime(t, pid) - cpu0}
	if f.worst = stop(); f.worst < 0 {
		t.Fatalf("%s: the bystander's PING failed", what)
	}
	return f
}

// watchWorst calls probe, a bystander's request and its answer, again and
// again until the function it returns is called, which returns the
// slowest call, or -1 if probe reported a failure (and then stopped).
func watchWorst(probe func() bool) func() time.Duration {
	stop, done := make(chan struct{}), make(chan time.Duration)
	go func() {
		worst := time.Duration(0)
		for {
			select {
			case <-stop:
				done <- worst
				return
			default:
			}
			start := time.Now()
			if !probe() {
				done <- -1
				return
			}
			worst = max(worst, time.Since(start))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() time.Duration { close(stop); return <-done }
}

// startRESP starts chapter ch's server with the extra arguments args, and
// without closing idle connections (an attack's may wait long), and
// returns it with the address of its RESP listener.
func startRESP(t *testing.T, ch string, args ...string) (*serverproc.Process, string) {
	t.Helper()
	p := startServer(t, ch, 0, append(args[:len(args):len(args)], longIdle...)...)
	return p, respAddr(t, p)
}

// startWithClient starts chapter ch's server as startRESP does, and
// returns it with the address of its RESP listener and a client connected
// there, the attack's own.
func startWithClient(t *testing.T, ch string, args ...string) (*serverproc.Process, string, *respConn) {
	t.Helper()
	p, addr := startRESP(t, ch, args...)
	return p, addr, dialRESP(t, addr)
}

// fillBatches sends head followed by the arguments args(j) for each j
// below n, a thousand of them to a request, and fails the test unless
// each request is answered want: how an attack makes (or deletes) its
// keys, or the members or fields of a big value, before it measures
// anything.
func (c *respConn) fillBatches(n int, want string, head []string, args func(j int) []string) {
	c.t.Helper()
	for i := 0; i < n; i += 1000 {
		req := slices.Clone(head)
		for j := i; j < min(i+1000, n); j++ {
			req = append(req, args(j)...)
		}
		c.expectReply(time.Minute, want, req...)
	}
}

// pingWatch has a bystander PING the server over RESP until the function
// it returns is called, which returns the slowest answer it saw, or -1 if
// one failed.
func pingWatch(t *testing.T, addr string) func() time.Duration {
	c := dialRESP(t, addr)
	return watchWorst(func() bool {
		c.conn.SetDeadline(time.Now().Add(60 * time.Second))
		if _, err := c.conn.Write([]byte(respCmd("PING"))); err != nil {
			return false
		}
		s, err := c.r.ReadString('\n')
		return err == nil && s == "+PONG\r\n"
	})
}

// cpuTime returns the CPU time a process has used so far (user and system).
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses; utime
	// and stime are the 14th and 15th fields of the line.
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	f := strings.Fields(rest)
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("parsing /proc/%d/stat: %q", pid, data)
	}
	const clockTicks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// procStatus reads one "kB" field (VmRSS, VmHWM) of /proc/pid/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("parsing %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// longIdle keeps the server from closing a connection for idleness while
// the test prepares its next million requests on a loaded machine.
var longIdle = []string{"-idle-timeout", "10m"}

// envInt returns the integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
