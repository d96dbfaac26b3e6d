package hostile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// Clients that take what a server holds for its connections: more
// connections than it has descriptors for or allows, requests and replies
// that fill the budget of the connections' memory, replies nobody reads,
// and requests that never quite arrive. The verdicts are replies, bytes
// and the server's memory; figures such as latencies are only reported.

// Connections are bounded in number (maxclients, Redis's 10,000 by
// default), and what each holds counts in the budget of the connections'
// memory and is taken only while used. Before, 15,000 connections that
// each sent one 15 KB ECHO held 554 MiB against a 64 MiB budget (37 KiB
// taken up front by every connection, outside the budget), and only the
// descriptor limit stopped more. The honest twin sends the same 15,000
// ECHOs over 100 connections. The log reports the server's CPU for each,
// its RSS and a bystander's worst PING; the test asserts the replies (an
// ECHO answered, or Redis's "max number of clients reached" past
// maxclients) and that the RSS the connections add stays within the
// budget and as much again for the garbage collector's headroom.

// TestManyConnections: see above.
func TestManyConnections(t *testing.T) {
	eachChapter(t, costlyRESPBounds, testManyConnections)
}

func testManyConnections(t *testing.T, ch string) {
	const budgetMB, maxClients = 64, 10_000
	n := envInt("HOSTILE_CONNS", 15_000)
	echo := respCmd("ECHO", strings.Repeat("e", 15_000))
	want := fmt.Sprintf("$%d\r\n", 15_000)
	for _, many := range []bool{false, true} {
		p, addr := startRESP(t, ch, "-max-output-mb", fmt.Sprint(budgetMB))
		stop := pingWatch(t, addr)
		rssBefore := procStatus(t, p.Pid(), "VmRSS")
		cpuBefore := cpuTime(t, p.Pid())
		conns := 100 // the twin: the same ECHOs over 100 connections
		if many {
			conns = n
		}
		var (
			mu                        sync.Mutex
			open                      []net.Conn
			answered, refused, failed int
			wg                        sync.WaitGroup
		)
		sem := make(chan struct{}, 100)
		for i := range conns {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				c, err := net.DialTimeout("tcp", addr, time.Minute)
				if err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
					return
				}
				c.SetDeadline(time.Now().Add(5 * time.Minute))
				r := bufio.NewReader(c)
				echoes := 1
				if !many {
					echoes = n/conns + min(1, max(0, n%conns-i))
				}
				ok, no := 0, 0
				for range echoes {
					if _, err := c.Write([]byte(echo)); err != nil {
						no++
						break
					}
					line, err := r.ReadString('\n')
					if line != want {
						if line == "-ERR max number of clients reached\r\n" || err != nil {
							no++
						}
						break
					}
					r.Discard(15_002)
					ok++
				}
				mu.Lock()
				open = append(open, c)
				answered += ok
				refused += no
				mu.Unlock()
			}()
		}
		wg.Wait()
		rss := procStatus(t, p.Pid(), "VmRSS")
		cpu := cpuTime(t, p.Pid()) - cpuBefore
		worst := stop()
		for _, c := range open {
			c.Close()
		}
		t.Logf("%d ECHOs of 15 KB over %d connections: %d answered, %d refused, %d failed to connect; server CPU %v, RSS %d MB (%d MB before); bystander's worst PING %v",
			n, conns, answered, refused, failed, cpu, rss>>20, rssBefore>>20, worst.Round(time.Millisecond))
		if worst < 0 {
			t.Fatalf("%d connections: the bystander's PING failed", conns)
		}
		switch {
		case !many && answered != n:
			t.Fatalf("over 100 connections, %d of %d ECHOs answered", answered, n)
		case many && (answered > maxClients || answered+refused+failed != n || answered < maxClients/2):
			t.Fatalf("over %d connections: %d answered (at most maxclients, %d, may be), %d refused, %d failed", n, answered, maxClients, refused, failed)
		case rss-rssBefore > 2*budgetMB<<20:
			t.Fatalf("over %d connections: the RSS grew by %d MB, past twice the %d MB budget", conns, (rss-rssBefore)>>20, budgetMB)
		}
	}
}

// Chapter 23's RESP work and memory bounds (issue 20, attacks 4 and 5).
// These tests report figures (times, the bystander's worst PING, RSS) in
// their log; the verdicts they assert are replies and bytes, never times:
// deadlines only guard against a server that hangs.

// TestRESPWorkBounded: over 300,000 keys and a sorted set of 300,000
// members, 16 pipelined whole-set ZRANGEs, 16 pipelined pathological
// KEYS and a FLUSHALL are each answered, while a bystander's PINGs go on
// being answered; the log reports each one's time and the bystander's
// worst PING (issue 20 asks < 2 s and < 300 ms). Before the bounds, 16
// such ZRANGEs held the loop for seconds, and FLUSHALL of 300k keys for
// 2.2 s.
func TestRESPWorkBounded(t *testing.T) {
	eachChapter(t, costlyRESP, testRESPWorkBounded)
}

func testRESPWorkBounded(t *testing.T, ch string) {
	n := envInt("HOSTILE_RESP_KEYS", 300_000)
	p, addr, load := startWithClient(t, ch)
	// The sorted set, 4000 members a request, and the keys, 1000 SETs a write.
	var sb strings.Builder
	for i := 0; i < n; i += 4000 {
		args := []string{"ZADD", "z"}
		for j := i; j < min(i+4000, n); j++ {
			args = append(args, fmt.Sprint(j), fmt.Sprintf("member-%09d", j))
		}
		sb.WriteString(respCmd(args...))
	}
	loadAll := func(reqs string, count int) {
		load.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		go load.conn.Write([]byte(reqs))
		for range count {
			if line := skipReply(t, load.r); line[0] == '-' {
				t.Fatalf("loading: %s", line)
			}
		}
	}
	loadAll(sb.String(), (n+3999)/4000)
	for i := 0; i < n; i += 1000 {
		sb.Reset()
		for j := i; j < min(i+1000, n); j++ {
			sb.WriteString(respCmd("SET", fmt.Sprintf("key:%09d", j), "v"))
		}
		loadAll(sb.String(), min(i+1000, n)-i)
	}

	attack := func(name string, count int, args ...string) {
		t.Helper()
		a := dialRESP(t, addr)
		var first string
		f := measure(t, p.Pid(), addr, name, func() {
			a.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			if _, err := a.conn.Write([]byte(strings.Repeat(respCmd(args...), count))); err != nil {
				t.Fatal(err)
			}
			for range count {
				first = skipReply(t, a.r)
			}
		})
		t.Logf("%s: answered in %v (%.40q); bystander's worst PING %v", name, f.took.Round(time.Millisecond), first, f.worst.Round(time.Millisecond))
	}
	attack("16 pipelined ZRANGE z 0 -1", 16, "ZRANGE", "z", "0", "-1")
	attack("16 pipelined ZRANGE z 0 -1 WITHSCORES", 16, "ZRANGE", "z", "0", "-1", "WITHSCORES")
	attack("16 pipelined KEYS *a*a*a*a*a*a*a*a*a*a*a*ab", 16, "KEYS", "*a*a*a*a*a*a*a*a*a*a*a*ab")
	attack("16 pipelined KEYS *", 16, "KEYS", "*")
	attack("FLUSHALL", 1, "FLUSHALL")
	if got := load.do(time.Minute, "DBSIZE"); got != ":0" {
		t.Fatalf("DBSIZE after FLUSHALL: %q", got)
	}
}

// TestRESPClientsMemoryBounded: 2000 clients of each hostile kind hold
// what they can make the server hold: most of a 500 KB request each, a
// name of 500 KB each, and replies to KEYS they do not read. The server's
// RSS is reported after each kind, and must stay within 256 MB with a
// budget of 64 MiB (issue 20; before, partial requests reached 2.2 GB and
// names 1.5 GB); clients refused for memory get an error saying so.
func TestRESPClientsMemoryBounded(t *testing.T) {
	eachChapter(t, costlyRESPBounds, testRESPClientsMemoryBounded)
}

func testRESPClientsMemoryBounded(t *testing.T, ch string) {
	clients := envInt("HOSTILE_RESP_CLIENTS", 2000)
	p, addr, setup := startWithClient(t, ch, "-max-output-mb", "64")
	for i := range 20_000 {
		setup.expectReply(time.Minute, "+OK", "SET", fmt.Sprintf("key-with-a-long-name:%030d", i), "v")
	}
	const limit = 256 << 20
	rssBefore := procStatus(t, p.Pid(), "VmRSS")
	val := strings.Repeat("v", 500_000)
	kinds := []struct {
		name string
		send string
	}{
		{"partial 500 KB SETs", respCmd("SET", "k", val)[:450_000]},
		{"CLIENT SETNAME of 500 KB", respCmd("CLIENT", "SETNAME", val)},
		{"unread KEYS * (1.1 MB of replies each)", strings.Repeat(respCmd("KEYS", "key-with-a-long-name:*0"), 2)},
	}
	for _, k := range kinds {
		var (
			mu    sync.Mutex
			conns []net.Conn
			wg    sync.WaitGroup
		)
		sem := make(chan struct{}, 64)
		for range clients {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				c, err := dialSmallWindow(addr)
				if err != nil {
					return
				}
				c.SetWriteDeadline(time.Now().Add(10 * time.Second))
				c.Write([]byte(k.send))
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}()
		}
		wg.Wait()
		time.Sleep(time.Second) // let the server read what was sent
		rss := procStatus(t, p.Pid(), "VmRSS")
		if got := setup.do(time.Minute, "PING"); got != "+PONG" {
			t.Fatalf("PING during %s: %q", k.name, got)
		}
		t.Logf("%d clients, %s: RSS %d MB (%d MB before any)", len(conns), k.name, rss>>20, rssBefore>>20)
		if rss > limit {
			t.Errorf("%s: RSS %d MB, past %d MB", k.name, rss>>20, limit>>20)
		}
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestRESPTrickleCost: the same requests, sent whole and trickled 1 KB at
// a time, cost the server CPU time the log reports side by side: a 500 KB
// value, and 8192 small arguments. Each piece of a request was parsed
// from the request's start (16x the CPU of the whole one, measured in
// issue 20); the reported ratio should now stay near 1, bar the cost of
// the reads themselves. The verdict asserted is only the replies.
func TestRESPTrickleCost(t *testing.T) {
	eachChapter(t, costlyRESP, testRESPTrickleCost)
}

func testRESPTrickleCost(t *testing.T, ch string) {
	p, addr := startRESP(t, ch)
	big := respCmd("SET", "k", strings.Repeat("v", 500_000))
	args := []string{"DEL"}
	for i := 1; i < 8192; i++ {
		args = append(args, fmt.Sprintf("key-%08d", i))
	}
	many := respCmd(args...)
	const rounds = 20
	cost := func(req string, piece int) time.Duration {
		c := dialRESP(t, addr)
		before := cpuTime(t, p.Pid())
		for range rounds {
			c.conn.SetDeadline(time.Now().Add(time.Minute))
			for i := 0; i < len(req); i += piece {
				if _, err := c.conn.Write([]byte(req[i:min(i+piece, len(req))])); err != nil {
					t.Fatal(err)
				}
				if piece < len(req) {
					time.Sleep(100 * time.Microsecond) // one read a piece
				}
			}
			if line := c.line(); line != "+OK" && line != ":0" {
				t.Fatalf("reply %q", line)
			}
		}
		return cpuTime(t, p.Pid()) - before
	}
	for _, r := range []struct{ name, req string }{{"SET of 500 KB", big}, {"DEL of 8191 keys", many}} {
		whole := cost(r.req, len(r.req))
		trickled := cost(r.req, 1024)
		t.Logf("%s x%d: server CPU %v whole, %v in 1 KB pieces", r.name, rounds, whole, trickled)
	}
}

// One client may not take the whole budget of the connections' memory and
// keep it. A hog queues a big transaction (SETs of 12 KB values inside
// MULTI) until the budget refuses it more, and keeps its connection: each
// SET fits in a read buffer's usual 16 KiB, so the hog's reads never ask
// for room, and the refusal comes where the command would be queued (a
// value of 1 MB could be refused while its read buffer grows instead,
// and that closes the connection of the one asking, which holds the most);
// meanwhile another client sends requests over 16 KiB (a read buffer's
// usual size; here 3 MB, more than the budget has left beside the hog),
// WATCH and CLIENT SETNAME. Before, every one of those was
// refused, and a request over 16 KiB closed its own connection, for as
// long as the hog stayed; as Redis's maxmemory-clients does, the server
// now closes the connection that holds the most: the hog. The honest twin
// runs the same other clients with no hog. The log reports the server's
// CPU for each and a bystander's worst PING; the test asserts the replies
// and that the hog, and only it, was closed.

// TestHogClosed: see above.
func TestHogClosed(t *testing.T) {
	eachChapter(t, txChapters(), testHogClosed)
}

func testHogClosed(t *testing.T, ch string) {
	const budgetMB = 64
	for _, withHog := range []bool{false, true} {
		p, addr := startRESP(t, ch, "-max-output-mb", fmt.Sprint(budgetMB))
		var hog *respConn
		if withHog {
			hog = dialRESP(t, addr)
			hog.expectReply(time.Minute, "+OK", "MULTI")
			const valKB = 12
			val := strings.Repeat("h", valKB<<10)
			queued := 0
			for ; queued < 2*budgetMB<<10/valKB; queued++ {
				got := hog.do(time.Minute, "SET", fmt.Sprint("hog", queued), val)
				if got != "+QUEUED" {
					if !strings.Contains(got, "memory for clients is full") {
						t.Fatalf("the hog's SET %d: %q", queued, got)
					}
					break
				}
			}
			if queued*valKB>>10 < budgetMB/2 {
				t.Fatalf("the hog queued only %d KB of a %d MB budget", queued*valKB, budgetMB)
			}
			if got := hog.do(time.Minute, "PING"); got != "+QUEUED" {
				t.Fatalf("the hog's PING, queued: %q", got)
			}
			t.Logf("the hog holds %d MB queued of the %d MB budget", queued*valKB>>10, budgetMB)
		}
		f := measure(t, p.Pid(), addr, fmt.Sprintf("with hog %v", withHog), func() {
			others := dialRESP(t, addr)
			// 3 MB: more than the budget has left beside the hog.
			big := strings.Repeat("o", 3<<20)
			for i := range 5 {
				key := fmt.Sprint("other", i)
				if got := others.do(time.Minute, "SET", key, big); got != "+OK" {
					t.Fatalf("with hog %v: another client's SET of 3 MB: %q", withHog, got)
				}
				if got := others.do(time.Minute, "GET", key); got != fmt.Sprintf("$%d", len(big)) {
					t.Fatalf("with hog %v: GET of 3 MB: %q", withHog, got)
				}
				others.r.Discard(len(big) + 2)
			}
			if got := others.do(time.Minute, "WATCH", "other0"); got != "+OK" {
				t.Fatalf("with hog %v: WATCH: %q", withHog, got)
			}
			if got := others.do(time.Minute, "CLIENT", "SETNAME", strings.Repeat("n", 20_000)); got != "+OK" {
				t.Fatalf("with hog %v: CLIENT SETNAME: %q", withHog, got)
			}
		})
		t.Logf("with hog %v: 5 SETs and GETs of 3 MB, a WATCH, a SETNAME of 20 KB: server CPU %v; bystander's worst PING %v",
			withHog, f.cpu, f.worst.Round(time.Millisecond))
		if hog != nil {
			hog.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := hog.r.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("the hog's connection is still open (read %d, %v)", n, err)
			}
		}
	}
}

// Argument slots outside the budget. A RESP request's read buffer counts
// in the budget of the connections' memory, but the slice of its
// arguments, which the parser fills once the request is whole, does not:
// 24 bytes for each argument, where an empty argument takes 6 bytes of
// the request ("$0\r\n\r\n"), and the slice grows by doubling. So a
// request of millions of empty arguments makes the server hold four to
// eight times its own size beside the budget: EXISTS with 5,000,000 empty
// keys, a request of 30 MB under a 64 MiB budget, took the server's RSS
// from 4 MB to 328 MB (and 1.1 s of CPU, the bystander's PING waiting as
// long), where its honest twin, a SET of a 30 MB value, peaked at 96 MB
// with the value stored. The test sends both to servers of their own,
// reports their CPU, peak RSS and the bystander's worst PING, and asserts
// that the attack's peak stays within twice the budget, as the many
// connections' test does (the budget and as much again for the garbage
// collector's headroom): a server that counts the slots answers the
// request or refuses it within its budget.

// TestTinyArgumentsCounted: see above.
func TestTinyArgumentsCounted(t *testing.T) {
	eachChapter(t, costlyRESP[len(costlyRESP)-1:], testTinyArguments)
}

func testTinyArguments(t *testing.T, ch string) {
	const budgetMB, n = 64, 5_000_000
	var attack strings.Builder
	fmt.Fprintf(&attack, "*%d\r\n$6\r\nEXISTS\r\n", n+1)
	attack.WriteString(strings.Repeat("$0\r\n\r\n", n))
	twin := respCmd("SET", "k", strings.Repeat("v", attack.Len()-30))

	// run sends req to a server of its own and returns the reply's first
	// line (or the error that ended the connection), the server's CPU,
	// its peak RSS beyond what it held before, and the bystander's worst
	// PING.
	run := func(req string) (got string, cpu time.Duration, peak int64, worst time.Duration) {
		p, addr := startRESP(t, ch, "-max-output-mb", fmt.Sprint(budgetMB))
		before := procStatus(t, p.Pid(), "VmHWM")
		c := dialRESP(t, addr)
		c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		f := measure(t, p.Pid(), addr, "the request", func() {
			go c.conn.Write([]byte(req))
			line, err := c.r.ReadString('\n')
			got = strings.TrimSuffix(line, "\r\n")
			if err != nil {
				got = "connection ended: " + err.Error()
			}
		})
		peak = procStatus(t, p.Pid(), "VmHWM") - before
		cpu, worst = f.cpu, f.worst
		return got, cpu, peak, worst
	}
	got, cpu, peak, worst := run(attack.String())
	twinGot, twinCPU, twinPeak, twinWorst := run(twin)
	t.Logf("EXISTS of %d empty keys (%d MB): %s, server CPU %v, peak RSS +%d MB, bystander's worst PING %v; honest twin (a SET of as many bytes): %s, %v, +%d MB, %v",
		n, attack.Len()>>20, got, cpu.Round(time.Millisecond), peak>>20, worst.Round(time.Millisecond),
		twinGot, twinCPU.Round(time.Millisecond), twinPeak>>20, twinWorst.Round(time.Millisecond))
	if twinGot != "+OK" {
		t.Errorf("the twin's SET: %q", twinGot)
	}
	if got != ":0" && !strings.HasPrefix(got, "-ERR") {
		t.Errorf("EXISTS of %d empty keys: %q, want :0 or an error", n, got)
	}
	if peak > 2*budgetMB<<20 {
		t.Errorf("EXISTS of %d empty keys: the peak RSS grew by %d MB, past twice the %d MB budget", n, peak>>20, budgetMB)
	}
}

// dialSmallWindow connects with a small receive buffer, so that the kernel
// holds few of the replies a client does not read and the server the rest.
func dialSmallWindow(addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return err
	}}
	return d.DialContext(context.Background(), "tcp", addr)
}

// getLatency returns the slowest of n gets of key on a fresh connection.
func getLatency(t *testing.T, addr, key string, n int) time.Duration {
	c := dial(t, addr)
	worst := time.Duration(0)
	for range n {
		start := time.Now()
		if v := c.do("get", key); v.Tag != wire.TagStr {
			t.Fatalf("get %s: %v", key, v)
		}
		worst = max(worst, time.Since(start))
	}
	return worst
}

// TestSlowReadersMemoryBounded: many clients pipeline gets of a 4,000-byte
// value and read none of the replies. Each may have up to 1 MiB of replies
// held for it; the server must also bound the sum (to 8 MiB here, with
// -max-output-mb), and keep serving others.
func TestSlowReadersMemoryBounded(t *testing.T) {
	eachChapter(t, costlyBook, func(t *testing.T, ch string) { testSlowReaders(t, ch, false, "8", 50<<20) })
	// RESP connections (ch23 on), whose replies are built their own way.
	eachChapterAs(t, costlyRESPBounds, "-RESP", func(t *testing.T, ch string) { testSlowReaders(t, ch, true, "8", 50<<20) })
}

// testSlowReaders runs the flood against chapter ch's server (in Redis's
// protocol on its RESP listener if resp) started with
// -max-output-mb maxMB and fails if its resident memory peaks past limit.
// The kernel takes the first few MB of each client's replies into its
// socket buffers; the gets are enough to leave about 1 MiB more.
func testSlowReaders(t *testing.T, ch string, resp bool, maxMB string, limit int64) {
	clients, gets := 60, 1000
	// For measuring by hand: HOSTILE_SLOW_READERS=1000 HOSTILE_MAX_OUTPUT_MB=64.
	if s := os.Getenv("HOSTILE_SLOW_READERS"); s != "" {
		clients, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("HOSTILE_MAX_OUTPUT_MB"); s != "" {
		maxMB = s
	}
	p := startServer(t, ch, 0, "-max-output-mb", maxMB)
	_, addr, reqs := bigGets(t, p, resp, gets)
	before := procStatus(t, p.Pid(), "VmRSS")
	var conns []net.Conn
	defer func() {
		for _, conn := range conns {
			conn.Close()
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range clients {
		conn, err := dialSmallWindow(addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if _, err := conn.Write(reqs); err != nil {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("sending requests: %v", err)
			}
		}()
	}
	wg.Wait()
	// Let the server answer what it will, until its memory stops growing.
	for last, i := int64(0), 0; i < 50; i++ {
		time.Sleep(100 * time.Millisecond)
		rss := procStatus(t, p.Pid(), "VmRSS")
		if rss-last < 1<<20 && i >= 5 {
			break
		}
		last = rss
	}
	lat := getLatency(t, p.Addr, "small", 100)
	peak := procStatus(t, p.Pid(), "VmHWM")
	t.Logf("%d clients not reading: server resident %d MiB at peak (%d MiB before); slowest of 100 gets %v",
		clients, peak>>20, before>>20, lat)
	if peak > limit {
		t.Errorf("the server's memory peaked at %d MiB, past %d MiB", peak>>20, limit>>20)
	}
}

// TestFloodersDoNotStallOthers: many clients pipeline gets of a 4,000-byte
// value and read the replies slowly, so their sockets keep becoming
// writable again; meanwhile another client sends one get at a time. Every
// one of its gets must be answered, with the right value, while the flood
// goes on.
//
// How long each get waited is reported, not judged: a time limit would
// fail on a loaded machine. The fairness itself, a short turn for every
// ready connection, is asserted by counting bytes per turn in the
// chapters' own tests (TestTurnBounded in ch17 to ch23, and
// TestRESPTurnBounded in ch23), which drive the event loop one turn at a
// time.
func TestFloodersDoNotStallOthers(t *testing.T) {
	eachChapter(t, costlyBook, func(t *testing.T, ch string) { testFlooders(t, ch, false) })
	// RESP connections flooding, on their own listener (ch23 on).
	eachChapterAs(t, costlyRESPBounds, "-RESP", func(t *testing.T, ch string) { testFlooders(t, ch, true) })
}

// testFlooders runs the flood against chapter ch's server (in Redis's
// protocol on its RESP listener if resp; the well-behaved client speaks
// the book's) and reports how long that client's gets took.
func testFlooders(t *testing.T, ch string, resp bool) {
	flooders, gets, dur := 1000, 4000, 3*time.Second
	// For measuring by hand: HOSTILE_FLOODERS=300 HOSTILE_FLOOD_GETS=8000.
	if s := os.Getenv("HOSTILE_FLOODERS"); s != "" {
		flooders, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("HOSTILE_FLOOD_GETS"); s != "" {
		gets, _ = strconv.Atoi(s)
	}
	p := startServer(t, ch, 0)
	c, addr, reqs := bigGets(t, p, resp, gets)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for range flooders {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		// Send every request at once, without waiting for a reply.
		go func() {
			defer wg.Done()
			conn.SetWriteDeadline(time.Now().Add(dur + 5*time.Second))
			conn.Write(reqs)
		}()
		// Read 16 KB every 2 ms until the test ends: slowly, but enough
		// for the socket to become writable again and again.
		go func() {
			defer wg.Done()
			defer conn.Close()
			buf := make([]byte, 16<<10)
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				conn.SetReadDeadline(time.Now().Add(time.Second))
				if _, err := io.ReadFull(conn, buf); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						continue
					}
					return
				}
			}
		}()
	}

	// The well-behaved client: one get at a time, for dur (and at least
	// 10 gets, however slow the machine).
	var lats []time.Duration
	for start := time.Now(); time.Since(start) < dur || len(lats) < 10; {
		t0 := time.Now()
		if v := c.do("get", "small"); v.Tag != wire.TagStr || string(v.Str) != "v" {
			t.Fatalf("get small, after %d answered: %v", len(lats), v)
		}
		lats = append(lats, time.Since(t0))
	}
	slices.Sort(lats)
	worst, p99 := lats[len(lats)-1], lats[len(lats)*99/100]
	t.Logf("%d flooders reading slowly: %d gets by another client, p99 %v, slowest %v (load %s)",
		flooders, len(lats), p99, worst, loadAvg())
}

// loadAvg returns the machine's load averages, to read beside a reported
// time: a figure taken on a busy machine says little.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// TestOutOfFDsServerSurvives connects more clients than a server has file
// descriptors for. Every server must keep running: at worst it fails to
// accept some of them. (Go's runtime creates its own epoll instance lazily,
// the first time it arms a timer; when that happened with no descriptor
// left, the runtime aborted the whole process.)
func TestOutOfFDsServerSurvives(t *testing.T) {
	const nofile, clients = 64, 150
	eachChapter(t, allChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, nofile)
		var conns []net.Conn
		defer closeConns(&conns)
		for range clients {
			c, err := net.DialTimeout("tcp", p.Addr, 2*time.Second)
			if err != nil {
				break // the backlog is full; enough
			}
			conns = append(conns, c)
		}
		// Keep the server out of descriptors for a while: a server
		// that retries accept in a loop allocates (each failure is
		// logged), the garbage collector runs and its scavenger arms
		// a timer, which is when the runtime wants its poller.
		deadline := time.Now().Add(1500 * time.Millisecond)
		for p.Running() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !p.Running() {
			t.Fatalf("server died with %d clients and RLIMIT_NOFILE %d:\n%.2000s", len(conns), nofile, p.Stderr())
		}
		closeConns(&conns)
		if err := p.WaitAccepting(10 * time.Second); err != nil {
			t.Fatalf("server no longer accepts after the clients left: %v", err)
		}
	})
}

// TestOutOfFDsNoSpin: with more clients waiting than the server has file
// descriptors for, the server must not spin on the failing accept (it used
// 100% CPU and wrote millions of log lines), must keep answering the
// clients it has, and must take new ones once descriptors free up.
func TestOutOfFDsNoSpin(t *testing.T) {
	const nofile, clients = 64, 150
	const window = 2 * time.Second
	eachChapter(t, hardChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, nofile)
		first := dial(t, p.Addr)
		first.do("set", "k", "v")
		var conns []net.Conn
		defer closeConns(&conns)
		for range clients {
			c, err := net.DialTimeout("tcp", p.Addr, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		time.Sleep(200 * time.Millisecond) // let it run out of descriptors
		cpu0, lines0, start := cpuTime(t, p.Pid()), strings.Count(p.Stderr(), "\n"), time.Now()
		var worst time.Duration
		for time.Since(start) < window {
			t0 := time.Now()
			first.do("get", "k")
			worst = max(worst, time.Since(t0))
			time.Sleep(10 * time.Millisecond)
		}
		elapsed := time.Since(start)
		cpu := cpuTime(t, p.Pid()) - cpu0
		lines := strings.Count(p.Stderr(), "\n") - lines0
		t.Logf("out of descriptors for %v: server CPU %v (%.0f%%), %d log lines, slowest get %v",
			elapsed.Round(time.Millisecond), cpu, 100*cpu.Seconds()/elapsed.Seconds(), lines, worst)
		if cpu > elapsed/4 {
			t.Errorf("the server used %v of CPU in %v with nothing to do but wait", cpu, elapsed)
		}
		if lines > 10 {
			t.Errorf("the server wrote %d log lines in %v:\n%.500s", lines, elapsed, p.Stderr())
		}
		if !strings.Contains(p.Stderr(), "too many open files") {
			t.Errorf("the failed accepts were never logged:\n%.500s", p.Stderr())
		}
		// Once the clients leave, a new one is served.
		closeConns(&conns)
		c := dial(t, p.Addr)
		if v := c.do("get", "k"); string(v.Str) != "v" {
			t.Fatalf("get k from a new client: %v", v)
		}
	})
}

// TestDrippingClientDropped: a client that sends one byte of a request at
// a time, never quite idle, is closed once the request has not arrived
// whole within the idle timeout (on the RESP listener, Redis's timeout,
// set to 1 s here: it is 0, never, by default).
func TestDrippingClientDropped(t *testing.T) {
	eachChapter(t, hardChapters, func(t *testing.T, ch string) { testDrippingClient(t, ch, false) })
	// RESP connections (ch21 on) read into a buffer of their own.
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
