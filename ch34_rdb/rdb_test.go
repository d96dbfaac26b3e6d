package chapter_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"example.com/byor/testkit"
)

// startRealRedis runs redis-server on dir with no saves of its own, and
// returns a client of it.
func startRealRedis(t *testing.T, dir string) *redis.Client {
	t.Helper()
	real := redis.NewClient(&redis.Options{Addr: startRedis(t, "redis-server", "--dir", dir), Protocol: 2})
	t.Cleanup(func() { real.Close() })
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for real.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return real
}

// needRedis skips the test without Redis's programs.
func needRedis(t *testing.T) {
	for _, prog := range []string{"redis-server", "redis-check-rdb"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed (Debian: redis-server, redis-tools)", prog)
		}
	}
}

// do runs commands, failing the test on an error.
func do(t *testing.T, rdb *redis.Client, cmds ...[]any) {
	t.Helper()
	for _, cmd := range cmds {
		if err := rdb.Do(context.Background(), cmd...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
}

// sampleData is a key space of every type and size class, with TTLs.
var sampleData = [][]any{
	{"SET", "greeting", "hello"}, {"SET", "n", "12345"}, {"SET", "neg", "-7"},
	{"SET", "long", strings.Repeat("abcd", 2000)},
	{"SET", "session", "abc", "EX", "1000"},
	{"HSET", "user:1", "name", "ada", "lang", "go", "visits", "42"},
	{"ZADD", "board", "1.5", "ann", "2", "bob", "-inf", "floor", "1e100", "sky"},
	{"ZADD", "ttlz", "1", "a"}, {"PEXPIRE", "ttlz", "5000000"},
	// Expiry times near the int64 top: the file holds them as given.
	{"SET", "far", "f", "PXAT", "9223372036854775807"},
	{"HSET", "farh", "f", "v"}, {"EXPIREAT", "farh", "9223372036854775"},
}

// bigData adds a hash and a sorted set past Redis's listpack sizes
// (Debian's 512 hash fields, 128 members), so
// real Redis writes them as plain RDB_TYPE_HASH and ZSET_2; and values
// of few members past a megabyte, and a string of 3 MB, each a record of
// its own held whole while SAVE writes it.
func bigData(t *testing.T, rdb *redis.Client) {
	h := []any{"HSET", "bighash"}
	z := []any{"ZADD", "bigz"}
	for i := range 600 {
		h = append(h, "f"+strconv.Itoa(i), strconv.Itoa(i*7))
		z = append(z, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	do(t, rdb, h, z)
	do(t, rdb, []any{"HSET", "fewbig", "a", strings.Repeat("a", 600<<10), "b", strings.Repeat("b", 600<<10), "c", "small"},
		[]any{"ZADD", "fewbigz", "1", strings.Repeat("x", 700<<10), "2", strings.Repeat("y", 700<<10)},
		[]any{"SET", "bigs", strings.Repeat("s", 3<<20)})
}

// TestRDBRedisReadsOurs: SAVE's dump.rdb passes redis-check-rdb, and real
// Redis loads it with the same keys, values and expiry times.
func TestRDBRedisReadsOurs(t *testing.T) {
	needRedis(t)
	dir := t.TempDir()
	p, rdb := startIn(t, dir)
	do(t, rdb, sampleData...)
	bigData(t, rdb)
	want := snapshotKeys(t, rdb, false)
	do(t, rdb, []any{"SAVE"})
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dump.rdb")
	out, err := exec.Command("redis-check-rdb", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RDB looks OK") {
		t.Fatalf("redis-check-rdb: %v\n%s", err, out)
	}
	real := startRealRedis(t, dir)
	if diff := cmp.Diff(want, snapshotKeys(t, real, false)); diff != "" {
		t.Fatalf("real Redis loaded other keys than this server had (-ours +Redis's):\n%s", diff)
	}
	t.Logf("redis-check-rdb accepts the file; real Redis loaded %d keys, the same values and expiry times", len(want))
}

// TestRDBWeReadRedis: a dump.rdb real Redis 7.0 wrote (listpacks for the
// small hashes and sorted sets, integers and LZF-compressed strings, the
// plain encodings for the large ones) loads here with the same keys,
// values and expiry times.
func TestRDBWeReadRedis(t *testing.T) {
	needRedis(t)
	dir := t.TempDir()
	real := startRealRedis(t, dir)
	do(t, real, sampleData...)
	bigData(t, real)
	ctx := context.Background()
	for key, enc := range map[string]string{"user:1": "listpack", "board": "listpack", "n": "int", "bighash": "hashtable", "bigz": "skiplist"} {
		if got := real.ObjectEncoding(ctx, key).Val(); got != enc {
			t.Fatalf("real Redis holds %s as %s, not %s: the test would not cover that encoding", key, got, enc)
		}
	}
	want := snapshotKeys(t, real, false)
	do(t, real, []any{"SAVE"})
	_, rdb := startIn(t, dir)
	if diff := cmp.Diff(want, snapshotKeys(t, rdb, false)); diff != "" {
		t.Fatalf("this server loaded other keys than real Redis had (-Redis's +ours):\n%s", diff)
	}
}

// TestRDBDamagedStopsStart: a dump.rdb with a flipped bit, or cut short,
// stops the server at start with an error that names the file; it never
// starts empty.
func TestRDBDamagedStopsStart(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startIn(t, dir)
	do(t, rdb, sampleData...)
	do(t, rdb, []any{"SAVE"})
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dump.rdb")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)-20] ^= 0x40 // in the last value
	for name, data := range map[string][]byte{"a flipped bit": flipped, "cut short": good[:len(good)*2/3]} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		stderr := refusedStart(t, name+": the server started", dir)
		if !strings.Contains(stderr, path) {
			t.Fatalf("%s: stderr does not name the file:\n%s", name, stderr)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(stderr))
	}
}

// waitExit waits for the server to end on its own.
func waitExit(t *testing.T, p *testkit.Server) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("SHUTDOWN did not end the server")
	}
}

// TestShutdown: SHUTDOWN SAVE saves and exits; SHUTDOWN alone (there are
// no save rules) and SHUTDOWN NOSAVE exit without saving; the next start
// loads what the save wrote.
func TestShutdown(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startIn(t, dir)
	ctx := context.Background()
	do(t, rdb, []any{"SET", "kept", "1"})
	// No shutdown is ever in progress to abort, and ABORT goes alone.
	if err := rdb.Do(ctx, "SHUTDOWN", "ABORT").Err(); err == nil || err.Error() != "ERR No shutdown in progress." {
		t.Fatalf("SHUTDOWN ABORT: %v", err)
	}
	if err := rdb.Do(ctx, "SHUTDOWN", "NOSAVE", "ABORT").Err(); err == nil || err.Error() != "ERR syntax error" {
		t.Fatalf("SHUTDOWN NOSAVE ABORT: %v", err)
	}
	rdb.Do(ctx, "SHUTDOWN", "SAVE") // no reply: the server is gone
	waitExit(t, p)
	for _, cmd := range [][]any{{"SHUTDOWN"}, {"SHUTDOWN", "NOSAVE"}} {
		p, rdb = startIn(t, dir)
		if got := rdb.Get(ctx, "kept").Val(); got != "1" {
			t.Fatalf("after SHUTDOWN SAVE and a start, kept = %q", got)
		}
		do(t, rdb, []any{"SET", "lost", "1"})
		rdb.Do(ctx, cmd...)
		waitExit(t, p)
	}
	_, rdb = startIn(t, dir)
	if n := rdb.Exists(ctx, "lost").Val(); n != 0 {
		t.Fatal("SHUTDOWN or SHUTDOWN NOSAVE saved")
	}
}
