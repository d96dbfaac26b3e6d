package chapter_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
// of few members past a megabyte, and a string of 3 MB, which a snapshot
// here writes in parts, their long strings straight from the key space.
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

// infoField reads one field of INFO persistence.
func infoField(t *testing.T, rdb *redis.Client, name string) string {
	t.Helper()
	info := rdb.Info(context.Background(), "persistence").Val()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO persistence has no %s:\n%s", name, info)
	return ""
}

// waitField waits until INFO persistence's field is want.
func waitField(t *testing.T, rdb *redis.Client, name, want string) {
	t.Helper()
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for infoField(t, rdb, name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s is not %s", name, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRDBMisconf: with -save rules, a background save that fails turns
// writes away with Redis's MISCONF error, reads go on, and a save that
// succeeds lets writes in again.
func TestRDBMisconf(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "data")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_, rdb := startIn(t, sub, "-save", "3600 1")
	ctx := context.Background()
	do(t, rdb, []any{"SET", "k", "v"})
	if err := os.RemoveAll(sub); err != nil { // no directory: the save cannot open its file
		t.Fatal(err)
	}
	if err := rdb.BgSave(ctx).Err(); err == nil {
		t.Fatal("BGSAVE into a directory gone succeeded")
	}
	if got := infoField(t, rdb, "rdb_last_bgsave_status"); got != "err" {
		t.Fatalf("rdb_last_bgsave_status:%s", got)
	}
	if err := rdb.Set(ctx, "k", "w", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "MISCONF ") {
		t.Fatalf("a write after a failed save: %v", err)
	}
	if got := rdb.Get(ctx, "k").Val(); got != "v" {
		t.Fatalf("GET k = %q after the refused write", got)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rdb.BgSave(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	waitField(t, rdb, "rdb_bgsave_in_progress", "0")
	if got := infoField(t, rdb, "rdb_last_bgsave_status"); got != "ok" {
		t.Fatalf("rdb_last_bgsave_status:%s after a save that should succeed", got)
	}
	do(t, rdb, []any{"SET", "k", "w"})
}

// fillMany writes n keys of 100 bytes, pipelined.
func fillMany(t *testing.T, rdb *redis.Client, prefix string, n int) {
	t.Helper()
	ctx := context.Background()
	val := strings.Repeat("v", 100)
	for i := 0; i < n; i += 1000 {
		args := []any{"MSET"}
		for j := i; j < min(n, i+1000); j++ {
			args = append(args, prefix+strconv.Itoa(j), val)
		}
		if err := rdb.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRDBKill9DuringBgsave: a crash in the middle of a background save
// leaves the previous dump.rdb whole, and the server starts from it.
func TestRDBKill9DuringBgsave(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startIn(t, dir)
	ctx := context.Background()
	do(t, rdb, []any{"SET", "before", "1"}, []any{"SAVE"})
	fillMany(t, rdb, "k", 200_000)
	if err := rdb.BgSave(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	inProgress := infoField(t, rdb, "rdb_bgsave_in_progress")
	p.Kill()
	if inProgress != "1" {
		t.Skip("the save ended before the kill: nothing crashed in the middle")
	}
	_, rdb = startIn(t, dir)
	if n := rdb.DBSize(ctx).Val(); n != 1 || rdb.Get(ctx, "before").Val() != "1" {
		t.Fatalf("after a kill -9 during BGSAVE the server started with %d keys, not the previous save's one", n)
	}
}

// TestBGRewriteAOF: the log rewritten while writes go on holds them all,
// is smaller, passes redis-check-aof, and is what the server starts from.
func TestBGRewriteAOF(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startAOF(t, dir, "everysec")
	ctx := context.Background()
	for range 5 { // the log grows; the key space does not
		fillMany(t, rdb, "k", 5000)
	}
	do(t, rdb, sampleData...)
	path := filepath.Join(dir, "appendonly.aof")
	before, _ := os.Stat(path)
	if err := rdb.BgRewriteAOF(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	during := 0
	for ; infoField(t, rdb, "aof_rewrite_in_progress") == "1"; during++ {
		do(t, rdb, []any{"SET", "during:" + strconv.Itoa(during), "x"}, []any{"INCR", "counter"})
	}
	if got := infoField(t, rdb, "aof_last_bgrewrite_status"); got != "ok" {
		t.Fatalf("aof_last_bgrewrite_status:%s", got)
	}
	do(t, rdb, []any{"SET", "after", "y"})
	want := snapshotKeys(t, rdb, false)
	after, _ := os.Stat(path)
	if after.Size() >= before.Size() {
		t.Fatalf("the log is %d bytes after the rewrite, %d before", after.Size(), before.Size())
	}
	p.Kill()
	if _, err := exec.LookPath("redis-check-aof"); err == nil {
		out, err := exec.Command("redis-check-aof", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "is valid") {
			t.Fatalf("redis-check-aof: %v\n%s", err, out)
		}
	}
	_, rdb = startAOF(t, dir, "everysec")
	if diff := cmp.Diff(want, snapshotKeys(t, rdb, false)); diff != "" {
		t.Fatalf("after the rewrite and a kill -9 the keys differ (-before +after):\n%s", diff)
	}
	t.Logf("log %d -> %d bytes; %d writes during the rewrite, all kept", before.Size(), after.Size(), during)
}

// TestBGRewriteAOFKill9: a crash in the middle of a rewrite leaves the old
// log whole, with every write acknowledged, those made during the
// rewrite too; the server starts from it.
func TestBGRewriteAOFKill9(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startAOF(t, dir, "everysec")
	ctx := context.Background()
	fillMany(t, rdb, "k", 200_000)
	if err := rdb.BgRewriteAOF(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	do(t, rdb, []any{"SET", "during", "x"}, []any{"HSET", "h", "f", "v"})
	inProgress := infoField(t, rdb, "aof_rewrite_in_progress")
	p.Kill()
	if inProgress != "1" {
		t.Skip("the rewrite ended before the kill: nothing crashed in the middle")
	}
	_, rdb = startAOF(t, dir, "everysec")
	if n := rdb.DBSize(ctx).Val(); n != 200_002 || rdb.Get(ctx, "during").Val() != "x" || rdb.HGet(ctx, "h", "f").Val() != "v" {
		t.Fatalf("after a kill -9 during BGREWRITEAOF the server started with %d keys, not 200002 with the writes made meanwhile", n)
	}
}

// waitFieldAtLeast waits until INFO persistence's integer field reaches n.
func waitFieldAtLeast(t *testing.T, rdb *redis.Client, name string, n int) {
	t.Helper()
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for {
		v, _ := strconv.Atoi(infoField(t, rdb, name))
		if v >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %d, not yet %d", name, v, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSaveRules: a -save rule starts a background save once its seconds
// have passed with its changes made, and the log is rewritten once it
// has grown past -auto-aof-rewrite-percentage and -min-size.
func TestSaveRules(t *testing.T) {
	t.Parallel() // mostly waits for the rule's second to pass
	dir := t.TempDir()
	_, rdb := startIn(t, dir, "-save", "1 2", "-appendonly", "yes",
		"-auto-aof-rewrite-percentage", "100", "-auto-aof-rewrite-min-size", "20000")
	do(t, rdb, []any{"SET", "a", "1"})
	time.Sleep(1500 * time.Millisecond) // one change is not enough
	if got := infoField(t, rdb, "rdb_saves"); got != "0" {
		t.Fatalf("rdb_saves:%s after one change, under a rule of two", got)
	}
	for i := range 1000 { // some 40 KB of log for one key
		do(t, rdb, []any{"SET", "counter", strconv.Itoa(i)})
	}
	waitFieldAtLeast(t, rdb, "rdb_saves", 1)
	waitFieldAtLeast(t, rdb, "aof_rewrites", 1)
	if got := infoField(t, rdb, "rdb_changes_since_last_save"); got == "" {
		t.Fatal("no rdb_changes_since_last_save")
	}
	fi, err := os.Stat(filepath.Join(dir, "appendonly.aof"))
	if err != nil || fi.Size() > 20000 {
		t.Fatalf("the log after the automatic rewrite: %v, %v", fi.Size(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
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

// TestShutdown: SHUTDOWN with -save rules saves and exits; NOSAVE exits
// without saving; the next start loads what the save wrote.
func TestShutdown(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startIn(t, dir, "-save", "3600 1")
	ctx := context.Background()
	do(t, rdb, []any{"SET", "kept", "1"})
	// No shutdown is ever in progress to abort, and ABORT goes alone.
	if err := rdb.Do(ctx, "SHUTDOWN", "ABORT").Err(); err == nil || err.Error() != "ERR No shutdown in progress." {
		t.Fatalf("SHUTDOWN ABORT: %v", err)
	}
	if err := rdb.Do(ctx, "SHUTDOWN", "NOSAVE", "ABORT").Err(); err == nil || err.Error() != "ERR syntax error" {
		t.Fatalf("SHUTDOWN NOSAVE ABORT: %v", err)
	}
	rdb.Do(ctx, "SHUTDOWN") // no reply: the server is gone
	waitExit(t, p)
	p, rdb = startIn(t, dir, "-save", "3600 1")
	if got := rdb.Get(ctx, "kept").Val(); got != "1" {
		t.Fatalf("after SHUTDOWN and a start, kept = %q", got)
	}
	do(t, rdb, []any{"SET", "lost", "1"})
	rdb.Do(ctx, "SHUTDOWN", "NOSAVE")
	waitExit(t, p)
	_, rdb = startIn(t, dir)
	if n := rdb.Exists(ctx, "lost").Val(); n != 0 {
		t.Fatal("SHUTDOWN NOSAVE saved")
	}
}

// TestAOFKill9DuringRewrites is TestAOFKill9 with the log rewritten over
// and over while the writers write (100,000 keys besides theirs, so that
// a rewrite takes a while, and a rewrite whenever the log has grown by 1%):
// kill -9 at random moments, some of them in the middle of a rewrite,
// loses no acknowledged write under always.
func TestAOFKill9DuringRewrites(t *testing.T) {
	testkit.Heavy(t)
	dir := t.TempDir()
	ctx := context.Background()
	const writers, kills = 4, 8
	rewrite := []string{"-auto-aof-rewrite-percentage", "1", "-auto-aof-rewrite-min-size", "20000"}
	done := make([]acked, writers)
	rewrites, during := 0, 0
	for round := 0; round <= kills; round++ {
		p, rdb := startAOF(t, dir, "always", rewrite...)
		missing := 0
		for id := range writers {
			missing += lost(t, ctx, rdb, id, done[id])
		}
		if missing > 0 {
			t.Fatalf("round %d: %d acknowledged writes lost under always with rewrites running", round, missing)
		}
		if round == kills {
			break
		}
		if round == 0 {
			fillMany(t, rdb, "bulk", 100_000)
		}
		var wg sync.WaitGroup
		next := make([]acked, writers)
		for id := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next[id] = writer(ctx, rdb, id, done[id])
			}()
		}
		time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
		n, _ := strconv.Atoi(infoField(t, rdb, "aof_rewrites"))
		inProgress := infoField(t, rdb, "aof_rewrite_in_progress")
		p.Kill()
		wg.Wait()
		rewrites += n
		if inProgress == "1" {
			during++
		}
		t.Logf("round %d: %d rewrites, one in progress at the kill: %s", round, n, inProgress)
		done = next
	}
	if rewrites == 0 {
		t.Fatal("no rewrite ran: the test did not test them")
	}
	t.Logf("%d rewrites in all, %d kills in the middle of one", rewrites, during)
}
