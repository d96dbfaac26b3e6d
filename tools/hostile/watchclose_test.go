package hostile

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
)

// TestWatchClose: 200 clients each WATCH 10,000 keys of their own, then
// all hang up at once. Every key a closed connection watched must leave
// the server's map of watched keys, and the hang-ups one epoll_wait
// reports were all cleaned up in that one loop iteration: two million map
// operations, 1.4 s of server CPU, and a bystander's PING held 1.32 s. Now
// a closed connection's keys are unwatched a bounded number per loop
// iteration. The honest twin is the same 200 clients each holding an
// 80 KB ECHO (its request read, its reply sent) before they hang up
// together. The log reports, for each, the server's CPU from the
// hang-ups until it is idle again and the bystander's worst PING (in one
// loaded run, before: 2.3 s and 2.8 s; after: 1.8 s, spread out, and
// 195 ms; the twin 10 ms and 4 to 25 ms; the WATCHes themselves cost
// 7.5 s); the
// test asserts counts and replies: every WATCH accepted, the connections
// gone (connected_clients), and afterwards a write to a formerly watched
// key fails the EXEC of a live client watching it, a live client whose
// key was not written runs its EXEC, and a new client may watch as many
// keys again.
func TestWatchClose(t *testing.T) { eachChapter(t, txChapters(), testWatchClose) }

func testWatchClose(t *testing.T, ch string) {
	conns := envInt("HOSTILE_WATCH_CONNS", 200)
	keys := envInt("HOSTILE_WATCH_KEYS", 10_000)
	p, addr := startWatching(t, ch)
	watchedKey := func(conn, i int) string { return fmt.Sprintf("w:%03d:%05d", conn, i) }

	echo := respCmd("ECHO", strings.Repeat("e", 80_000))
	cpu, worst := closeTogether(t, p.Pid(), addr, conns, func(i int, c *respConn) {
		c.conn.Write([]byte(echo))
		if got := skipReply(t, c.r); got != "$80000" {
			t.Fatalf("ECHO of 80 KB: %q", got)
		}
	})
	t.Logf("%d clients holding an 80 KB ECHO each hang up together: server CPU %v, bystander's worst PING %v",
		conns, cpu, worst.Round(time.Microsecond))

	// Live clients watching keys the closing ones watch too.
	touched, untouched := dialRESP(t, addr), dialRESP(t, addr)
	if got := touched.do(time.Minute, "WATCH", watchedKey(0, 5)); got != "+OK" {
		t.Fatalf("WATCH: %q", got)
	}
	if got := untouched.do(time.Minute, "WATCH", watchedKey(1, 7)); got != "+OK" {
		t.Fatalf("WATCH: %q", got)
	}
	writer := dialRESP(t, addr)
	before := connectedClients(t, writer)
	cpu, worst = closeTogether(t, p.Pid(), addr, conns, func(i int, c *respConn) {
		var watch strings.Builder
		requests := 0
		for j := 0; j < keys; j += 5000 {
			args := []string{"WATCH"}
			for k := j; k < min(j+5000, keys); k++ {
				args = append(args, watchedKey(i, k))
			}
			watch.WriteString(respCmd(args...))
			requests++
		}
		go c.conn.Write([]byte(watch.String()))
		for range requests {
			if got := skipReply(t, c.r); got != "+OK" {
				t.Fatalf("client %d's WATCH of %d keys: %q", i, keys, got)
			}
		}
	})
	t.Logf("%d clients watching %d keys each hang up together: server CPU %v, bystander's worst PING %v",
		conns, keys, cpu, worst.Round(time.Microsecond))

	// Of the clients closeTogether opened, its bystander is left.
	if after := connectedClients(t, writer); after != before+1 {
		t.Fatalf("%d clients connected after %d hung up, want %d", after, conns, before+1)
	}
	if got := writer.do(time.Minute, "SET", watchedKey(0, 5), "v"); got != "+OK" {
		t.Fatalf("SET: %q", got)
	}
	expectReplies(t, "the touched watcher", touched, []string{"+OK", "+QUEUED", "*-1"}, "MULTI", "SET ran 1", "EXEC")
	expectReplies(t, "the untouched watcher", untouched, []string{"+OK", "+QUEUED", "*1"}, "MULTI", "GET "+watchedKey(1, 7), "EXEC")
	if got := untouched.line(); got != "$-1" {
		t.Fatalf("the untouched watcher's GET in EXEC: %q", got)
	}
	if got := writer.do(time.Minute, "GET", "ran"); got != "$-1" {
		t.Fatalf("the touched watcher's transaction ran: GET ran answered %q", got)
	}
	// A new client may watch as many keys as one that left; its keys
	// work as any.
	again := dialRESP(t, addr)
	args := []string{"WATCH"}
	for k := range min(keys, 5000) {
		args = append(args, watchedKey(2, k))
	}
	if got := again.do(time.Minute, args...); got != "+OK" {
		t.Fatalf("a new client's WATCH of %d keys: %q", len(args)-1, got)
	}
	if got := writer.do(time.Minute, "SET", watchedKey(2, 3), "v"); got != "+OK" {
		t.Fatalf("SET: %q", got)
	}
	expectReplies(t, "the new watcher", again, []string{"+OK", "+QUEUED", "*-1"}, "MULTI", "SET ran 1", "EXEC")
}

// startWatching starts chapter ch's server as startRESP does, and skips
// the test if the server has no WATCH.
func startWatching(t *testing.T, ch string, args ...string) (*serverproc.Process, string) {
	t.Helper()
	p, addr := startRESP(t, ch, args...)
	if got := dialRESP(t, addr).do(time.Minute, "WATCH", "probe"); got != "+OK" {
		t.Skipf("%s has no WATCH: %q", ch, got)
	}
	return p, addr
}

// closeTogether opens n connections to addr, runs load on each (the log
// reports the server's CPU for it), then closes them all at once while a bystander PINGs, and returns the
// server's CPU from the closes until it is idle again (no more than a
// clock tick in each of two windows of 200 ms running) and the
// bystander's worst PING.
func closeTogether(t *testing.T, pid int, addr string, n int, load func(i int, c *respConn)) (cpu, worst time.Duration) {
	t.Helper()
	var cs []*respConn
	loadCPU := cpuTime(t, pid)
	for i := range n {
		c := dialRESP(t, addr)
		c.conn.SetDeadline(time.Now().Add(testkit.Scale(5 * time.Minute)))
		load(i, c)
		cs = append(cs, c)
	}
	t.Logf("loading the %d clients took server CPU %v", n, cpuTime(t, pid)-loadCPU)
	f := measure(t, pid, addr, "the hang-ups", func() {
		for _, c := range cs {
			c.conn.Close()
		}
		// Until the server is idle again: the unwatching goes on after
		// the round that saw the hang-ups.
		last, quiet := cpuTime(t, pid), 0
		for deadline := time.Now().Add(testkit.Scale(2 * time.Minute)); quiet < 2; {
			if time.Now().After(deadline) {
				t.Fatal("the server was still busy two minutes after the clients hung up")
			}
			time.Sleep(200 * time.Millisecond)
			now := cpuTime(t, pid)
			if now-last <= 10*time.Millisecond {
				quiet++
			} else {
				quiet = 0
			}
			last = now
		}
	})
	return f.cpu, f.worst
}

// expectReplies sends each command (its arguments split at spaces),
// pipelined, and checks the first line of each reply.
func expectReplies(t *testing.T, who string, c *respConn, want []string, cmds ...string) {
	t.Helper()
	var sb strings.Builder
	for _, cmd := range cmds {
		sb.WriteString(respCmd(strings.Fields(cmd)...))
	}
	c.conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := c.conn.Write([]byte(sb.String())); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if got := c.line(); got != w {
			t.Fatalf("%s, reply %d (%s): %q, want %q", who, i+1, cmds[i], got, w)
		}
	}
}

// connectedClients reads connected_clients from INFO clients.
func connectedClients(t *testing.T, c *respConn) int {
	t.Helper()
	head := c.do(time.Minute, "INFO", "clients")
	n, err := strconv.Atoi(strings.TrimPrefix(head, "$"))
	if err != nil || !strings.HasPrefix(head, "$") {
		t.Fatalf("INFO clients: %q", head)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, body); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\r\n") {
		if v, ok := strings.CutPrefix(line, "connected_clients:"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	t.Fatalf("INFO clients has no connected_clients: %q", body)
	return 0
}
