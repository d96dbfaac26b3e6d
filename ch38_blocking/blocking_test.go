package chapter_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// A client of the tests below: raw RESP, one reply read at a time.
type bclient struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func bdial(t *testing.T, p *testkit.Server) *bclient {
	c := respDial(t, p)
	return &bclient{t, c, bufio.NewReader(c)}
}

// send writes one request, as an array of bulk strings.
func (b *bclient) send(args ...string) {
	b.t.Helper()
	var s strings.Builder
	fmt.Fprintf(&s, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&s, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(b.c, s.String()); err != nil {
		b.t.Fatal(err)
	}
}

// read reads one whole reply and returns its bytes.
func (b *bclient) read() string {
	b.t.Helper()
	var s strings.Builder
	var one func()
	one = func() {
		line, err := b.r.ReadString('\n')
		if err != nil {
			b.t.Fatalf("reading a reply: %v (so far %q)", err, s.String()+line)
		}
		s.WriteString(line)
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		switch line[0] {
		case '$':
			if n >= 0 {
				buf := make([]byte, n+2)
				if _, err := io.ReadFull(b.r, buf); err != nil {
					b.t.Fatal(err)
				}
				s.Write(buf)
			}
		case '*':
			for range max(n, 0) {
				one()
			}
		}
	}
	one()
	return s.String()
}

// do sends a request and checks its reply.
func (b *bclient) do(want string, args ...string) {
	b.t.Helper()
	b.send(args...)
	if got := b.read(); got != want {
		b.t.Fatalf("%q: got %q, want %q", args, got, want)
	}
}

// expect reads the reply to a request sent earlier.
func (b *bclient) expect(want string) {
	b.t.Helper()
	if got := b.read(); got != want {
		b.t.Fatalf("got %q, want %q", got, want)
	}
}

// waitBlocked polls INFO until n clients are parked (a deadline guards a
// hang only).
func (b *bclient) waitBlocked(n int) {
	b.t.Helper()
	want := fmt.Sprintf("blocked_clients:%d\r\n", n)
	for deadline := time.Now().Add(testkit.Scale(20 * time.Second)); ; {
		b.send("INFO", "clients")
		if strings.Contains(b.read(), want) {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("never %s", strings.TrimSpace(want))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// bulks is the RESP2 array of the bulk strings vs.
func bulks(vs ...string) string {
	s := fmt.Sprintf("*%d\r\n", len(vs))
	for _, v := range vs {
		s += fmt.Sprintf("$%d\r\n%s\r\n", len(v), v)
	}
	return s
}

// TestBlockFIFO: clients parked on one key are served in the order they
// parked, one element each, and each element leaves the list; one served
// leaves the queue of its other key too.
func TestBlockFIFO(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	var w [3]*bclient
	for i := range w {
		w[i] = bdial(t, p)
		w[i].send("BLPOP", "q", "other", "0")
		ctl.waitBlocked(i + 1) // parked in this order
	}
	ctl.do(":2\r\n", "RPUSH", "q", "job1", "job2")
	w[0].expect(bulks("q", "job1"))
	w[1].expect(bulks("q", "job2"))
	ctl.waitBlocked(1)
	ctl.do(":0\r\n", "EXISTS", "q")
	// The first two left other's queue too: the third is served from it.
	ctl.do(":1\r\n", "RPUSH", "other", "job3")
	w[2].expect(bulks("other", "job3"))
	ctl.do(":0\r\n", "EXISTS", "other")
	ctl.waitBlocked(0)
	// Each answers its next requests once served.
	w[0].send("BRPOP", "q", "0")
	w[0].send("PING")
	ctl.waitBlocked(1)
	ctl.do(":1\r\n", "LPUSH", "q", "job4")
	w[0].expect(bulks("q", "job4"))
	w[0].expect("+PONG\r\n")
}

// TestBlockLostWakeup: a key created and emptied in one transaction
// serves no one; a push of one element serves the first waiter only, and
// the second, whose wake-up the first took, waits on, and is served by
// the next push. A client parked for a sorted set is not served by a list.
func TestBlockLostWakeup(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	a, b, z := bdial(t, p), bdial(t, p), bdial(t, p)
	a.send("BLPOP", "q", "0")
	ctl.waitBlocked(1)
	b.send("BLMPOP", "0", "1", "q", "LEFT", "COUNT", "5")
	ctl.waitBlocked(2)
	z.send("BZPOPMIN", "q", "0")
	ctl.waitBlocked(3)
	ctl.do("+OK\r\n", "MULTI")
	ctl.do("+QUEUED\r\n", "RPUSH", "q", "x")
	ctl.do("+QUEUED\r\n", "DEL", "q")
	ctl.do("*2\r\n:1\r\n:1\r\n", "EXEC")
	ctl.waitBlocked(3)
	ctl.do(":1\r\n", "RPUSH", "q", "only")
	a.expect(bulks("q", "only"))
	ctl.waitBlocked(2) // b lost the wake-up to a: parked still
	ctl.do(":2\r\n", "RPUSH", "q", "y1", "y2")
	b.expect("*2\r\n$1\r\nq\r\n" + bulks("y1", "y2"))
	ctl.waitBlocked(1)
	ctl.do(":1\r\n", "ZADD", "q", "1", "m")
	z.expect("*3\r\n$1\r\nq\r\n$1\r\nm\r\n$1\r\n1\r\n")
}

// TestBlockMoveChain: BLMOVE's element, pushed onto a key another client
// waits on, serves that client in the same turn; a destination of another
// type answers WRONGTYPE and the element stays where it was.
func TestBlockMoveChain(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	a, b, c := bdial(t, p), bdial(t, p), bdial(t, p)
	b.send("BLPOP", "done", "0")
	ctl.waitBlocked(1)
	a.send("BLMOVE", "todo", "done", "LEFT", "RIGHT", "0")
	ctl.waitBlocked(2)
	ctl.do("+OK\r\n", "SET", "str", "x")
	c.send("BRPOPLPUSH", "todo", "str", "0")
	ctl.waitBlocked(3)
	ctl.do(":2\r\n", "RPUSH", "todo", "t1", "t2")
	a.expect("$2\r\nt1\r\n")
	b.expect(bulks("done", "t1"))
	c.expect("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
	ctl.do(bulks("t2"), "LRANGE", "todo", "0", "-1")
	ctl.do(":0\r\n", "EXISTS", "done")
}

// TestBlockTimeout: a timeout answers a null array, not before it is due
// (the loop's timers count whole milliseconds); 0 waits for ever, until
// CLIENT UNBLOCK, which can also answer an error.
func TestBlockTimeout(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	a := bdial(t, p)
	for _, cmd := range [][]string{
		{"BLPOP", "none", "0.25"},
		{"BRPOPLPUSH", "none", "dst", "0.25"}, // a null array too, as Redis 7.0
		{"BZMPOP", "0.25", "1", "none", "MIN"},
	} {
		start := time.Now()
		a.do("*-1\r\n", cmd...)
		if took := time.Since(start); took < 249*time.Millisecond {
			t.Errorf("%q timed out after %v, before its 250 ms", cmd, took)
		}
	}
	a.send("CLIENT", "ID")
	id := strings.TrimSpace(a.read())[1:]
	a.send("BLPOP", "none", "0")
	ctl.waitBlocked(1)
	ctl.send("CLIENT", "LIST", "ID", id)
	if line := ctl.read(); !strings.Contains(line, " flags=b ") || !strings.Contains(line, " cmd=blpop ") {
		t.Errorf("CLIENT LIST of a parked client: %q, want flags=b and cmd=blpop", line)
	}
	ctl.do(":1\r\n", "CLIENT", "UNBLOCK", id)
	a.expect("*-1\r\n")
	a.send("BLPOP", "none", "0")
	ctl.waitBlocked(1)
	ctl.do(":1\r\n", "CLIENT", "UNBLOCK", id, "ERROR")
	a.expect("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n")
	ctl.do(":0\r\n", "CLIENT", "UNBLOCK", id)
	ctl.do(":0\r\n", "EXISTS", "none", "dst")
}

// TestBlockInMulti: inside a transaction nothing waits: a blocking pop
// of empty keys answers at once, a null array (BRPOPLPUSH and BLMOVE: a
// null bulk string), and one of a key with elements pops.
func TestBlockInMulti(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	a := bdial(t, p)
	a.do(":1\r\n", "RPUSH", "q", "x")
	a.do("+OK\r\n", "MULTI")
	for _, cmd := range [][]string{
		{"BLPOP", "q", "0"}, {"BLPOP", "q", "0"}, {"BRPOPLPUSH", "q", "d", "0"},
		{"BLMOVE", "q", "d", "LEFT", "LEFT", "0"}, {"BLMPOP", "0", "1", "q", "LEFT"}, {"BZPOPMAX", "q", "0"},
	} {
		a.do("+QUEUED\r\n", cmd...)
	}
	a.do("*6\r\n"+bulks("q", "x")+"*-1\r\n$-1\r\n$-1\r\n*-1\r\n*-1\r\n", "EXEC")
}

// TestBlockDisconnect: a parked client that hangs up waits no more: the
// next push stays in the list. One parked on many keys leaves their
// queues over the loop's turns; meanwhile a push to one of them finds it
// gone, and serves the next client.
func TestBlockDisconnect(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	a := bdial(t, p)
	a.send("BLPOP", "q", "0")
	ctl.waitBlocked(1)
	a.c.Close()
	ctl.waitBlocked(0)
	ctl.do(":1\r\n", "RPUSH", "q", "kept")
	ctl.do(bulks("kept"), "LRANGE", "q", "0", "-1")

	wide := []string{"BLPOP"}
	for k := range 20000 {
		wide = append(wide, fmt.Sprint("w", k))
	}
	b, c := bdial(t, p), bdial(t, p)
	b.send(append(wide, "0")...)
	ctl.waitBlocked(1)
	c.send("BLPOP", "w19999", "0")
	ctl.waitBlocked(2)
	b.c.Close()
	ctl.waitBlocked(1)
	ctl.do(":1\r\n", "RPUSH", "w19999", "x")
	c.expect(bulks("w19999", "x"))
	ctl.do(":1\r\n", "RPUSH", "w0", "kept")
	ctl.do(":1\r\n", "LLEN", "w0")
}

// TestBlockLogged: under appendfsync always, the pops that served parked
// clients are in the log as pops (LPOP, LMOVE, ZPOPMIN...), never as the
// blocking commands, and after kill -9 the log replays to the same data.
func TestBlockLogged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, _ := startAOF(t, dir, "always")
	ctl := bdial(t, p)
	a, b, c := bdial(t, p), bdial(t, p), bdial(t, p)
	a.send("BLPOP", "q", "0")
	ctl.waitBlocked(1)
	b.send("BLMOVE", "q", "d", "RIGHT", "LEFT", "0")
	ctl.waitBlocked(2)
	c.send("BZPOPMIN", "z", "0")
	ctl.waitBlocked(3)
	ctl.do(":3\r\n", "RPUSH", "q", "x", "y", "z")
	ctl.do(":2\r\n", "ZADD", "z", "1", "a", "2", "b")
	a.expect(bulks("q", "x"))
	b.expect("$1\r\nz\r\n")
	c.expect("*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n")
	ctl.do("*2\r\n$1\r\nq\r\n"+bulks("y"), "LMPOP", "1", "q", "LEFT", "COUNT", "1") // x went to a, z to d
	p.Kill()

	log, err := os.ReadFile(filepath.Join(dir, "appendonly.aof"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"$4\r\nLPOP\r\n$1\r\nq\r\n", "$5\r\nLMOVE\r\n$1\r\nq\r\n$1\r\nd\r\n$5\r\nRIGHT\r\n$4\r\nLEFT\r\n", "$7\r\nZPOPMIN\r\n$1\r\nz\r\n", "$4\r\nLPOP\r\n$1\r\nq\r\n$1\r\n1\r\n"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log has no %q:\n%q", want, log)
		}
	}
	for _, blocking := range []string{"BLPOP", "BLMOVE", "BZPOPMIN", "LMPOP"} {
		if strings.Contains(strings.ToUpper(string(log)), "\r\n"+blocking+"\r\n") {
			t.Errorf("the log has a %s:\n%q", blocking, log)
		}
	}
	p2, _ := startAOF(t, dir, "always")
	r := bdial(t, p2)
	r.do("*0\r\n", "LRANGE", "q", "0", "-1")
	r.do(bulks("z"), "LRANGE", "d", "0", "-1")
	r.do(bulks("b", "2"), "ZRANGE", "z", "0", "-1", "WITHSCORES")
}

// TestBlockManyServedInTurns: one push that serves 500 clients, each
// parked on 300 keys, is more than one turn's work: the rest are served
// on the loop's next turns, each in the order parked, one element each.
func TestBlockManyServedInTurns(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	const n, width = 500, 300
	args := []string{"BLPOP"}
	for k := range width - 1 {
		args = append(args, fmt.Sprint("other", k))
	}
	args = append(args, "q", "0")
	push := []string{"RPUSH", "q"}
	w := make([]*bclient, n)
	for i := range w {
		w[i] = bdial(t, p)
		w[i].send(args...)
		push = append(push, fmt.Sprint("e", i))
		if i%100 == 99 {
			ctl.waitBlocked(i + 1)
		}
	}
	ctl.waitBlocked(n)
	ctl.do(fmt.Sprintf(":%d\r\n", n), push...)
	for i, c := range w {
		c.expect(bulks("q", fmt.Sprint("e", i)))
	}
	ctl.waitBlocked(0)
	ctl.do(":0\r\n", "EXISTS", "q")
}

// TestBlockParkedInputBounded: a parked client that keeps sending is read
// only into the buffer it has (its requests wait in the kernel), and once
// served it answers every one of them.
func TestBlockParkedInputBounded(t *testing.T) {
	t.Parallel()
	p := testkit.StartTestServer(t)
	ctl := bdial(t, p)
	a := bdial(t, p)
	a.send("CLIENT", "ID")
	id := strings.TrimSpace(a.read())[1:]
	a.send("BLPOP", "q", "0")
	ctl.waitBlocked(1)
	const pings = 100_000 // 1.4 MB
	go func() {
		io.WriteString(a.c, strings.Repeat("*1\r\n$4\r\nPING\r\n", pings))
	}()
	// Its read buffer stays at its usual 16 KiB however much it sends.
	for range 20 {
		ctl.send("CLIENT", "LIST", "ID", id)
		line := ctl.read()
		if !strings.Contains(line, " rbs=16384 ") && !strings.Contains(line, " rbs=0 ") {
			t.Fatalf("a parked client's read buffer grew: %q", line)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctl.do(":1\r\n", "RPUSH", "q", "x")
	a.expect(bulks("q", "x"))
	for i := range pings {
		if got := a.read(); got != "+PONG\r\n" {
			t.Fatalf("reply %d after the pop: %q", i, got)
		}
	}
}
