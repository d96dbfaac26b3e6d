package suites

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"example.com/byor/tools/internal/chapters"
)

// These tests put a server under many clients at once, several of them
// hostile. They run against every chapter from ch06 on: ch06 is where one
// event loop starts serving every client at once, while the servers of
// ch03 and ch04 serve one connection at a time by design, so a second
// client waits for the first and none of these checks can hold there.

// TestManyConnections holds 1000 connections open at once, far more than
// the book's examples ever see: every one stores its own key and reads it
// back, then reads its neighbour's (so all of them are served from one key
// space while all are open). After they hang up, the server must have
// noticed every one, and still serve a new client all 1000 keys. In ch06,
// whose server only echoes, every request comes back as it was sent.
func TestManyConnections(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	// Each connection costs a descriptor in this process and one in the
	// server. The servers are started below, so they inherit the raised
	// limit.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Max < uint64(2*n+100) {
		t.Skipf("RLIMIT_NOFILE hard limit is %d; %d connections need about %d descriptors", lim.Max, n, 2*n+100)
	}
	orig := lim
	lim.Cur = max(lim.Cur, min(lim.Max, 4096))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })

	for _, ch := range listChapters(t, 6) {
		t.Run(ch.Dir, func(t *testing.T) { manyConnections(t, ch, n) })
	}
}

func manyConnections(t *testing.T, ch chapter, n int) {
	// A long idle timeout: the connections wait for each other between
	// phases, and the default 5s could close them on a slow machine.
	srv := ch.start(t, ch.idleTimeout("2m")...)
	// Starting the server made one connection, to see that it accepts, and
	// hung up: the server logs that as it logs every hang-up.
	probes := waitLogCount(srv, "EOF", 1)
	key := func(i int) string { return fmt.Sprintf("conn:%d", i) }
	val := func(i int) string { return fmt.Sprintf("value of connection %d", i) }

	// all runs f for every connection in parallel and waits for them.
	var errs errList
	all := func(f func(i int) error) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if err := f(i); err != nil {
					errs.add(fmt.Errorf("connection %d: %w", i, err))
				}
			})
		}
		wg.Wait()
	}

	conns := make([]net.Conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	all(func(i int) (err error) {
		conns[i], err = dial(srv.Addr, 30*time.Second)
		return err
	})
	if errs.report(t) {
		t.FailNow()
	}
	all(func(i int) error {
		if _, err := conns[i].Write(concat(ch.req("set", key(i), val(i)), ch.req("get", key(i)))); err != nil {
			return err
		}
		return expect(conns[i], ch.setReply(key(i), val(i)), ch.getReply(key(i), val(i)))
	})
	if errs.report(t) {
		t.FailNow()
	}
	all(func(i int) error {
		j := (i + 1) % n
		if _, err := conns[i].Write(ch.req("get", key(j))); err != nil {
			return err
		}
		return expect(conns[i], ch.getReply(key(j), val(j)))
	})
	if errs.report(t) {
		t.FailNow()
	}
	for i, c := range conns {
		c.Close()
		conns[i] = nil
	}

	// The server logs "EOF" for each client that hung up between requests.
	if got := waitLogCount(srv, "EOF", probes+n); got != probes+n {
		t.Fatalf("server logged %d hang-ups, want %d", got-probes, n)
	}
	c := dialT(t, srv.Addr)
	var batch []byte
	want := make([]string, n)
	for i := range n {
		batch = append(batch, ch.req("get", key(i))...)
		want[i] = ch.getReply(key(i), val(i))
	}
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	got := make([]string, 0, n)
	for range n {
		body, err := readFrame(c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(body))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a new client reading every key (-want +got):\n%s", diff)
	}
}

// Shapes of real commands, of every chapter: K is one of the fuzzer's own
// keys, N a number (often an edge case), F a field or member, V a value, C
// the number of F that follow (usually), and an upper-case word stands for
// itself. Filled in, most are well formed and reach the command code, not
// only the parser, in the chapters that have the command; the others
// answer that it is unknown.
var shapes = []string{
	"get K", "set K V", "del K", "keys", "pexpire K N", "pttl K",
	"zadd K N F", "zrem K F", "zscore K F", "zquery K N F N N",
	"hset K F V", "hset K F V F V", "hget K F", "hdel K F F", "hlen K",
	"hexists K F", "hgetall K", "hpexpire K N FIELDS C F", "hexpire K N NX FIELDS C F F",
	"hpexpireat K N FIELDS C F", "hpersist K FIELDS C F", "httl K FIELDS C F",
	"hpttl K FIELDS C F F", "hpexpiretime K FIELDS C F", "hsetex K PX N FIELDS C F V F V",
	"hsetex K FNX KEEPTTL FIELDS C F V", "hgetex K PERSIST FIELDS C F", "hgetex K EX N FIELDS C F",
}

// Numbers at the edges of what the commands parse.
var numbers = []string{
	"0", "1", "-1", "2", "3", "10", "100", "1.5", "-2.5", "nan", "inf", "-inf", "1e308",
	"4102444800", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
	"", "abc", "1x", " 1",
}

// A fuzzer is one goroutine of TestRandomBytesFromManyClients: it owns the
// keys prefixed with its name, so nothing it sends can touch the
// bystander's keys.
type fuzzer struct {
	id       int
	ch       chapter
	rng      *rand.Rand
	addr     string
	deadline time.Duration // for each connection, from dial to close
	stats    *fuzzStats
}

// fuzzStats counts what the fuzzers saw, to show that they reached the
// server's command code and not only its framing checks.
type fuzzStats struct {
	replies, checked atomic.Int64
}

func (f *fuzzer) randBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(f.rng.Uint32())
	}
	return b
}

// command fills in a random shape, now and then with a word swapped for
// random bytes or a word dropped or added.
func (f *fuzzer) command() []string {
	var cmd []string
	shape := strings.Fields(shapes[f.rng.IntN(len(shapes))])
	for i, w := range shape {
		switch w {
		case "C":
			if f.rng.IntN(5) == 0 {
				w = numbers[f.rng.IntN(len(numbers))]
			} else {
				w = fmt.Sprint(count(shape[i:], "F"))
			}
		case "K":
			w = fmt.Sprintf("fz%d:k%d", f.id, f.rng.IntN(6))
		case "N":
			w = numbers[f.rng.IntN(len(numbers))]
		case "F":
			w = fmt.Sprintf("f%d", f.rng.IntN(4))
		case "V":
			w = string(f.randBytes(f.rng.IntN(8)))
		}
		cmd = append(cmd, w)
	}
	switch f.rng.IntN(10) {
	case 0:
		cmd[f.rng.IntN(len(cmd))] = string(f.randBytes(f.rng.IntN(12)))
	case 1:
		cmd = cmd[:f.rng.IntN(len(cmd))+1]
	case 2:
		cmd = append(cmd, numbers[f.rng.IntN(len(numbers))])
	}
	return cmd
}

// count counts the words equal to w.
func count(words []string, w string) int {
	n := 0
	for _, x := range words {
		if x == w {
			n++
		}
	}
	return n
}

// plausibleFrame is a frame that is usually a well-formed command with odd
// arguments, and sometimes subtly broken: a wrong string count, a string
// length off by a little, trailing bytes, a header that lies. (In ch06 the
// body is only bytes to echo, but the lying header still counts.)
func (f *fuzzer) plausibleFrame() []byte {
	cmd := f.command()
	count := uint32(len(cmd))
	switch f.rng.IntN(40) {
	case 0:
		count = f.rng.Uint32()
	case 1:
		count = 1025
	case 2:
		count = uint32(f.rng.IntN(len(cmd) + 2))
	}
	body := le32(count)
	for _, s := range cmd {
		n := uint32(len(s))
		if f.rng.IntN(60) == 0 {
			n += uint32(f.rng.IntN(7)) - 3 // may wrap around: a huge length
		}
		body = append(body, le32(n)...)
		body = append(body, s...)
	}
	if f.rng.IntN(40) == 0 {
		body = append(body, f.randBytes(1+f.rng.IntN(5))...)
	}
	hdr := uint32(len(body))
	switch f.rng.IntN(40) {
	case 0:
		hdr = uint32(f.rng.IntN(4097))
	case 1:
		hdr = 4097 + f.rng.Uint32N(1<<20)
	}
	return append(le32(hdr), body...)
}

// round opens one connection, sends one random mix of bytes, and reads
// until the server closes it. Every reply must be one well-formed value,
// and the replies to the known-good requests at the front must be right.
func (f *fuzzer) round(r int) error {
	c, err := dial(f.addr, f.deadline)
	if err != nil {
		return err
	}
	defer c.Close()

	var send []byte
	var want []string // replies to the requests at the front of send
	mode := f.rng.IntN(4)
	switch mode {
	case 0: // garbage
		send = f.randBytes(1 + f.rng.IntN(3000))
	case 1, 2: // plausible frames; in mode 2, hang up without reading
		for range 1 + f.rng.IntN(8) {
			send = append(send, f.plausibleFrame()...)
		}
	case 3: // good requests, then garbage or plausible frames
		for j := range 1 + f.rng.IntN(5) {
			k := fmt.Sprintf("fz%d:ok:%d:%d", f.id, r, j)
			v := string(f.randBytes(f.rng.IntN(50)))
			send = append(send, concat(f.ch.req("set", k, v), f.ch.req("get", k))...)
			want = append(want, f.ch.setReply(k, v), f.ch.getReply(k, v))
		}
		if f.rng.IntN(2) == 0 {
			send = append(send, f.randBytes(1+f.rng.IntN(100))...)
		} else {
			send = append(send, f.plausibleFrame()...)
		}
	}

	// Write in random pieces, from another goroutine so that a server
	// blocked writing replies to us is never also blocked on us reading.
	// The pieces are cut here, so that the random sequence, and with it
	// every later round, does not depend on when the server hangs up.
	var pieces [][]byte
	for rest := send; len(rest) > 0; {
		n := 1 + f.rng.IntN(len(rest))
		pieces, rest = append(pieces, rest[:n]), rest[n:]
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for _, p := range pieces {
			if _, err := c.Write(p); err != nil {
				return // the server hung up, which it may
			}
		}
		if mode == 2 {
			c.Close()
		} else {
			c.(*net.TCPConn).CloseWrite()
		}
	}()
	if mode == 2 {
		<-wrote
		return nil
	}
	defer func() { c.Close(); <-wrote }()

	for i := 0; ; i++ {
		body, err := readFrame(c)
		var ne net.Error
		switch {
		case errors.Is(err, io.EOF):
			return nil // closed between replies (a partial reply is io.ErrUnexpectedEOF)
		case errors.Is(err, syscall.ECONNRESET):
			// Closing with our bytes unread resets the connection, and a
			// reset may drop a reply still in the server's send queue.
			return nil
		case errors.As(err, &ne) && ne.Timeout():
			// We stopped sending and half-closed: a server that neither
			// answers nor hangs up within the deadline has stalled.
			return fmt.Errorf("mode %d, reply %d: the server neither replied nor closed the connection: %w", mode, i, err)
		case err != nil:
			return fmt.Errorf("mode %d, reply %d: %w", mode, i, err)
		}
		if err := f.ch.checkReply(body); err != nil {
			return fmt.Errorf("mode %d, reply %d %q: %w", mode, i, body, err)
		}
		f.stats.replies.Add(1)
		if i < len(want) {
			if string(body) != want[i] {
				return fmt.Errorf("mode %d, reply %d is %q, want %q", mode, i, body, want[i])
			}
			f.stats.checked.Add(1)
		}
	}
}

// TestRandomBytesFromManyClients: clients sending random bytes, random
// frames that look nearly right, and good requests followed by garbage may
// only ever harm their own connections. A bystander storing and reading
// keys throughout must get every answer right, its data must be intact
// afterwards, and the server must still serve and exit cleanly.
func TestRandomBytesFromManyClients(t *testing.T) {
	for _, ch := range listChapters(t, 6) {
		t.Run(ch.Dir, func(t *testing.T) { randomBytesFromManyClients(t, ch) })
	}
}

func randomBytesFromManyClients(t *testing.T, ch chapter) {
	fuzzers, rounds := 8, 200
	if testing.Short() {
		fuzzers, rounds = 4, 40
	}
	srv := ch.start(t)
	bystander := dialT(t, srv.Addr)
	stored := map[string]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100 {
		k := fmt.Sprintf("bystander:%d", i)
		v := make([]byte, rng.IntN(200))
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		stored[k] = string(v)
		if err := exchange(bystander, ch.req("set", k, string(v)), ch.setReply(k, string(v))); err != nil {
			t.Fatal(err)
		}
	}

	var (
		errs  errList
		wg    sync.WaitGroup
		stats fuzzStats
		stop  = make(chan struct{})
	)
	for id := range fuzzers {
		f := &fuzzer{id: id, ch: ch, rng: rand.New(rand.NewPCG(uint64(id), 42)), addr: srv.Addr, deadline: 10 * time.Second, stats: &stats}
		wg.Go(func() {
			for r := range rounds {
				select {
				case <-stop:
					return
				default:
				}
				if err := f.round(r); err != nil {
					errs.add(fmt.Errorf("fuzzer %d round %d: %w", f.id, r, err))
					return
				}
			}
		})
	}
	fuzzing := make(chan struct{})
	go func() { wg.Wait(); close(fuzzing) }()

	// The bystander works until the fuzzers are done. The caps only bound
	// the loop should they not finish: every read and write of theirs has
	// a deadline, and the first one missed ends that fuzzer.
	const fuzzTime = 60 * time.Second
	var bystanderErr error
	timedOut := false
	ops := 0
loop:
	for start := time.Now(); ops < 1_000_000; ops++ {
		select {
		case <-fuzzing:
			break loop
		default:
		}
		if time.Since(start) > fuzzTime {
			timedOut = true
			break
		}
		bystander.SetDeadline(time.Now().Add(10 * time.Second))
		k, v := fmt.Sprintf("bystander:live:%d", ops%50), fmt.Sprint("op ", ops)
		old := fmt.Sprintf("bystander:%d", ops%100)
		// One request per round trip: replies to a pipeline would wait on
		// Nagle's algorithm, and the bystander should be as busy as it can.
		if err := exchange(bystander, ch.req("set", k, v), ch.setReply(k, v)); err != nil {
			bystanderErr = fmt.Errorf("bystander op %d: %w", ops, err)
			break
		}
		if err := exchange(bystander, ch.req("get", k), ch.getReply(k, v)); err != nil {
			bystanderErr = fmt.Errorf("bystander op %d: %w", ops, err)
			break
		}
		if err := exchange(bystander, ch.req("get", old), ch.getReply(old, stored[old])); err != nil {
			bystanderErr = fmt.Errorf("bystander op %d: %w", ops, err)
			break
		}
	}
	close(stop)
	<-fuzzing
	errs.report(t)
	if bystanderErr != nil {
		t.Fatal(bystanderErr)
	}
	if timedOut {
		t.Fatalf("the fuzzers had not finished after %v", fuzzTime)
	}
	t.Logf("fuzzers: %d well-formed replies, %d of them to good requests checked exactly; bystander: %d x 3 round trips meanwhile",
		stats.replies.Load(), stats.checked.Load(), ops)

	bystander.SetDeadline(time.Now().Add(10 * time.Second))
	got := map[string]string{}
	for k, v := range stored {
		if _, err := bystander.Write(ch.req("get", k)); err != nil {
			t.Fatal(err)
		}
		body, err := readFrame(bystander)
		if err != nil {
			t.Fatal(err)
		}
		// Keep what came back where the value should be, so a diff shows it.
		got[k] = v
		if string(body) != ch.getReply(k, v) {
			got[k] = fmt.Sprintf("reply %q", body)
		}
	}
	if diff := cmp.Diff(stored, got); diff != "" {
		t.Errorf("bystander's keys after the fuzzing (-want +got):\n%s", diff)
	}
	fresh := dialT(t, srv.Addr)
	if err := exchange(fresh, ch.req("set", "after", "fuzzing"), ch.setReply("after", "fuzzing")); err != nil {
		t.Fatal(err)
	}
	if err := exchange(fresh, ch.req("get", "after"), ch.getReply("after", "fuzzing")); err != nil {
		t.Fatal(err)
	}
}

// TestBadInputParallel sends bad inputs from many connections at once, all
// written at the same moment: each offender gets the replies it is owed and
// is closed, the server logs one line per offender, and a bystander is
// served correctly throughout. Bad framing applies from ch06; bad requests
// (string counts and lengths) from ch07, where requests become lists of
// strings.
func TestBadInputParallel(t *testing.T) {
	for _, ch := range listChapters(t, 6) {
		t.Run(ch.Dir, func(t *testing.T) { badInputParallel(t, ch) })
	}
}

func badInputParallel(t *testing.T, ch chapter) {
	type badInput struct {
		name    string
		send    []byte
		replies []string
		log     string
		hangUp  bool
		lists   bool // needs requests that are lists of strings (ch07 on)
	}
	tests := []badInput{
		{name: "length above k_max_msg", send: le32(4097), log: "too long"},
		{name: "nstr above k_max_args", send: frame(string(le32(1025))), log: "bad req: too many strings: 1025 above 1024", lists: true},
		{
			name:  "string length running past the message",
			send:  frame(string(concat(le32(1), le32(10), []byte("short")))),
			log:   "bad req: string runs past the end of the request",
			lists: true,
		},
		{
			name:  "fewer strings than nstr",
			send:  frame(string(concat(le32(2), le32(3), []byte("get")))),
			log:   "bad req: string runs past the end of the request",
			lists: true,
		},
		{name: "body shorter than nstr", send: frame("ab"), log: "bad req: string runs past the end of the request", lists: true},
		{
			name:  "trailing bytes after the last string",
			send:  frame(string(concat(le32(1), le32(3), []byte("get"), []byte("junk")))),
			log:   "bad req: trailing bytes after the last string",
			lists: true,
		},
		{
			name:    "valid request then bad frame in one write",
			send:    concat(ch.req("get", "k"), le32(1<<31)),
			replies: []string{ch.getReply("k", "v")},
			log:     "too long",
		},
		{
			name:    "valid request then bad request in one write",
			send:    concat(ch.req("get", "k"), frame(string(concat(le32(1), le32(1<<20))))),
			replies: []string{ch.getReply("k", "v")},
			log:     "bad req: string runs past the end of the request",
			lists:   true,
		},
		{name: "truncated request then EOF", send: ch.req("set", "k", "v")[:9], log: "unexpected EOF", hangUp: true},
		{name: "disconnect inside the header", send: []byte{9, 0}, log: "unexpected EOF", hangUp: true},
	}
	if ch.Protocol().TextMessages() {
		framing := tests[:0]
		for _, tt := range tests {
			if !tt.lists {
				framing = append(framing, tt)
			}
		}
		tests = framing
	}
	workers, rounds := 8, 3
	if testing.Short() {
		workers, rounds = 4, 1
	}
	// A long idle timeout, so that only the bad input can be what closes
	// an offender's connection.
	srv := ch.start(t, ch.idleTimeout("2m")...)
	bystander := dialT(t, srv.Addr)
	if err := exchange(bystander, ch.req("set", "k", "v"), ch.setReply("k", "v")); err != nil {
		t.Fatal(err)
	}

	var errs errList
	wantLog := map[string]int{}
	for r := range rounds {
		bystander.SetDeadline(time.Now().Add(10 * time.Second))
		// Connect every offender first, then let them all write at once.
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			for _, tt := range tests {
				wantLog[tt.log]++
				c, err := dial(srv.Addr, 10*time.Second)
				if err != nil {
					close(start)
					wg.Wait()
					t.Fatal(err)
				}
				wg.Go(func() {
					defer c.Close()
					<-start
					err := func() error {
						if _, err := c.Write(tt.send); err != nil {
							return err
						}
						if err := expect(c, tt.replies...); err != nil {
							return err
						}
						if tt.hangUp {
							return nil
						}
						return expectClosed(c)
					}()
					if err != nil {
						errs.add(fmt.Errorf("round %d, worker %d, %s: %w", r, w, tt.name, err))
					}
				})
			}
		}
		close(start)
		for i := range 20 {
			if err := exchange(bystander, ch.req("get", "k"), ch.getReply("k", "v")); err != nil {
				errs.add(fmt.Errorf("round %d, bystander request %d: %w", r, i, err))
				break
			}
		}
		wg.Wait()
		if errs.report(t) {
			t.FailNow()
		}
	}

	gotLog := map[string]int{}
	for line, n := range wantLog {
		gotLog[line] = waitLogCount(srv, line, n)
	}
	if diff := cmp.Diff(wantLog, gotLog); diff != "" {
		t.Errorf("server log lines (-want +got):\n%s", diff)
	}
	bystander.SetDeadline(time.Now().Add(10 * time.Second))
	if err := exchange(bystander, ch.req("get", "k"), ch.getReply("k", "v")); err != nil {
		t.Fatal(err)
	}
}

// TestFuzzerFailsOnStall: a server that takes the fuzzer's bytes but never
// answers nor hangs up has stalled, and the round says so rather than
// passing. The stand-in server holds every connection open unread.
func TestFuzzerFailsOnStall(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var (
		mu   sync.Mutex
		held []net.Conn
	)
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	var stats fuzzStats
	f := &fuzzer{ch: chapter{&chapters.Info{Dir: "stalling", Num: 99, Protocols: []chapters.Protocol{chapters.Tagged11}}}, rng: rand.New(rand.NewPCG(7, 7)),
		addr: l.Addr().String(), deadline: 200 * time.Millisecond, stats: &stats}
	stalls := 0
	// Rounds that hang up without reading (one mode in four) pass; with
	// this seed most of the 12 rounds read.
	for r := range 12 {
		err := f.round(r)
		if err == nil {
			continue
		}
		if !strings.Contains(err.Error(), "neither replied nor closed") {
			t.Fatalf("round %d: %v; want a stall reported", r, err)
		}
		stalls++
	}
	if stalls == 0 {
		t.Fatal("no round reported the stall")
	}
}
