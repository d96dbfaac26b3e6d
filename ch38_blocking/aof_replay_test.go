package chapter_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/testkit"
)

// The log checked against every write command: the differential test's
// random commands (cmdGen and the families' generators) are sent to the
// server with the log on, and the key space read back in full before and
// after a SIGKILL and a restart on the same file must be equal, expiry
// times to the millisecond. A rule that logs a command's request where
// its effect depends on when it ran, or a handler that changes the key
// space without touchKey (so nothing is logged), shows up as a key whose
// value, members or expiry time the replay did not give back.

// keySnap is one key as a client sees it: its type, its value (a
// string's bytes, a hash's fields, a sorted set's members and scores as
// ZRANGE WITHSCORES writes them), its absolute expiry time (PEXPIRETIME:
// -1 for none), and its fields' expiry times where the server has them.
type keySnap struct {
	Type        string
	Str         string
	Fields      map[string]string
	FieldExpiry map[string]int64
	Members     []string
	Elements    []string // a list's, in order
	ExpireAt    int64
}

// snapshotKeys reads every key of rdb. fieldTTLs asks for the fields'
// expiry times (HPEXPIRETIME), which Redis 7.0 does not have.
func snapshotKeys(t *testing.T, rdb *redis.Client, fieldTTLs bool) map[string]keySnap {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	snap := make(map[string]keySnap, len(keys))
	for _, k := range keys {
		var s keySnap
		s.Type = rdb.Type(ctx, k).Val()
		switch s.Type {
		case "string":
			s.Str = rdb.Get(ctx, k).Val()
		case "hash":
			s.Fields = rdb.HGetAll(ctx, k).Val()
			if fieldTTLs && len(s.Fields) > 0 {
				names := make([]string, 0, len(s.Fields))
				for f := range s.Fields {
					names = append(names, f)
				}
				sort.Strings(names)
				args := []any{"HPEXPIRETIME", k, "FIELDS", len(names)}
				for _, f := range names {
					args = append(args, f)
				}
				times, err := rdb.Do(ctx, args...).Int64Slice()
				if err != nil {
					t.Fatalf("HPEXPIRETIME %s: %v", k, err)
				}
				s.FieldExpiry = map[string]int64{}
				for i, f := range names {
					if times[i] != -1 {
						s.FieldExpiry[f] = times[i]
					}
				}
			}
		case "zset":
			s.Members, err = rdb.Do(ctx, "ZRANGE", k, 0, -1, "WITHSCORES").StringSlice()
			if err != nil {
				t.Fatalf("ZRANGE %s: %v", k, err)
			}
		case "list":
			s.Elements = rdb.LRange(ctx, k, 0, -1).Val()
		default:
			t.Fatalf("%s: type %q", k, s.Type)
		}
		s.ExpireAt, err = rdb.Do(ctx, "PEXPIRETIME", k).Int64()
		if err != nil {
			t.Fatalf("PEXPIRETIME %s: %v", k, err)
		}
		snap[k] = s
	}
	return snap
}

// fieldTTLCmd is a command of the hash fields' TTLs (chapter 16, Redis
// 7.4's and 8.0's syntax), which the differential test against Redis 7.0
// does not send: relative, absolute and past times, persisting, and
// HSETEX's and HGETEX's options, on the generator's keys.
func fieldTTLCmd(g *cmdGen) []string {
	fields := func() []string {
		n := 1 + g.rng.IntN(3)
		out := []string{"FIELDS", strconv.Itoa(n)}
		for range n {
			out = append(out, g.member())
		}
		return out
	}
	now := time.Now().UnixMilli()
	at := strconv.FormatInt(now+int64(1e6+g.rng.IntN(1e9)), 10)
	past := strconv.FormatInt(now-10, 10)
	var cmd []string
	switch g.rng.IntN(7) {
	case 6:
		// A field named like the keyword of the commands above.
		return []string{g.pick("HINCRBYFLOAT", "HINCRBY"), g.key(), g.pick("fields", "FIELDS"), g.pick("1", "2")}
	case 0:
		cmd = []string{g.pick("HEXPIRE", "HPEXPIRE"), g.key(), g.pick("100000", "2000000", "0", "-1")}
	case 1:
		cmd = []string{"HPEXPIREAT", g.key(), g.pick(at, at, past, "1")}
	case 2:
		cmd = []string{"HEXPIREAT", g.key(), g.pick(at[:len(at)-3], past[:len(past)-3])}
	case 3:
		cmd = []string{"HPERSIST", g.key()}
	case 4:
		cmd = []string{"HGETEX", g.key()}
		switch g.rng.IntN(5) {
		case 0:
			cmd = append(cmd, "EX", g.pick("100000", "0"))
		case 1:
			cmd = append(cmd, "PX", "2000000")
		case 2:
			cmd = append(cmd, "PXAT", g.pick(at, past))
		case 3:
			cmd = append(cmd, "PERSIST")
		}
		return append(cmd, fields()...)
	default:
		cmd = []string{"HSETEX", g.key()}
		if g.rng.IntN(3) == 0 {
			cmd = append(cmd, g.pick("FNX", "FXX"))
		}
		switch g.rng.IntN(4) {
		case 0:
			cmd = append(cmd, "EX", "100000")
		case 1:
			cmd = append(cmd, "PXAT", g.pick(at, past))
		case 2:
			cmd = append(cmd, "KEEPTTL")
		}
		n := 1 + g.rng.IntN(3)
		cmd = append(cmd, "FIELDS", strconv.Itoa(n))
		for range n {
			cmd = append(cmd, g.member(), g.pick("v", "w", "1.5"))
		}
		return cmd
	}
	if g.rng.IntN(4) == 0 {
		cmd = append(cmd, g.pick("NX", "XX", "GT", "LT"))
	}
	return append(cmd, fields()...)
}

// bookCmd is a write of the book's protocol, which has rules of its own
// (its set keeps a TTL, its zadd reads a score as the book does), on the
// generator's keys; with fieldTTLs, the fields' TTLs too.
func bookCmd(g *cmdGen, fieldTTLs bool) []string {
	switch g.rng.IntN(9) {
	case 0, 1:
		return []string{"set", g.key(), g.pick("v", "w", "12", "")}
	case 2:
		return []string{"del", g.key()}
	case 3:
		return []string{"pexpire", g.key(), g.pick("100000000", "2000000", "0", "-1", "x")}
	case 4, 8:
		// Scores the book reads and Redis does not: "1e400", " 1", "0x10".
		return []string{"zadd", g.key(), g.pick("1", "2.5", "-3", "0.1", "1e21", "inf", "-inf", "1e400", "x", "nan", "0x10", " 1", "1e-400"), g.member()}
	case 5:
		return []string{"zrem", g.key(), g.member()}
	case 6:
		if fieldTTLs && g.rng.IntN(2) == 0 {
			return []string{g.pick("hpexpire", "hexpire"), g.key(), g.pick("100000000", "0"), "FIELDS", "1", g.member()}
		}
		return []string{"hdel", g.key(), g.member()}
	}
	return []string{"hset", g.key(), g.member(), g.pick("v", "w", "")}
}

// bookConn is a connection of the book's protocol: each message a 4-byte
// little-endian length and its body.
type bookConn struct {
	c net.Conn
}

// do sends the requests in one write and reads their replies, unread.
func (b *bookConn) do(t *testing.T, cmds [][]string) {
	t.Helper()
	var req []byte
	for _, cmd := range cmds {
		body := proto.EncodeReq(cmd)
		req = binary.LittleEndian.AppendUint32(req, uint32(len(body)))
		req = append(req, body...)
	}
	b.c.SetDeadline(time.Now().Add(testkit.Scale(60 * time.Second))) // against a hang only
	if _, err := b.c.Write(req); err != nil {
		t.Fatal(err)
	}
	for range cmds {
		var head [4]byte
		if _, err := io.ReadFull(b.c, head[:]); err != nil {
			t.Fatalf("reading a reply of the book's protocol: %v", err)
		}
		n := binary.LittleEndian.Uint32(head[:])
		if n > maxDiffReply {
			t.Fatalf("a reply of %d bytes", n)
		}
		if _, err := io.CopyN(io.Discard, b.c, int64(n)); err != nil {
			t.Fatalf("reading a reply of the book's protocol: %v", err)
		}
	}
}

// replayWorkload sends n random commands of g to the server p, pipelined:
// through a raw RESP2 connection, and one batch in two followed by a few
// writes of the book's protocol. It ends a transaction left open with
// EXEC. Nine FLUSHALLs in ten are left out, so that the key space has
// more to compare, and nine big values in ten, so that the log replayed
// in each round stays small. With fieldTTLs, one command in eight is one
// of the fields' TTLs.
func replayWorkload(t *testing.T, p *testkit.Server, g *cmdGen, n int, fieldTTLs bool) {
	t.Helper()
	addr, err := respAddr(p)
	if err != nil {
		t.Fatal(err)
	}
	c := diffDial(t, addr, 2)
	bc, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	book := &bookConn{bc}
	const batch = 64
	for sent := 0; sent < n; sent += batch {
		cmds := make([][]string, 0, batch)
		for len(cmds) < batch {
			cmd := g.next()
			if (strings.EqualFold(cmd[0], "FLUSHALL") || cmd[0] == "SET" && cmd[1] == "big") && g.rng.IntN(10) != 0 {
				continue
			}
			if fieldTTLs && g.rng.IntN(8) == 0 {
				cmd = fieldTTLCmd(g)
			}
			g.track(cmd)
			cmds = append(cmds, cmd)
		}
		c.do(t, cmds)
		if g.rng.IntN(2) == 0 {
			var bcmds [][]string
			for range 1 + g.rng.IntN(8) {
				bcmds = append(bcmds, bookCmd(g, fieldTTLs))
			}
			book.do(t, bcmds)
		}
	}
	if g.inMulti {
		g.track([]string{"EXEC"})
		c.do(t, [][]string{{"EXEC"}})
	}
}

// replayCommands is how many random commands the replay tests send:
// a few thousand by default, many more in the heavy suites.
func replayCommands() int {
	if os.Getenv(testkit.HeavyEnv) == "1" {
		return 30000
	}
	return 3000
}

// TestAOFReplayRandom sends the random commands to the server with
// -appendfsync always in rounds; after each, it kills the server
// (SIGKILL: nothing but what is in the log survives) and restarts it on
// the same directory: the key space read before and after must be equal,
// with every key's and field's expiry time to the millisecond. The next
// round goes on on the restarted server, so the log replayed grows, and
// is partly the restarted server's own.
func TestAOFReplayRandom(t *testing.T) {
	n := replayCommands()
	rounds := n / 200
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			dir := t.TempDir()
			g := &cmdGen{rng: rand.New(rand.NewPCG(seed, 21))}
			p, rdb := startAOF(t, dir, "always")
			keys, withTTL := 0, 0
			for round := range rounds {
				replayWorkload(t, p, g, n/rounds, true)
				want := snapshotKeys(t, rdb, true)
				p.Kill()
				p, rdb = startAOF(t, dir, "always")
				got := snapshotKeys(t, rdb, true)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("round %d: the key space after a restart differs from the one before (-before +after):\n%s", round, diff)
				}
				keys += len(want)
				for _, s := range want {
					if s.ExpireAt != -1 || len(s.FieldExpiry) > 0 {
						withTTL++
					}
				}
			}
			fi, err := os.Stat(filepath.Join(dir, "appendonly.aof"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d random commands in %d rounds: %d keys compared (%d with TTLs), alike after each restart; a log of %d bytes",
				n, rounds, keys, withTTL, fi.Size())
		})
	}
}

// TestAOFRedisLoadsRandom is TestAOFRedisLoads with the random commands
// of the differential test, in rounds: after each, redis-check-aof
// accepts the log, and redis-server 7.0 started on a copy of it has the
// same key space, expiry times to the millisecond, as this server has.
// Skipped without Debian's redis-server and redis-tools.
func TestAOFRedisLoadsRandom(t *testing.T) {
	for _, prog := range []string{"redis-server", "redis-check-aof"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed (Debian: redis-server, redis-tools)", prog)
		}
	}
	n := replayCommands()
	rounds := n / 500
	dir := t.TempDir()
	p, rdb := startAOF(t, dir, "always")
	g := &cmdGen{rng: rand.New(rand.NewPCG(7, 21))}
	path := filepath.Join(dir, "appendonly.aof")
	keys := 0
	var size int
	for round := range rounds {
		replayWorkload(t, p, g, n/rounds, false)
		want := snapshotKeys(t, rdb, false)
		// Every reply has been read: what they depend on is in the file.
		out, err := exec.Command("redis-check-aof", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "is valid") {
			t.Fatalf("round %d: redis-check-aof: %v\n%s", round, err, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := redisLoad(t, b)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d: real Redis loaded a different key space (-this server +Redis):\n%s", round, diff)
		}
		keys += len(want)
		size = len(b)
	}
	t.Logf("%d random commands in %d rounds: real Redis loaded the log (%d bytes at the end), %d keys compared, alike", n, rounds, size, keys)
}

// redisLoad starts redis-server on a copy of the log b, reads its key
// space, and stops it.
func redisLoad(t *testing.T, b []byte) map[string]keySnap {
	t.Helper()
	redisDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(redisDir, "appendonly.aof"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	addr, stop := runRedis(t, "redis-server", "--appendonly", "yes", "--dir", redisDir)
	defer stop()
	real := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1})
	defer real.Close()
	ctx := context.Background()
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for real.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not finish loading the log")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return snapshotKeys(t, real, false)
}

// TestAOFReplayAfterExpiry: keys and hash fields whose TTLs came due,
// then written again (a counter starts over, a field comes back without
// its TTL), RENAME and COPY of a key with a TTL, and expiry times already
// past, replay to the same key space after a SIGKILL.
func TestAOFReplayAfterExpiry(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startAOF(t, dir, "always")
	ctx := context.Background()
	do := func(cmds ...[]any) {
		t.Helper()
		for _, cmd := range cmds {
			if err := rdb.Do(ctx, cmd...).Err(); err != nil && err != redis.Nil {
				t.Fatalf("%v: %v", cmd, err)
			}
		}
	}
	do([]any{"SET", "n", "5", "PX", "20"}, []any{"ZADD", "z", "1", "a"}, []any{"PEXPIRE", "z", "20"},
		[]any{"HSET", "h", "f", "5", "g", "1"}, []any{"HPEXPIRE", "h", "20", "FIELDS", "1", "f"},
		[]any{"HSET", "gone", "f", "1"}, []any{"HPEXPIRE", "gone", "20", "FIELDS", "1", "f"},
		[]any{"HSET", "hv", "f", "1"}, []any{"HPEXPIRE", "hv", "20", "FIELDS", "1", "f"},
		[]any{"HSET", "hc", "f", "1"}, []any{"HPEXPIRE", "hc", "20", "FIELDS", "1", "f"},
		[]any{"SET", "r", "v", "PX", "100000000"}, []any{"RENAME", "r", "r2"}, []any{"COPY", "r2", "r3"},
		[]any{"HSET", "fh", "f", "v"}, []any{"HPEXPIRE", "fh", "100000000", "FIELDS", "1", "f"}, []any{"COPY", "fh", "fh2"},
		[]any{"RENAME", "fh", "fh3"},
		// Times already past: each deletes its key.
		[]any{"SET", "p", "v"}, []any{"SET", "p", "w", "PXAT", "1"}, []any{"SET", "q", "v"}, []any{"GETEX", "q", "EXAT", "1"},
		[]any{"SET", "e", "v"}, []any{"EXPIREAT", "e", "1"})
	// Until the TTLs have come due; the time only guards against a hang.
	for deadline := time.Now().Add(testkit.Scale(10 * time.Second)); ; time.Sleep(5 * time.Millisecond) {
		if rdb.Exists(ctx, "n", "z", "gone", "hv", "hc").Val() == 0 && !rdb.HExists(ctx, "h", "f").Val() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the TTLs of 20 ms never came due")
		}
	}
	// A hash whose last field expired is gone: a string may take its name.
	do([]any{"INCR", "n"}, []any{"HINCRBY", "h", "f", "1"}, []any{"ZADD", "z", "2", "b"},
		[]any{"INCR", "hv"}, []any{"COPY", "r2", "hc"})
	want := snapshotKeys(t, rdb, true)
	if len(want) != 9 || want["n"].Str != "1" || want["h"].Fields["f"] != "1" || len(want["r2"].Str) == 0 {
		t.Fatalf("before the restart: %+v", want)
	}
	p.Kill()
	_, rdb2 := startAOF(t, dir, "always")
	got := snapshotKeys(t, rdb2, true)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the key space after a restart differs from the one before (-before +after):\n%s", diff)
	}
}
