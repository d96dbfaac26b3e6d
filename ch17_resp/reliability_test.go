package chapter_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// These tests put the server under many clients at once, several of them
// hostile. They run the connections in goroutines, where t.Fatal is not
// allowed, so the helpers below return errors instead of failing the test.

// rlDial connects to addr with every read and write bounded by timeout.
func rlDial(addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(timeout))
	return c, nil
}

// rlReadFrame reads one framed reply and returns its body.
func rlReadFrame(c net.Conn) ([]byte, error) {
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

// rlExpect reads len(want) replies and checks each.
func rlExpect(c net.Conn, want ...string) error {
	for i, w := range want {
		body, err := rlReadFrame(c)
		if err != nil {
			return fmt.Errorf("reply %d: %w", i, err)
		}
		if string(body) != w {
			return fmt.Errorf("reply %d is %q, want %q", i, body, w)
		}
	}
	return nil
}

// rlExchange sends one command and checks the reply.
func rlExchange(c net.Conn, cmd []string, want string) error {
	if _, err := c.Write(req(cmd...)); err != nil {
		return err
	}
	if err := rlExpect(c, want); err != nil {
		return fmt.Errorf("%q: %w", cmd, err)
	}
	return nil
}

// rlExpectClosed checks that the server closes c without sending more.
func rlExpectClosed(c net.Conn) error {
	n, err := c.Read(make([]byte, 1))
	if n != 0 || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		return fmt.Errorf("read = %d, %v; want the connection closed", n, err)
	}
	return nil
}

// rlCheckValue consumes one serialized value (nil, err, str, int, dbl or
// arr, as package proto writes them) from the front of b and returns the
// rest.
func rlCheckValue(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errors.New("value missing")
	}
	need := func(n int) error {
		if len(b) < n {
			return fmt.Errorf("type %d value needs %d bytes, has %d", b[0], n, len(b))
		}
		return nil
	}
	switch b[0] {
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
			if rest, err = rlCheckValue(rest); err != nil {
				return nil, err
			}
		}
		return rest, nil
	}
	return nil, fmt.Errorf("unknown type tag %d", b[0])
}

// rlErrors collects the errors of many goroutines and reports a few.
type rlErrors struct {
	mu   sync.Mutex
	errs []error
}

func (e *rlErrors) add(err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

func (e *rlErrors) report(t *testing.T) {
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
}

// rlWaitLogCount waits up to 10s until the server's stderr has at least
// want lines equal to line, and returns how many it has.
func rlWaitLogCount(srv *serverProcess, line string, want int) int {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(line) + `$`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := len(re.FindAllStringIndex(srv.stderr.String(), -1))
		if got >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestManyConnections holds 1000 connections open at once, far more than
// the book's examples ever see: every one stores its own key and reads it
// back, then reads its neighbour's (so all of them are served from one key
// space while all are open). After they hang up, the server must have
// noticed every one, and still serve a new client all 1000 keys.
func TestManyConnections(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	// Each connection costs a descriptor in this process and one in the
	// server. The server is started below, so it inherits the raised limit.
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

	// A long idle timeout: the connections wait for each other between
	// phases, and the default 5s could close them on a slow machine.
	srv := startTestServer(t, "-idle-timeout", "2m")
	key := func(i int) string { return fmt.Sprintf("conn:%d", i) }
	val := func(i int) string { return fmt.Sprintf("value of connection %d", i) }

	// all runs f for every connection in parallel and waits for them.
	var errs rlErrors
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
		conns[i], err = rlDial(srv.Addr, 30*time.Second)
		return err
	})
	if errs.report(t); t.Failed() {
		t.FailNow()
	}
	all(func(i int) error {
		if _, err := conns[i].Write(concat(req("set", key(i), val(i)), req("get", key(i)))); err != nil {
			return err
		}
		return rlExpect(conns[i], serNil(), serStr(val(i)))
	})
	if errs.report(t); t.Failed() {
		t.FailNow()
	}
	all(func(i int) error {
		j := (i + 1) % n
		if _, err := conns[i].Write(req("get", key(j))); err != nil {
			return err
		}
		return rlExpect(conns[i], serStr(val(j)))
	})
	if errs.report(t); t.Failed() {
		t.FailNow()
	}
	for i, c := range conns {
		c.Close()
		conns[i] = nil
	}

	// The server logs "EOF" for each client that hung up between requests.
	if got := rlWaitLogCount(srv, "EOF", n); got != n {
		t.Fatalf("server logged %d hang-ups, want %d", got, n)
	}
	c := dialRaw(t, srv.Addr)
	var batch []byte
	want := make([]string, n)
	for i := range n {
		batch = append(batch, req("get", key(i))...)
		want[i] = serStr(val(i))
	}
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	got := make([]string, 0, n)
	for range n {
		body, err := rlReadFrame(c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(body))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a new client reading every key (-want +got):\n%s", diff)
	}
}

// Shapes of real commands, of this chapter and of others: K is one of the
// fuzzer's own keys, N a number (often an edge case), F a field or member,
// V a value, C the number of F that follow (usually), and an upper-case
// word stands for itself. Filled in, most are well formed and reach the
// command code, not only the parser.
var rlShapes = []string{
	"get K", "set K V", "del K", "keys", "pexpire K N", "pttl K",
	"zadd K N F", "zrem K F", "zscore K F", "zquery K N F N N",
	"hset K F V", "hset K F V F V", "hget K F", "hdel K F F", "hlen K",
	"hexists K F", "hgetall K", "hpexpire K N FIELDS C F", "hexpire K N NX FIELDS C F F",
	"hpexpireat K N FIELDS C F", "hpersist K FIELDS C F", "httl K FIELDS C F",
	"hpttl K FIELDS C F F", "hpexpiretime K FIELDS C F", "hsetex K PX N FIELDS C F V F V",
	"hsetex K FNX KEEPTTL FIELDS C F V", "hgetex K PERSIST FIELDS C F", "hgetex K EX N FIELDS C F",
}

// Numbers at the edges of what the commands parse.
var rlNumbers = []string{
	"0", "1", "-1", "2", "3", "10", "100", "1.5", "-2.5", "nan", "inf", "-inf", "1e308",
	"4102444800", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
	"", "abc", "1x", " 1",
}

// rlFuzzer is one goroutine of TestRandomBytesFromManyClients: it owns the
// keys prefixed with its name, so nothing it sends can touch the
// bystander's keys.
type rlFuzzer struct {
	id    int
	rng   *rand.Rand
	addr  string
	stats *rlStats
}

// rlStats counts what the fuzzers saw, to show that they reached the
// server's command code and not only its framing checks.
type rlStats struct {
	replies, checked, timeouts atomic.Int64
}

func (f *rlFuzzer) randBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(f.rng.Uint32())
	}
	return b
}

// command fills in a random shape, now and then with a word swapped for
// random bytes or a word dropped or added.
func (f *rlFuzzer) command() []string {
	var cmd []string
	shape := strings.Fields(rlShapes[f.rng.IntN(len(rlShapes))])
	for i, w := range shape {
		switch w {
		case "C":
			if f.rng.IntN(5) == 0 {
				w = rlNumbers[f.rng.IntN(len(rlNumbers))]
			} else {
				w = fmt.Sprint(rlCount(shape[i:], "F"))
			}
		case "K":
			w = fmt.Sprintf("fz%d:k%d", f.id, f.rng.IntN(6))
		case "N":
			w = rlNumbers[f.rng.IntN(len(rlNumbers))]
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
		cmd = append(cmd, rlNumbers[f.rng.IntN(len(rlNumbers))])
	}
	return cmd
}

// rlCount counts the words equal to w.
func rlCount(words []string, w string) int {
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
// length off by a little, trailing bytes, a header that lies.
func (f *rlFuzzer) plausibleFrame() []byte {
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
func (f *rlFuzzer) round(r int) error {
	c, err := rlDial(f.addr, 10*time.Second)
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
			send = append(send, concat(req("set", k, v), req("get", k))...)
			want = append(want, serNil(), serStr(v))
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
		body, err := rlReadFrame(c)
		var ne net.Error
		switch {
		case errors.Is(err, io.EOF):
			return nil // closed between replies (a partial reply is io.ErrUnexpectedEOF)
		case errors.Is(err, syscall.ECONNRESET):
			// Closing with our bytes unread resets the connection, and a
			// reset may drop a reply still in the server's send queue.
			return nil
		case errors.As(err, &ne) && ne.Timeout():
			f.stats.timeouts.Add(1)
			return nil
		case err != nil:
			return fmt.Errorf("mode %d, reply %d: %w", mode, i, err)
		}
		rest, err := rlCheckValue(body)
		if err == nil && len(rest) > 0 {
			err = fmt.Errorf("%d bytes after the value", len(rest))
		}
		if err != nil {
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
	fuzzers, rounds := 8, 200
	if testing.Short() {
		fuzzers, rounds = 4, 40
	}
	srv := startTestServer(t)
	bystander := dialRaw(t, srv.Addr)
	stored := map[string]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100 {
		k := fmt.Sprintf("bystander:%d", i)
		v := make([]byte, rng.IntN(200))
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		stored[k] = string(v)
		exchange(t, bystander, serNil(), "set", k, string(v))
	}

	var (
		errs  rlErrors
		wg    sync.WaitGroup
		stats rlStats
		stop  = make(chan struct{})
	)
	for id := range fuzzers {
		f := &rlFuzzer{id: id, rng: rand.New(rand.NewPCG(uint64(id), 42)), addr: srv.Addr, stats: &stats}
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

	// The bystander works until the fuzzers are done; the cap only bounds
	// the loop should they never finish (their deadlines make them).
	var bystanderErr error
	ops := 0
loop:
	for ; ops < 1_000_000; ops++ {
		select {
		case <-fuzzing:
			break loop
		default:
		}
		bystander.SetDeadline(time.Now().Add(10 * time.Second))
		k, v := fmt.Sprintf("bystander:live:%d", ops%50), fmt.Sprint("op ", ops)
		old := fmt.Sprintf("bystander:%d", ops%100)
		// One request per round trip: replies to a pipeline would wait on
		// Nagle's algorithm, and the bystander should be as busy as it can.
		if err := rlExchange(bystander, []string{"set", k, v}, serNil()); err != nil {
			bystanderErr = fmt.Errorf("bystander op %d: %w", ops, err)
			break
		}
		if err := rlExchange(bystander, []string{"get", k}, serStr(v)); err != nil {
			bystanderErr = fmt.Errorf("bystander op %d: %w", ops, err)
			break
		}
		if err := rlExchange(bystander, []string{"get", old}, serStr(stored[old])); err != nil {
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
	t.Logf("fuzzers: %d well-formed replies, %d of them to good requests checked exactly, %d connections hit their deadline; bystander: %d x 3 round trips meanwhile",
		stats.replies.Load(), stats.checked.Load(), stats.timeouts.Load(), ops)

	bystander.SetDeadline(time.Now().Add(10 * time.Second))
	got := map[string]string{}
	for k := range stored {
		if _, err := bystander.Write(req("get", k)); err != nil {
			t.Fatal(err)
		}
		body := readReply(t, bystander)
		if len(body) < 5 || body[0] != 2 {
			t.Fatalf("get %s: reply %q, want a string", k, body)
		}
		got[k] = string(body[5:])
	}
	if diff := cmp.Diff(stored, got); diff != "" {
		t.Errorf("bystander's keys after the fuzzing (-want +got):\n%s", diff)
	}
	fresh := dialRaw(t, srv.Addr)
	exchange(t, fresh, serNil(), "set", "after", "fuzzing")
	exchange(t, fresh, serStr("fuzzing"), "get", "after")
}

// TestBadInputParallel sends TestBadInput's bad inputs from many
// connections at once, all written at the same moment: each offender gets
// the replies it is owed and is closed, the server logs one line per
// offender, and a bystander is served correctly throughout. (The cases
// repeat TestBadInput's table, which is local to that test.)
func TestBadInputParallel(t *testing.T) {
	tests := []struct {
		name    string
		send    []byte
		replies []string
		log     string
		hangUp  bool
	}{
		{name: "length above k_max_msg", send: le32(4097), log: "too long"},
		{name: "nstr above k_max_args", send: frame(string(le32(1025))), log: "bad req: too many strings: 1025 above 1024"},
		{
			name: "string length running past the message",
			send: frame(string(concat(le32(1), le32(10), []byte("short")))),
			log:  "bad req: string runs past the end of the request",
		},
		{
			name: "fewer strings than nstr",
			send: frame(string(concat(le32(2), le32(3), []byte("get")))),
			log:  "bad req: string runs past the end of the request",
		},
		{name: "body shorter than nstr", send: frame("ab"), log: "bad req: string runs past the end of the request"},
		{
			name: "trailing bytes after the last string",
			send: frame(string(concat(le32(1), le32(3), []byte("get"), []byte("junk")))),
			log:  "bad req: trailing bytes after the last string",
		},
		{
			name:    "valid request then bad frame in one write",
			send:    concat(req("get", "k"), le32(1<<31)),
			replies: []string{serStr("v")},
			log:     "too long",
		},
		{
			name:    "valid request then bad request in one write",
			send:    concat(req("get", "k"), frame(string(concat(le32(1), le32(1<<20))))),
			replies: []string{serStr("v")},
			log:     "bad req: string runs past the end of the request",
		},
		{name: "truncated request then EOF", send: req("set", "k", "v")[:9], log: "unexpected EOF", hangUp: true},
		{name: "disconnect inside the header", send: []byte{9, 0}, log: "unexpected EOF", hangUp: true},
	}
	workers, rounds := 8, 3
	if testing.Short() {
		workers, rounds = 4, 1
	}
	// A long idle timeout, so that only the bad input can be what closes
	// an offender's connection.
	srv := startTestServer(t, "-idle-timeout", "2m")
	bystander := dialRaw(t, srv.Addr)
	exchange(t, bystander, serNil(), "set", "k", "v")

	var errs rlErrors
	wantLog := map[string]int{}
	for r := range rounds {
		bystander.SetDeadline(time.Now().Add(10 * time.Second))
		// Connect every offender first, then let them all write at once.
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			for _, tt := range tests {
				wantLog[tt.log]++
				c, err := rlDial(srv.Addr, 10*time.Second)
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
						if err := rlExpect(c, tt.replies...); err != nil {
							return err
						}
						if tt.hangUp {
							return nil
						}
						return rlExpectClosed(c)
					}()
					if err != nil {
						errs.add(fmt.Errorf("round %d, worker %d, %s: %w", r, w, tt.name, err))
					}
				})
			}
		}
		close(start)
		for i := range 20 {
			if err := rlExchange(bystander, []string{"get", "k"}, serStr("v")); err != nil {
				errs.add(fmt.Errorf("round %d, bystander request %d: %w", r, i, err))
				break
			}
		}
		wg.Wait()
		if errs.report(t); t.Failed() {
			t.FailNow()
		}
		exchange(t, bystander, serStr("v"), "get", "k")
	}

	gotLog := map[string]int{}
	for line, n := range wantLog {
		gotLog[line] = rlWaitLogCount(srv, line, n)
	}
	if diff := cmp.Diff(wantLog, gotLog); diff != "" {
		t.Errorf("server log lines (-want +got):\n%s", diff)
	}
	bystander.SetDeadline(time.Now().Add(10 * time.Second))
	exchange(t, bystander, serStr("v"), "get", "k")
}
