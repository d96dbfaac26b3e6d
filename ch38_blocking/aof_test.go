package chapter_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
)

// startAOF starts the server with the append-only file in dir, under the
// fsync policy given, and returns it with a client of its RESP listener.
// The caller stops or kills it.
func startAOF(t *testing.T, dir, policy string, extra ...string) (*testkit.Server, *redis.Client) {
	t.Helper()
	return startIn(t, dir, append([]string{"-appendonly", "yes", "-appendfsync", policy}, extra...)...)
}

// startIn starts the server with its files in dir and the arguments args,
// and returns it with a client of its RESP listener. The caller stops or
// kills it.
func startIn(t *testing.T, dir string, args ...string) (*testkit.Server, *redis.Client) {
	t.Helper()
	p, err := testkit.StartServer(append([]string{"-dir", dir}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := respAddr(p)
	if err != nil {
		p.Kill()
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{
		Addr: addr, Protocol: 2, MaxRetries: -1, PoolSize: 8,
		DialTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
	})
	t.Cleanup(func() {
		rdb.Close()
		if p.Running() {
			p.Kill()
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", p.Stderr())
		}
	})
	return p, rdb
}

// refusedStart runs the server with its files in dir and the arguments
// args, expecting it to refuse to start: it fails the test, saying what,
// unless the server exits by itself, and returns what it wrote to stderr.
func refusedStart(t *testing.T, what, dir string, args ...string) string {
	t.Helper()
	argv := append([]string{testkit.ServerProgram, "-addr", "127.0.0.1:0"}, testkit.ServerArgs...)
	p, err := serverproc.Launch(append(append(argv, "-dir", dir), args...), 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(testkit.Scale(30 * time.Second)):
		p.Kill()
		t.Fatal(what)
	}
	return p.Stderr()
}

// acked is what one writer was told it wrote: the last n of each kind.
type acked struct {
	sets, hsets, zadds, incrs int
}

// writer writes SET, HSET, ZADD and INCR in turn, each its own keys, from
// where the round before left off (from), until a write fails (the server
// was killed), and returns what it was told it wrote.
func writer(ctx context.Context, rdb *redis.Client, id int, from acked) acked {
	a := from
	for i := 0; ; i++ {
		var err error
		switch i % 4 {
		case 0:
			err = rdb.Set(ctx, fmt.Sprintf("w%d:s:%d", id, a.sets+1), a.sets+1, 0).Err()
			if err == nil {
				a.sets++
			}
		case 1:
			err = rdb.HSet(ctx, fmt.Sprintf("w%d:h", id), fmt.Sprintf("f%d", a.hsets+1), a.hsets+1).Err()
			if err == nil {
				a.hsets++
			}
		case 2:
			err = rdb.ZAdd(ctx, fmt.Sprintf("w%d:z", id), redis.Z{Score: float64(a.zadds + 1), Member: fmt.Sprintf("m%d", a.zadds+1)}).Err()
			if err == nil {
				a.zadds++
			}
		case 3:
			var n int64
			n, err = rdb.Incr(ctx, fmt.Sprintf("w%d:c", id)).Result()
			if err == nil {
				a.incrs = int(n)
			}
		}
		if err != nil {
			return a
		}
	}
}

// lost counts the acknowledged writes of one writer that the server does
// not have, and checks that what it has is no more than what was sent
// (at most one write of each kind in flight when it was killed).
func lost(t *testing.T, ctx context.Context, rdb *redis.Client, id int, a acked) int {
	t.Helper()
	missing := 0
	for n := 1; n <= a.sets; n++ {
		if v, err := rdb.Get(ctx, fmt.Sprintf("w%d:s:%d", id, n)).Result(); err != nil || v != strconv.Itoa(n) {
			missing++
		}
	}
	hlen, err := rdb.HLen(ctx, fmt.Sprintf("w%d:h", id)).Result()
	if err != nil {
		t.Fatal(err)
	}
	zcard, err := rdb.ZCard(ctx, fmt.Sprintf("w%d:z", id)).Result()
	if err != nil {
		t.Fatal(err)
	}
	c, err := rdb.Get(ctx, fmt.Sprintf("w%d:c", id)).Int()
	if err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	missing += max(0, a.hsets-int(hlen)) + max(0, a.zadds-int(zcard)) + max(0, a.incrs-c)
	if int(hlen) > a.hsets+1 || int(zcard) > a.zadds+1 || c > a.incrs+1 {
		t.Errorf("writer %d: the server has more than was sent: hlen %d, zcard %d, counter %d after %+v", id, hlen, zcard, c, a)
	}
	return missing
}

// TestAOFKill9 kills the server with SIGKILL at eight random moments while four
// clients write SET, HSET, ZADD and INCR, restarts it on the same file,
// and counts the writes acknowledged before the kill that are gone. Under
// always there must be none; under everysec a process crash loses none
// either (the kernel keeps what was written), and the bound is two
// seconds of writes, what a crash of the machine may lose.
func TestAOFKill9(t *testing.T) {
	testkit.Heavy(t)
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			ctx := context.Background()
			const writers, kills = 4, 8
			done := make([]acked, writers)
			var rate float64 // acknowledged writes per second, the last round
			for round := 0; round < kills; round++ {
				p, rdb := startAOF(t, dir, policy)
				if round > 0 {
					missing := 0
					for id := range writers {
						missing += lost(t, ctx, rdb, id, done[id])
					}
					if policy == "always" && missing > 0 {
						t.Fatalf("round %d: %d acknowledged writes lost under always", round, missing)
					}
					if bound := int(2*rate) + writers; missing > bound {
						t.Fatalf("round %d: %d acknowledged writes lost, more than two seconds' worth (%d)", round, missing, bound)
					}
					t.Logf("round %d: %d acknowledged writes lost", round, missing)
				}
				var wg sync.WaitGroup
				next := make([]acked, writers)
				start := time.Now()
				for id := range writers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						next[id] = writer(ctx, rdb, id, done[id])
					}()
				}
				time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
				p.Kill()
				wg.Wait()
				total := 0
				for id := range writers {
					total += next[id].sets + next[id].hsets + next[id].zadds + next[id].incrs -
						(done[id].sets + done[id].hsets + done[id].zadds + done[id].incrs)
				}
				rate = float64(total) / time.Since(start).Seconds()
				t.Logf("round %d: %d writes acknowledged before the kill", round, total)
				done = next
			}
			_, rdb := startAOF(t, dir, policy)
			for id := range writers {
				if m := lost(t, ctx, rdb, id, done[id]); policy == "always" && m > 0 {
					t.Fatalf("writer %d: %d acknowledged writes lost under always", id, m)
				}
			}
		})
	}
}

// writeSome starts a server on dir, writes n keys k1..kn with SET, and
// stops it (SIGTERM), returning the file's size after each SET.
func writeSome(t *testing.T, dir string, n int) []int64 {
	t.Helper()
	p, rdb := startAOF(t, dir, "always")
	ctx := context.Background()
	var sizes []int64
	for i := 1; i <= n; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("k%d", i), strings.Repeat("v", i), 0).Err(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, "appendonly.aof"))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	return sizes
}

// TestAOFCutTail: a file whose last command was cut off in the middle (a
// crash during the write) loads every command before it, says so, and is
// cut back to them, so the next appends follow whole commands.
func TestAOFCutTail(t *testing.T) {
	dir := t.TempDir()
	sizes := writeSome(t, dir, 5)
	path := filepath.Join(dir, "appendonly.aof")
	if err := os.Truncate(path, sizes[4]-3); err != nil {
		t.Fatal(err)
	}
	p, rdb := startAOF(t, dir, "always")
	if !regexp.MustCompile(`ends in the middle of a command: loading its first ` + strconv.FormatInt(sizes[3], 10) + ` bytes`).MatchString(p.Stderr()) {
		t.Errorf("the log does not say the file was cut:\n%s", p.Stderr())
	}
	ctx := context.Background()
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 4 {
		t.Fatalf("DBSIZE = %d, %v; want the 4 whole commands' keys", n, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != sizes[3] {
		t.Fatalf("the file was not cut back to the whole commands (%d bytes): %v, %v", sizes[3], fi.Size(), err)
	}
	if err := rdb.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	_, rdb = startAOF(t, dir, "always")
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 5 {
		t.Fatalf("after a write and a restart, DBSIZE = %d, %v; want 5", n, err)
	}
}

// TestAOFDamagedMiddle: damage before the last command stops the server
// at start, with an error naming the file and the offset of the damaged
// command; it does not start with an empty, or partial, key space.
func TestAOFDamagedMiddle(t *testing.T) {
	dir := t.TempDir()
	sizes := writeSome(t, dir, 5)
	path := filepath.Join(dir, "appendonly.aof")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[sizes[1]] = '?' // the third command's "*3" becomes "?3"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := refusedStart(t, "the server started on a damaged file", dir, "-appendonly", "yes")
	want := fmt.Sprintf("bad format in the append-only file %s at offset %d", path, sizes[1])
	if !strings.Contains(stderr, want) {
		t.Fatalf("stderr does not say %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "listening") {
		t.Fatalf("the server listened on a damaged file:\n%s", stderr)
	}
}
