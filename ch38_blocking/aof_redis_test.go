package chapter_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"example.com/byor/testkit"
)

// withLogExpiry gives the keys of snap the absolute expiry times the log
// at path holds, which Redis loading the log keeps to the millisecond,
// after checking that this server (rdb) keeps the same ones to within the
// moment between two reads: its own PEXPIRETIME comes back from a
// monotonic clock.
func withLogExpiry(t *testing.T, snap map[string]keySnap, rdb *redis.Client, path string) map[string]keySnap {
	t.Helper()
	ctx := context.Background()
	logged := logExpiry(t, path)
	slack := testkit.Scale(time.Second).Milliseconds()
	for k, s := range snap {
		e, ok := logged[k]
		if !ok {
			if pttl := rdb.PTTL(ctx, k).Val(); pttl != -1 {
				t.Errorf("%s: PTTL %v, but the log gives it no expiry", k, pttl)
			}
			continue
		}
		at, _ := strconv.ParseInt(e, 10, 64)
		// As an integer: a Duration of PTTL's milliseconds overflows
		// for a time near the int64 top.
		pttl, _ := rdb.Do(ctx, "PTTL", k).Int64()
		if d := time.Now().UnixMilli() + pttl - at; pttl < 0 || d < -slack || d > slack {
			t.Errorf("%s: PTTL %d ms, but the log's PEXPIREAT is %d ms from now", k, pttl, at-time.Now().UnixMilli())
		}
		s.ExpireAt = at
		snap[k] = s
	}
	return snap
}

// logExpiry reads the keys' absolute expiry times from the log: the last
// PEXPIREAT of each, unless a later command removed it.
func logExpiry(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]string{}
	cmd := regexp.MustCompile(`\*(\d+)\r\n`)
	for _, rec := range cmd.Split(string(b), -1)[1:] {
		var args []string
		for parts := strings.Split(rec, "\r\n"); len(parts) > 1; parts = parts[2:] {
			args = append(args, parts[1])
		}
		switch strings.ToUpper(args[0]) {
		case "PEXPIREAT":
			at[args[1]] = args[2]
		case "SET", "DEL", "PERSIST":
			delete(at, args[1])
		}
	}
	return at
}

// TestAOFRedisLoads writes through this server the commands Redis 7.0
// has (strings, counters, hashes, sorted sets, expiries, a transaction),
// then checks the log with Redis's own tools: redis-check-aof accepts it,
// and a real redis-server started with --appendonly yes on it has the
// same keys, values and expiry times. Skipped without Debian's
// redis-server and redis-tools.
func TestAOFRedisLoads(t *testing.T) {
	for _, prog := range []string{"redis-server", "redis-check-aof"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed (Debian: redis-server, redis-tools)", prog)
		}
	}
	dir := t.TempDir()
	p, rdb := startAOF(t, dir, "always")
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"SET", "greeting", "hello"},
		{"SET", "session", "abc", "EX", "1000"},
		{"SET", "token", "t", "PX", "500000"},
		{"INCR", "visits"}, {"INCRBY", "visits", "41"}, {"DECR", "visits"},
		{"APPEND", "greeting", " world"},
		{"HSET", "user:1", "name", "ada", "lang", "go"},
		{"HINCRBY", "user:1", "logins", "3"},
		{"HDEL", "user:1", "lang"},
		{"ZADD", "board", "1.5", "ann", "2", "bob", "0.1", "cy"},
		{"ZINCRBY", "board", "0.2", "cy"},
		{"ZREM", "board", "bob"},
		{"SET", "temp", "x"}, {"EXPIRE", "temp", "3600"},
		{"SET", "kept", "y", "EX", "100"}, {"PERSIST", "kept"},
		{"SET", "gone", "z"}, {"DEL", "gone"},
		{"MSET", "a", "1", "b", "2"},
		{"SET", "nx", "first"}, {"SET", "nx", "second", "NX"},
		// Expiry times near the int64 top, which the log keeps as given.
		{"SET", "far", "f", "PXAT", "9223372036854775807"},
		{"ZADD", "farz", "1", "a"}, {"EXPIREAT", "farz", "9223372036854775"},
	} {
		if err := rdb.Do(ctx, cmd...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	if _, err := rdb.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		tx.Set(ctx, "tx:a", "1", 0)
		tx.Incr(ctx, "tx:n")
		tx.HSet(ctx, "tx:h", "f", "v")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "appendonly.aof")
	want := withLogExpiry(t, snapshotKeys(t, rdb, false), rdb, path)
	for k, at := range map[string]int64{"far": 9223372036854775807, "farz": 9223372036854775000} {
		if want[k].ExpireAt != at {
			t.Errorf("%s: the log's PEXPIREAT is %d, not the time given, %d", k, want[k].ExpireAt, at)
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command("redis-check-aof", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is valid") {
		t.Fatalf("redis-check-aof: %v\n%s", err, out)
	}

	redisDir := t.TempDir()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(redisDir, "appendonly.aof"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startRedis(t, "redis-server", "--appendonly", "yes", "--dir", redisDir)
	real := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer real.Close()
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for real.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := snapshotKeys(t, real, false)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("real Redis loaded other keys than this server had (-this server +Redis):\n%s", diff)
	}
	t.Logf("real Redis loaded %d keys, the same values and expiry times", len(got))
}
