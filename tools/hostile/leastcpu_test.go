package hostile

import (
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
)

// Helpers of the attacks that load a big data set in one pipelined write
// and then compare commands by the least CPU of a few runs.

// bigLoadGuard bounds the load of a big data set, or one command over it:
// it guards against a hang, and is no verdict.
const bigLoadGuard = 2 * time.Minute

// sendPipelined writes reqs on c in the background, without waiting for
// replies, and reads their n replies, failing the test, named by what, at
// the first one that does not start with prefix. within guards against a
// hang.
func (c *respConn) sendPipelined(t *testing.T, what, reqs string, n int, prefix string, within time.Duration) {
	t.Helper()
	c.conn.SetDeadline(time.Now().Add(within))
	go c.conn.Write([]byte(reqs))
	for range n {
		if got := skipReply(t, c.r); !strings.HasPrefix(got, prefix) {
			t.Fatalf("%s: %q", what, got)
		}
	}
}

// measureCmd sends one request on c and reads its whole reply while
// measure watches, named what; it returns the reply's header and the
// figures. within guards against a hang.
func measureCmd(t *testing.T, p *serverproc.Process, addr string, c *respConn, within time.Duration, what string, args ...string) (string, figures) {
	t.Helper()
	var got string
	f := measure(t, p.Pid(), addr, what, func() {
		c.conn.SetDeadline(time.Now().Add(within))
		c.conn.Write([]byte(respCmd(args...)))
		got = skipReply(t, c.r)
	})
	return got, f
}

// leastCPURunner returns run, which sends a request on c three times,
// fails the test unless every reply's header is want, and returns the
// figures of the run that took the least server CPU: the garbage
// collector runs in whichever command crosses its threshold, so a single
// run may carry another command's cost. within guards each run against a
// hang.
func leastCPURunner(t *testing.T, p *serverproc.Process, addr string, c *respConn, within time.Duration) func(want string, args ...string) figures {
	return func(want string, args ...string) figures {
		t.Helper()
		var best figures
		for i := range 3 {
			got, f := measureCmd(t, p, addr, c, within, args[0], args...)
			if got != want {
				t.Fatalf("%.60q: %q, want %q", args, got, want)
			}
			if i == 0 || f.cpu < best.cpu {
				best = f
			}
		}
		return best
	}
}

// logTwin reports an attack's figures beside its honest twin's, and the
// ratio of their CPU (the twin's counted as at least 10 ms, so that a
// tiny twin does not make a huge ratio of noise).
func logTwin(t *testing.T, what string, attack figures, twin string, tw figures) {
	t.Helper()
	t.Logf("%s: server CPU %v, bystander's worst PING %v; honest twin (%s): %v, %v; CPU ratio %.1f",
		what, attack.cpu.Round(time.Millisecond), attack.worst.Round(time.Millisecond), twin,
		tw.cpu.Round(time.Millisecond), tw.worst.Round(time.Millisecond),
		float64(attack.cpu)/float64(max(tw.cpu, 10*time.Millisecond)))
}
