package chapter_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisEveryday: go-redis's calls for the everyday commands parse
// the server's replies, in RESP2 and RESP3 (where INFO is a verbatim
// string).
func TestGoRedisEveryday(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := context.Background()
			rdb := newGoRedis(t, proto)

			if err := rdb.Set(ctx, "n", "41", time.Hour).Err(); err != nil {
				t.Fatalf("SET: %v", err)
			}
			if got, err := rdb.Incr(ctx, "n").Result(); err != nil || got != 42 {
				t.Fatalf("INCR n = %d, %v; want 42", got, err)
			}
			if got, err := rdb.DecrBy(ctx, "n", 50).Result(); err != nil || got != -8 {
				t.Fatalf("DECRBY n 50 = %d, %v; want -8", got, err)
			}
			if ttl, err := rdb.TTL(ctx, "n").Result(); err != nil || ttl < 50*time.Minute {
				t.Fatalf("TTL n = %v, %v; want the hour kept", ttl, err)
			}
			rdb.Set(ctx, "big", "9223372036854775807", 0)
			if err := rdb.Incr(ctx, "big").Err(); err == nil || !strings.Contains(err.Error(), "overflow") {
				t.Fatalf("INCR past int64: %v, want the overflow error", err)
			}

			if err := rdb.MSet(ctx, "a", "1", "b", "2").Err(); err != nil {
				t.Fatalf("MSET: %v", err)
			}
			rdb.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "m"})
			got, err := rdb.MGet(ctx, "a", "nosuch", "b", "z").Result()
			if err != nil || fmt.Sprint(got) != "[1 <nil> 2 <nil>]" {
				t.Fatalf("MGET = %v, %v; want [1 <nil> 2 <nil>]", got, err)
			}
			for key, want := range map[string]string{"a": "string", "z": "zset", "nosuch": "none"} {
				if got, err := rdb.Type(ctx, key).Result(); err != nil || got != want {
					t.Fatalf("TYPE %s = %q, %v; want %q", key, got, err, want)
				}
			}
			if rank, err := rdb.ZRevRank(ctx, "z", "m").Result(); err != nil || rank != 0 {
				t.Fatalf("ZREVRANK = %d, %v", rank, err)
			}
			if score, err := rdb.ZIncrBy(ctx, "z", 1.5, "m").Result(); err != nil || score != 2.5 {
				t.Fatalf("ZINCRBY = %v, %v; want 2.5", score, err)
			}

			info, err := rdb.Info(ctx, "keyspace", "stats").Result()
			if err != nil {
				t.Fatalf("INFO: %v", err)
			}
			for _, want := range []string{"# Stats\r\n", "total_commands_processed:", "# Keyspace\r\ndb0:keys=5,expires=1,avg_ttl=0\r\n"} {
				if !strings.Contains(info, want) {
					t.Errorf("INFO keyspace stats has no %q:\n%s", want, info)
				}
			}
			if strings.HasPrefix(info, "txt:") {
				t.Errorf("INFO in RESP%d kept the verbatim string's format: %q", proto, info[:10])
			}
		})
	}
}
