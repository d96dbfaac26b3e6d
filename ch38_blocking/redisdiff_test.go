package chapter_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/testkit"
	rawresp "example.com/byor/testkit/resp"
)

var diffCommands = flag.Int("redisdiff.n", 4000, "random commands TestRedisDifferential sends, per protocol version (CI: 50,000)")

var diffSeed = flag.Uint64("redisdiff.seed", 17, "seed of TestRedisDifferential's random commands, with the protocol version")

// TestRedisDifferential sends the same random commands, of those this
// chapter lists, to a real redis-server and to the server, and compares
// the raw replies byte for byte. It runs where redis-server is installed
// (Debian: apt-get install redis-server), which CI does; the Redis to
// compare with is 7.0, the version whose score formatting this chapter
// follows. The only differences allowed are the README's: the order of
// KEYS and HGETALL (sorted here before comparing), and how long a TTL is
// (a positive TTL or PTTL compares as "positive"), inside an EXEC's
// array too: transactions are among the random commands, with WATCH on
// the one connection, whose own writes fail its EXEC. The README's limits
// (KEYS refused over 262,144 keys, the bound on all clients' memory) are
// left out: the random commands work on a few dozen keys, small but for
// one value of up to 4 MB, and never reach them. Run more, or other
// commands (CI sends the same ones each time), with
//
//	go test -run TestRedisDifferential -redisdiff.n 100000 -redisdiff.seed 5 example.com/byor/ch38_blocking
func TestRedisDifferential(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server): no differential run against Redis")
	}
	redisAddr := startRedis(t, bin)
	p := testkit.StartTestServer(t, "-idle-timeout", "1h")
	ourAddr, err := respAddr(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, ver := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", ver), func(t *testing.T) {
			redis, ours := diffDial(t, redisAddr, ver), diffDial(t, ourAddr, ver)
			rng := rand.New(rand.NewPCG(uint64(ver), *diffSeed))
			g := &cmdGen{rng: rng}
			differences := 0
			kinds := map[byte]int{} // replies by type, to show what was compared
			const batch = 64        // pipelined, for speed
			for sent := 0; sent < *diffCommands; sent += batch {
				cmds := make([][]string, batch)
				queues := make([][][]string, batch) // what each EXEC runs
				for i := range cmds {
					// Each command is tracked as it is made, so the
					// next one knows the transaction it joins.
					if cmds[i] = g.next(); sent == 0 && i == 0 {
						cmds[i] = []string{"FLUSHALL"}
					}
					queues[i] = g.track(cmds[i])
				}
				want, got := redis.do(t, cmds), ours.do(t, cmds)
				for i, cmd := range cmds {
					kinds[want[i][0]]++
					w, g := normalizeExec(cmd, queues[i], want[i]), normalizeExec(cmd, queues[i], got[i])
					if w != g {
						differences++
						if differences <= 20 {
							t.Errorf("%q:\n redis: %q\n  ours: %q", cmd, want[i], got[i])
						}
					}
				}
			}
			t.Logf("%d random commands in RESP%d, %d replies differ; Redis's replies by type: %d errors, %d simple, %d integers, %d bulk, %d null, %d doubles, %d arrays, %d maps",
				*diffCommands, ver, differences, kinds['-'], kinds['+'], kinds[':'], kinds['$'], kinds['_'], kinds[','], kinds['*'], kinds['%'])
			if differences > 0 {
				t.Fatalf("%d of %d replies differ from Redis's", differences, *diffCommands)
			}
		})
	}
}

// startRedis is runRedis for a whole test: the server is stopped when
// the test ends.
func startRedis(t *testing.T, bin string, args ...string) string {
	t.Helper()
	addr, stop := runRedis(t, bin, args...)
	t.Cleanup(stop)
	return addr
}

// runRedis starts redis-server (bin) on a free loopback port, saving
// nothing, with args after those defaults (of a setting given twice, the
// last counts), and returns its address once it takes connections, and
// the function that stops it. A port chosen by the system, not a fixed
// one, lets tests of several chapters run at once.
func runRedis(t *testing.T, bin string, args ...string) (addr string, stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	// A generous bound on a slow machine; it is usually ready at once.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr, stop
		}
		if time.Now().After(deadline) {
			stop() // its output is all written once it has exited
			t.Fatalf("redis-server did not start on %s: %v\n%s", addr, err, out.String())
		}
	}
}

// diffConn is a RESP connection for the differential test.
type diffConn struct {
	c net.Conn
	r *bufio.Reader
}

func diffDial(t *testing.T, addr string, ver int) *diffConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	d := &diffConn{c, bufio.NewReader(c)}
	d.do(t, [][]string{{"HELLO", strconv.Itoa(ver)}}) // the replies differ (id, version): not compared
	return d
}

// do sends the commands in one write and returns their raw replies.
func (d *diffConn) do(t *testing.T, cmds [][]string) []string {
	t.Helper()
	var req []byte
	for _, cmd := range cmds {
		req = resp.AppendRequest(req, cmd...)
	}
	d.c.SetDeadline(time.Now().Add(60 * time.Second)) // against a hang only
	if _, err := d.c.Write(req); err != nil {
		t.Fatal(err)
	}
	replies := make([]string, len(cmds))
	for i := range cmds {
		raw, err := rawresp.ReadRaw(d.r, nil, maxDiffReply)
		if err != nil {
			t.Fatalf("reading the reply to %q: %v", cmds[i], err)
		}
		replies[i] = string(raw)
	}
	return replies
}

// maxDiffReply bounds a blob or aggregate in a reply the comparison reads,
// far above what its commands make, so that a broken reply is an error
// rather than an allocation without bound.
const maxDiffReply = 64 << 20

// normalize takes out of a reply the differences the README allows: the
// order of KEYS, HGETALL, HKEYS and HVALS, a positive TTL's exact value,
// and INFO's values but the keyspace's counts.
func normalize(cmd []string, reply string) string {
	for _, n := range familyNormalizers {
		if out, ok := n(cmd, reply); ok {
			return out
		}
	}
	name := strings.ToUpper(cmd[0])
	switch {
	case (name == "TTL" || name == "PTTL") && strings.HasPrefix(reply, ":") && !strings.HasPrefix(reply, ":-"):
		// Time left far past any relative TTL's compares by its leading
		// digits, which a few milliseconds between the servers leave
		// alone and a clamped expiry does not.
		if n, err := strconv.ParseInt(reply[1:len(reply)-2], 10, 64); err == nil && n >= 1e15 {
			return ":far-" + strconv.FormatInt(n/1e12, 10)
		}
		return ":positive-or-zero"
	case name == "INFO" && (reply[0] == '$' || reply[0] == '='):
		// The fields' values differ (a pid, a time, memory); which
		// sections come, in what order, and the keyspace's counts don't.
		var kept []string
		for _, line := range strings.Split(reply, "\r\n") {
			if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "db0:") {
				kept = append(kept, line)
			}
		}
		return "INFO:" + avgTTL.ReplaceAllString(strings.Join(kept, "|"), "avg_ttl=")
	case (name == "KEYS" || name == "HGETALL" || name == "HKEYS" || name == "HVALS") && (reply[0] == '*' || reply[0] == '%'):
		r := bufio.NewReader(strings.NewReader(reply))
		header, _ := r.ReadString('\n')
		var elems []string
		for {
			e, err := rawresp.ReadRaw(r, nil, maxDiffReply)
			if err != nil {
				break
			}
			elems = append(elems, string(e))
		}
		if name == "HGETALL" { // sort the pairs, keeping each together
			var pairs []string
			for i := 0; i+1 < len(elems); i += 2 {
				pairs = append(pairs, elems[i]+elems[i+1])
			}
			elems = pairs
		}
		sort.Strings(elems)
		return header + strings.Join(elems, "")
	}
	return reply
}

// familyGens make random commands of one family each (strings, keys,
// hashes, ...), one file per family registering its own; next draws from
// them half the time, and from its own mix the other half.
var familyGens []func(g *cmdGen) []string

// familyNormalizers take out of a reply the differences a family's
// README allows, reporting whether the reply was theirs to normalize.
var familyNormalizers []func(cmd []string, reply string) (string, bool)

// avgTTL is the keyspace's estimate of the average TTL, which Redis makes
// by sampling and this server does not; Redis's is negative once TTLs near
// 2^63 ms overflow its sum.
var avgTTL = regexp.MustCompile(`avg_ttl=-?\d+`)

// normalizeExec is normalize for a reply that may be EXEC's array: each
// element is normalized as the reply of the command queued for it.
func normalizeExec(cmd []string, queue [][]string, reply string) string {
	if queue == nil || !strings.HasPrefix(reply, fmt.Sprintf("*%d\r\n", len(queue))) {
		return normalize(cmd, reply)
	}
	r := bufio.NewReader(strings.NewReader(reply))
	header, _ := r.ReadString('\n')
	out := header
	for _, q := range queue {
		e, err := rawresp.ReadRaw(r, nil, maxDiffReply)
		if err != nil {
			return reply
		}
		out += normalize(q, string(e))
	}
	return out
}

// cmdGen makes random commands of those the chapter lists, on a few keys,
// with arguments chosen among the edge cases of Redis's parsing. It
// follows the transaction it opens with MULTI (inMulti, queue) to end it
// soon, and to know what each EXEC runs.
type cmdGen struct {
	rng     *rand.Rand
	inMulti bool
	queue   [][]string
}

// track follows the transaction through cmd, about to be sent, and
// returns the commands queued if cmd is the EXEC that runs them (nil
// otherwise). Inside MULTI, every command but MULTI, WATCH, EXEC and
// DISCARD is queued or refused; a refused one makes EXEC answer an
// error, not an array, so it does no harm in the list.
func (g *cmdGen) track(cmd []string) [][]string {
	switch name := strings.ToUpper(cmd[0]); {
	case name == "MULTI" && !g.inMulti:
		g.inMulti, g.queue = true, [][]string{}
	case !g.inMulti || name == "MULTI" || name == "WATCH":
	case name == "EXEC" || name == "DISCARD":
		queue := g.queue
		g.inMulti, g.queue = false, nil
		if name == "EXEC" {
			return queue
		}
	default:
		g.queue = append(g.queue, cmd)
	}
	return nil
}

// keysQueued counts the KEYS in a transaction's queue.
func keysQueued(queue [][]string) int {
	n := 0
	for _, cmd := range queue {
		if strings.EqualFold(cmd[0], "KEYS") {
			n++
		}
	}
	return n
}

func (g *cmdGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }

func (g *cmdGen) key() string { return g.pick("k0", "k1", "k2", "k3", "z0", "z1", "h0", "h1") }

func (g *cmdGen) member() string { return g.pick("a", "b", "c", "d", "", "a b", "e") }

func (g *cmdGen) score() string {
	return g.pick("1", "2", "-2.5", "0", "-0", "0.1", "3e2", "1e21", "123456789.123", "1e-5",
		"0x10", "inf", "-inf", "+inf", "Infinity", "nan", "1e400", "-1e400", "1e-400", "1e-310",
		" 1", "1 ", "", "abc", "1.5.5", "(1", "5")
}

func (g *cmdGen) bound() string {
	return g.pick("-inf", "+inf", "inf", "0", "1", "(1", "2", "(2", "-2.5", "(", "", "1e400", "(-inf", "nan", "x", " 1", "0x10", "3e2")
}

func (g *cmdGen) integer() string {
	return g.pick("0", "1", "-1", "2", "10", "-0", "+5", "005", " 1", "", "1.5", "abc",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "3", "-3", "100")
}

// ttl is a time argument: never short enough to expire during the run,
// but zero, negative, malformed and overflowing times too. Times past
// what the server's timers hold (some 584,000 years, see the README) are
// not sent as milliseconds: 9223372036854775 is that many seconds (an
// overflow error) or milliseconds (292,000 years).
func (g *cmdGen) ttl() string {
	return g.pick("100000", "2000000", "0", "-1", "-0", "+5", "005", "abc", "",
		"9223372036854775807", "9223372036854775", "-9223372036854775808", "9223372036854")
}

// bigValue is where the values of up to 4 MB come from: a slice of it.
// It is made on first use, not as the package starts: the scripts run
// this test binary as the server and the client hundreds of times, and
// none of those runs needs it.
var bigValue = sync.OnceValue(func() string { return strings.Repeat("0123456789abcdef", (4<<20)/16) })

func (g *cmdGen) next() []string {
	r := g.rng
	if r.IntN(200) == 0 {
		// A big value, of up to 4 MB, on a key of its own: Redis takes
		// bulk strings of up to 512 MB, and so does this server.
		switch r.IntN(3) {
		case 0:
			big := bigValue()
			return []string{"SET", "big", big[:r.IntN(len(big)+1)]}
		case 1:
			return []string{"GET", "big"}
		default:
			return []string{"STRLEN", "big"}
		}
	}
	if g.inMulti && r.IntN(8) == 0 {
		return []string{g.pick("EXEC", "EXEC", "EXEC", "DISCARD")} // a transaction of 8 commands on average
	}
	if n := len(familyGens); n > 0 && r.IntN(2) == 0 {
		return familyGens[r.IntN(n)](g)
	}
	switch r.IntN(25 + 12 + 2) {
	case 0:
		return []string{"GET", g.key()}
	case 1, 2:
		cmd := []string{"SET", g.key(), g.pick("v", "w", "", "long value")}
		for range r.IntN(4) {
			switch opt := g.pick("NX", "XX", "GET", "KEEPTTL", "EX", "PX", "ex", "BAD"); opt {
			case "EX", "PX", "ex":
				cmd = append(cmd, opt, g.ttl())
			default:
				cmd = append(cmd, opt)
			}
		}
		return cmd
	case 3:
		return append([]string{g.pick("DEL", "UNLINK", "EXISTS")}, g.key(), g.key())
	case 4:
		// A transaction queues at most a few KEYS: EXEC weighs each at
		// its bound (costKeys), and this server refuses a transaction
		// that could pass kMaxExecWork, where Redis has no such limit.
		if g.inMulti && keysQueued(g.queue) >= 3 {
			return []string{"DBSIZE"}
		}
		return []string{"KEYS", g.pick("*", "k*", "?0", "[hz]*", "k[0-1]", "\\k0", "nomatch")}
	case 5:
		return []string{g.pick("DBSIZE", "PING", "FLUSHALL")}
	case 6, 7:
		cmd := []string{g.pick("EXPIRE", "PEXPIRE"), g.key(), g.ttl()}
		for range r.IntN(3) / 2 {
			opt := g.pick("NX", "XX", "GT", "LT", "BAD")
			if opt == "GT" || opt == "LT" {
				// The server keeps a TTL on the monotonic clock, to the
				// microsecond: one set in the same millisecond as the
				// one compared may differ from Redis's by that
				// millisecond (see the README). Times drawn from a
				// million make such a tie unlikely to be sent.
				cmd[2] = strconv.Itoa(1_000_000 + r.IntN(1_000_000))
			}
			cmd = append(cmd, opt)
		}
		return cmd
	case 8:
		return []string{g.pick("TTL", "PTTL", "PERSIST"), g.key()}
	case 9, 10, 11:
		cmd := []string{"ZADD", g.key()}
		for range r.IntN(3) / 2 {
			cmd = append(cmd, g.pick("NX", "XX", "GT", "LT", "CH", "INCR"))
		}
		for range 1 + r.IntN(3) {
			cmd = append(cmd, g.score(), g.member())
		}
		if r.IntN(10) == 0 {
			cmd = cmd[:len(cmd)-1] // an odd count
		}
		return cmd
	case 12:
		return []string{"ZREM", g.key(), g.member(), g.member()}
	case 13:
		return []string{g.pick("ZSCORE"), g.key(), g.member()}
	case 14:
		return []string{"ZCARD", g.key()}
	case 15, 16, 17:
		cmd := []string{"ZRANGE", g.key()}
		byScore := r.IntN(2) == 0
		if byScore {
			cmd = append(cmd, g.bound(), g.bound(), "BYSCORE")
		} else {
			cmd = append(cmd, g.integer(), g.integer())
		}
		if r.IntN(3) == 0 {
			cmd = append(cmd, "LIMIT", g.integer(), g.pick("-1", "1", "2", "0", "-5", "x"))
		}
		if r.IntN(2) == 0 {
			cmd = append(cmd, g.pick("WITHSCORES", "withscores"))
		}
		return cmd
	case 18, 19:
		cmd := []string{"HSET", g.key()}
		for range 1 + r.IntN(2) {
			cmd = append(cmd, g.member(), g.pick("v", "w", ""))
		}
		return cmd
	case 20:
		return []string{g.pick("HGET", "HEXISTS"), g.key(), g.member()}
	case 21:
		return []string{"HDEL", g.key(), g.member(), g.member()}
	case 22:
		return []string{g.pick("HLEN", "HGETALL"), g.key()}
	case 23:
		// Wrong arity and unknown commands.
		return g.pick2([]string{"GET"}, []string{"GET", "a", "b"}, []string{"ZADD", "z0", "1"},
			[]string{"NOSUCH", "x"}, []string{"ECHO", "hello"}, []string{"PING", "a", "b"}, []string{"HSET", "h0", "f"})
	case 25, 26:
		// Counters: on strings that hold integers, and on those that
		// don't, near the int64 limits.
		if r.IntN(3) == 0 {
			return []string{"SET", g.pick("k0", "k1"), g.integer()}
		}
		name := g.pick("INCR", "DECR", "INCRBY", "DECRBY")
		cmd := []string{name, g.pick("k0", "k1", "k2", "h0", "z0")}
		if strings.HasSuffix(name, "BY") {
			cmd = append(cmd, g.integer())
		}
		return cmd
	case 27:
		cmd := []string{"MGET"}
		for range 1 + r.IntN(4) {
			cmd = append(cmd, g.key())
		}
		return cmd
	case 28:
		cmd := []string{"MSET"}
		for range 1 + r.IntN(3) {
			cmd = append(cmd, g.key(), g.pick("v", "1", ""))
		}
		if r.IntN(8) == 0 {
			cmd = cmd[:len(cmd)-1] // an odd count
		}
		return cmd
	case 29:
		return []string{g.pick("STRLEN", "TYPE"), g.key()}
	case 30:
		return []string{"APPEND", g.key(), g.pick("x", "", "12")}
	case 31:
		cmd := []string{"HMGET", g.key()}
		for range 1 + r.IntN(3) {
			cmd = append(cmd, g.member())
		}
		return cmd
	case 32:
		if r.IntN(2) == 0 {
			return []string{"HSET", g.key(), g.member(), g.integer()}
		}
		if r.IntN(2) == 0 {
			return []string{g.pick("HKEYS", "HVALS"), g.key()}
		}
		return []string{"HINCRBY", g.key(), g.member(), g.integer()}
	case 33:
		return []string{g.pick("ZRANK", "ZREVRANK"), g.key(), g.member()}
	case 34:
		if r.IntN(2) == 0 {
			return []string{"ZCOUNT", g.key(), g.bound(), g.bound()}
		}
		return []string{"ZINCRBY", g.key(), g.score(), g.member()}
	case 35:
		// ZREVRANGE, and ZRANGE's REV, by rank and by score (max first).
		cmd := []string{g.pick("ZREVRANGE", "ZRANGE"), g.key()}
		byScore := cmd[0] == "ZRANGE" && r.IntN(2) == 0
		if byScore {
			cmd = append(cmd, g.bound(), g.bound(), "BYSCORE")
		} else {
			cmd = append(cmd, g.integer(), g.integer())
		}
		if cmd[0] == "ZRANGE" || r.IntN(8) == 0 {
			cmd = append(cmd, g.pick("REV", "rev"))
		}
		if r.IntN(3) == 0 {
			cmd = append(cmd, "LIMIT", g.integer(), g.pick("-1", "1", "2", "0", "x"))
		}
		if r.IntN(2) == 0 {
			cmd = append(cmd, "WITHSCORES")
		}
		if r.IntN(10) == 0 {
			cmd = append(cmd, g.pick("REV", "BYSCORE", "BAD"))
		}
		return cmd
	case 36:
		// INFO's sections: compared by their headers (see normalize).
		cmd := []string{"INFO"}
		for range r.IntN(3) {
			cmd = append(cmd, g.pick("server", "KEYSPACE", "clients", "default", "all", "everything", "nosuch", "cpu", "Stats"))
		}
		return cmd
	case 37:
		return []string{g.pick("MULTI", "MULTI", "EXEC", "DISCARD")}
	case 38:
		return g.pick2([]string{"WATCH", g.key(), g.key()}, []string{"WATCH", g.key()}, []string{"UNWATCH"})
	default:
		return g.pick2([]string{"SELECT", g.pick("0", "16", "-1", "abc", "", "-0", "9223372036854775807")}, []string{"CONFIG", "GET", g.pick("save", "appendonly", "SAVE", "AppendOnly", "nosuch")},
			[]string{"CLIENT", "SETNAME", g.pick("a b", "ok", "")}, []string{"AUTH", g.pick("default", "bob"), "pw"},
			[]string{"AUTH", "pw"}, []string{"EXEC"}, []string{"DISCARD"}, []string{"FLUSHALL", g.pick("SYNC", "ASYNC", "NOW")})
	}
}

func (g *cmdGen) pick2(s ...[]string) []string { return s[g.rng.IntN(len(s))] }
