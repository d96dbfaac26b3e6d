package chapter_test

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

// listSnap is one list as a client reads it: its elements and its
// expiry (PEXPIRETIME: -1 for none).
type listSnap struct {
	Elems    []string
	ExpireAt int64
}

// listsOf reads every list of the key space.
func listsOf(t *testing.T, rdb *redis.Client) map[string]listSnap {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string]listSnap{}
	for _, k := range keys {
		if rdb.Type(ctx, k).Val() != "list" {
			continue
		}
		var s listSnap
		if s.Elems, err = rdb.LRange(ctx, k, 0, -1).Result(); err != nil {
			t.Fatalf("LRANGE %s: %v", k, err)
		}
		if s.ExpireAt, err = rdb.Do(ctx, "PEXPIRETIME", k).Int64(); err != nil {
			t.Fatalf("PEXPIRETIME %s: %v", k, err)
		}
		lists[k] = s
	}
	return lists
}

// pushMany pushes n elements onto key with cmd (LPUSH or RPUSH), a
// thousand to a command: prefix and the number, every 5th the number
// alone (an integer to Redis's listpacks).
func pushMany(t *testing.T, rdb *redis.Client, cmd, key, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; {
		args := []any{cmd, key}
		for ; i < n && len(args) < 1002; i++ {
			if i%5 == 0 {
				args = append(args, strconv.Itoa(i*37-n))
			} else {
				args = append(args, prefix+strconv.Itoa(i))
			}
		}
		do(t, rdb, args)
	}
}

// sampleLists writes lists of every kind: small ones with integers and
// empty strings, elements longer than a node (8 KiB) and than a
// listpack's 12-bit length, a list of 100,000 elements, one built from
// the head, and one with a TTL.
func sampleLists(t *testing.T, rdb *redis.Client) {
	do(t, rdb, []any{"RPUSH", "small", "a", "", "1", "-200", "70000", "12345678901", "-9223372036854775808", "007", "1.5"},
		[]any{"RPUSH", "empties", "", "", ""},
		[]any{"RPUSH", "long", "x", strings.Repeat("L", 9<<10), "y", strings.Repeat("M", 100<<10), strings.Repeat("N", 5000), "z"},
		[]any{"RPUSH", "ttl", "t"}, []any{"PEXPIRE", "ttl", "5000000"},
		[]any{"SET", "str", "not a list"})
	pushMany(t, rdb, "RPUSH", "big", "element-", 100_000)
	pushMany(t, rdb, "LPUSH", "fromhead", "h", 3000)
}

// TestRDBListsRoundTrip: lists saved by SAVE come back the same after a
// restart; the file passes redis-check-rdb, and real Redis 7.0 loads it
// with the same lists (LRANGE, PEXPIRETIME).
func TestRDBListsRoundTrip(t *testing.T) {
	needRedis(t)
	dir := t.TempDir()
	p, rdb := startIn(t, dir)
	sampleLists(t, rdb)
	want := listsOf(t, rdb)
	if len(want) != 6 || len(want["big"].Elems) != 100_000 {
		t.Fatalf("the server holds %d lists, big of %d elements", len(want), len(want["big"].Elems))
	}
	do(t, rdb, []any{"SAVE"})
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dump.rdb")
	out, err := exec.Command("redis-check-rdb", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RDB looks OK") {
		t.Fatalf("redis-check-rdb: %v\n%s", err, out)
	}
	p, rdb = startIn(t, dir)
	if diff := cmp.Diff(want, listsOf(t, rdb)); diff != "" {
		t.Fatalf("after SAVE and a restart the lists differ (-before +after):\n%s", diff)
	}
	p.Stop()
	real := startRealRedis(t, dir)
	if diff := cmp.Diff(want, listsOf(t, real)); diff != "" {
		t.Fatalf("real Redis loaded other lists than this server had (-ours +Redis's):\n%s", diff)
	}
}

// TestRDBListsWeReadRedis: a dump.rdb real Redis 7.0 wrote with lists
// (small and big ones, integers in their listpacks, and with
// list-max-listpack-size 4 one of many small nodes) loads here with the
// same lists.
func TestRDBListsWeReadRedis(t *testing.T) {
	needRedis(t)
	dir := t.TempDir()
	real := startRealRedis(t, dir)
	do(t, real, []any{"CONFIG", "SET", "list-max-listpack-size", "4"})
	pushMany(t, real, "RPUSH", "nodes", "n", 2000)
	do(t, real, []any{"CONFIG", "SET", "list-max-listpack-size", "-2"})
	sampleLists(t, real)
	want := listsOf(t, real)
	do(t, real, []any{"SAVE"})
	data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	// Redis wrote the lists as type 18, and "nodes" in many nodes.
	if rec := append([]byte{18, 5}, "nodes\x41\xf4"...); !strings.Contains(string(data), string(rec)) {
		t.Fatal("the file has no type 18 record of nodes in 500 nodes: the test would not cover that")
	}
	_, rdb := startIn(t, dir)
	if diff := cmp.Diff(want, listsOf(t, rdb)); diff != "" {
		t.Fatalf("this server loaded other lists than real Redis had (-Redis's +ours):\n%s", diff)
	}
}

// TestRDBListsEmptyLikeRedis: a file with empty lists (a count of 0 in
// type 1; in type 18 a node of an empty listpack, alone or beside one
// of elements, and a PLAIN node) loads here as real Redis 7.0 loads it:
// the empty ones left out, the others whole.
func TestRDBListsEmptyLikeRedis(t *testing.T) {
	needRedis(t)
	lp := func(elems ...string) string {
		b := make([]byte, 6)
		for _, e := range elems { // strings of less than 64 bytes
			b = append(b, 0x80|byte(len(e)))
			b = append(append(b, e...), byte(1+len(e)))
		}
		b = append(b, 0xff)
		binary.LittleEndian.PutUint32(b, uint32(len(b)))
		binary.LittleEndian.PutUint16(b[4:], uint16(len(elems)))
		return string(b)
	}
	str := func(s string) string { return string(rune(len(s))) + s } // lengths below 64
	file := "REDIS0010" + "\xfe\x00" +
		"\x01" + str("zero") + "\x00" +
		"\x12" + str("emptylp") + "\x01" + "\x02" + str(lp()) +
		"\x12" + str("mixed") + "\x03" + "\x02" + str(lp()) + "\x02" + str(lp("a", "b")) + "\x01" + str("plain") +
		"\x00" + str("s") + str("v") +
		"\xff" + strings.Repeat("\x00", 8) // no checksum
	lists := map[string]map[string]listSnap{}
	for _, who := range []string{"Redis", "ours"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		if who == "Redis" {
			lists[who] = listsOf(t, startRealRedis(t, dir))
		} else {
			_, rdb := startIn(t, dir)
			lists[who] = listsOf(t, rdb)
		}
	}
	if len(lists["Redis"]) != 1 {
		t.Fatalf("real Redis loaded %v: the test expects one list", lists["Redis"])
	}
	if diff := cmp.Diff(lists["Redis"], lists["ours"]); diff != "" {
		t.Fatalf("this server loaded other lists than real Redis (-Redis's +ours):\n%s", diff)
	}
}

// TestBGRewriteAOFLists: the log rewritten while lists are pushed to
// and popped from replays to the same lists, and passes redis-check-aof.
func TestBGRewriteAOFLists(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startAOF(t, dir, "everysec")
	sampleLists(t, rdb)
	for range 3 { // the log grows past what the rewrite writes
		do(t, rdb, []any{"LPOP", "fromhead", "1000"})
		pushMany(t, rdb, "LPUSH", "fromhead", "again", 1000)
	}
	path := filepath.Join(dir, "appendonly.aof")
	if err := rdb.BgRewriteAOF(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	during := 0
	for ; infoField(t, rdb, "aof_rewrite_in_progress") == "1"; during++ {
		do(t, rdb, []any{"LPUSH", "big", "during" + strconv.Itoa(during)}, []any{"RPOP", "fromhead"})
	}
	if got := infoField(t, rdb, "aof_last_bgrewrite_status"); got != "ok" {
		t.Fatalf("aof_last_bgrewrite_status:%s", got)
	}
	want := listsOf(t, rdb)
	log, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "*66\r\n$5\r\nRPUSH\r\n") {
		t.Fatal("the rewritten log has no RPUSH of 64 elements")
	}
	p.Kill()
	if _, err := exec.LookPath("redis-check-aof"); err == nil {
		out, err := exec.Command("redis-check-aof", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "is valid") {
			t.Fatalf("redis-check-aof: %v\n%s", err, out)
		}
	}
	_, rdb = startAOF(t, dir, "everysec")
	if diff := cmp.Diff(want, listsOf(t, rdb)); diff != "" {
		t.Fatalf("after the rewrite and a kill -9 the lists differ (-before +after):\n%s", diff)
	}
	t.Logf("%d writes during the rewrite, all kept", during)
}
