package chapter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"example.com/byor/testkit"
)

// newGoRedis starts a server and connects go-redis, the Go client most
// programs use, to its RESP listener, speaking RESP version proto.
func newGoRedis(t *testing.T, proto int) *redis.Client {
	t.Helper()
	p := testkit.StartTestServer(t)
	addr, err := respAddr(p)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{
		Addr:     addr,
		Protocol: proto,
		// Generous: the machine running the tests may be busy.
		DialTimeout:  10 * time.Second,
		ReadTimeout:  10 * time.Second,
		WriteTimeout: 10 * time.Second,
		MaxRetries:   -1, // a failure is the server's, and should show
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestGoRedis runs a client library's ordinary calls against the server,
// in RESP2 and in RESP3 (which go-redis asks for by default, with HELLO 3).
func TestGoRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := context.Background()
			rdb := newGoRedis(t, proto)

			// Connecting: HELLO and CLIENT SETINFO were accepted.
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatalf("PING: %v", err)
			}
			if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatalf("SET: %v", err)
			}
			if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "v" {
				t.Fatalf("GET k = %q, %v; want v", got, err)
			}
			if err := rdb.Get(ctx, "nokey").Err(); !errors.Is(err, redis.Nil) {
				t.Fatalf("GET nokey: %v, want redis.Nil", err)
			}
			if err := rdb.Set(ctx, "t", "v", 100*time.Second).Err(); err != nil {
				t.Fatalf("SET EX: %v", err)
			}
			if ttl, err := rdb.TTL(ctx, "t").Result(); err != nil || ttl < 90*time.Second || ttl > 100*time.Second {
				t.Fatalf("TTL t = %v, %v; want about 100s", ttl, err)
			}

			// A pipeline: many requests in one write, the replies in order.
			pipe := rdb.Pipeline()
			for i := range 200 {
				pipe.Set(ctx, fmt.Sprintf("key:%d", i), i, 0)
			}
			gets := make([]*redis.StringCmd, 200)
			for i := range gets {
				gets[i] = pipe.Get(ctx, fmt.Sprintf("key:%d", i))
			}
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatalf("pipeline: %v", err)
			}
			for i, g := range gets {
				if g.Val() != fmt.Sprint(i) {
					t.Fatalf("pipelined GET key:%d = %q", i, g.Val())
				}
			}
			if keys, err := rdb.Keys(ctx, "key:1?").Result(); err != nil || len(keys) != 10 {
				t.Fatalf("KEYS key:1? = %d keys, %v; want 10", len(keys), err)
			}

			// Sorted sets, and the book's zquery as ZRANGE BYSCORE LIMIT.
			n, err := rdb.ZAdd(ctx, "board",
				redis.Z{Score: 10, Member: "alice"}, redis.Z{Score: 25, Member: "bob"},
				redis.Z{Score: 17, Member: "carol"}, redis.Z{Score: 31.5, Member: "dave"}).Result()
			if err != nil || n != 4 {
				t.Fatalf("ZADD = %d, %v; want 4", n, err)
			}
			if s, err := rdb.ZScore(ctx, "board", "dave").Result(); err != nil || s != 31.5 {
				t.Fatalf("ZSCORE = %v, %v; want 31.5", s, err)
			}
			zs, err := rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{
				Key: "board", Start: "15", Stop: "+inf", ByScore: true, Offset: 1, Count: 2,
			}).Result()
			if err != nil {
				t.Fatalf("ZRANGE BYSCORE LIMIT: %v", err)
			}
			want := []redis.Z{{Score: 25, Member: "bob"}, {Score: 31.5, Member: "dave"}}
			if diff := cmp.Diff(want, zs); diff != "" {
				t.Fatalf("ZRANGE BYSCORE LIMIT (-want +got):\n%s", diff)
			}

			// Hashes, and their fields' TTLs (chapter 16).
			if err := rdb.HSet(ctx, "session", "user", "alice", "token", "t0k3n").Err(); err != nil {
				t.Fatalf("HSET: %v", err)
			}
			if all, err := rdb.HGetAll(ctx, "session").Result(); err != nil ||
				!cmp.Equal(all, map[string]string{"user": "alice", "token": "t0k3n"}) {
				t.Fatalf("HGETALL = %v, %v", all, err)
			}
			if res, err := rdb.HExpire(ctx, "session", 60*time.Second, "token", "nofield").Result(); err != nil ||
				!cmp.Equal(res, []int64{1, -2}) {
				t.Fatalf("HEXPIRE = %v, %v; want [1 -2]", res, err)
			}
			ttls, err := rdb.HTTL(ctx, "session", "user", "token").Result()
			if err != nil || len(ttls) != 2 || ttls[0] != -1 || ttls[1] < 50 || ttls[1] > 60 {
				t.Fatalf("HTTL = %v, %v; want [-1 ~60]", ttls, err)
			}

			// Errors arrive as errors, with Redis's texts.
			if err := rdb.Get(ctx, "board").Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
				t.Fatalf("GET of a sorted set: %v, want WRONGTYPE", err)
			}
			if err := rdb.Do(ctx, "nosuchcommand", "x").Err(); err == nil ||
				!strings.Contains(err.Error(), "unknown command 'nosuchcommand'") {
				t.Fatalf("an unknown command: %v", err)
			}
			if err := rdb.ZAdd(ctx, "board", redis.Z{Score: 1, Member: "x"}).Err(); err != nil {
				t.Fatalf("the connection is still good after errors: %v", err)
			}
			if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 204 {
				t.Fatalf("DBSIZE = %d, %v; want 204", n, err)
			}

			// COMMAND describes the commands COMMAND COUNT counts, in a
			// form the client reads.
			cmds, err := rdb.Command(ctx).Result()
			if err != nil {
				t.Fatalf("COMMAND: %v", err)
			}
			if n, err := rdb.Do(ctx, "COMMAND", "COUNT").Int(); err != nil || n != len(cmds) {
				t.Fatalf("COMMAND COUNT = %d, %v; COMMAND lists %d", n, err, len(cmds))
			}
			if get := cmds["get"]; get == nil || get.Arity != 2 || get.FirstKeyPos != 1 || get.LastKeyPos != 1 || get.StepCount != 1 {
				t.Fatalf("COMMAND's entry for get: %+v", get)
			}
		})
	}
}
