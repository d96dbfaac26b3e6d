package chapter_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisScan: go-redis's SCAN iterator, which sends the cursor back
// until it is 0, returns every key once, with MATCH and COUNT and without,
// in RESP2 and RESP3; ScanType sends TYPE.
func TestGoRedisScan(t *testing.T) {
	const n = 3000
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := context.Background()
			rdb := newGoRedis(t, proto)
			pipe := rdb.Pipeline()
			for i := range n {
				pipe.Set(ctx, fmt.Sprint("key:", i), "v", 0)
			}
			pipe.ZAdd(ctx, "board", redis.Z{Score: 1, Member: "ann"})
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				match string
				count int64
				want  int
			}{
				{"", 0, n + 1},
				{"key:*", 100, n},
				{"key:1??", 7, 100},
				{"nomatch*", 1000, 0},
			} {
				got := map[string]int{}
				it := rdb.Scan(ctx, 0, tc.match, tc.count).Iterator()
				for it.Next(ctx) {
					got[it.Val()]++
				}
				if err := it.Err(); err != nil {
					t.Fatalf("SCAN MATCH %q COUNT %d: %v", tc.match, tc.count, err)
				}
				for k, c := range got {
					if c != 1 {
						t.Errorf("SCAN MATCH %q COUNT %d returned %s %d times", tc.match, tc.count, k, c)
					}
				}
				if len(got) != tc.want {
					t.Errorf("SCAN MATCH %q COUNT %d: %d keys, want %d", tc.match, tc.count, len(got), tc.want)
				}
			}
			keys, cursor, err := rdb.ScanType(ctx, 0, "", 10000, "zset").Result()
			if err != nil || cursor != 0 || len(keys) != 1 || keys[0] != "board" {
				t.Errorf("SCAN TYPE zset: %q, cursor %d, %v", keys, cursor, err)
			}
		})
	}
}
