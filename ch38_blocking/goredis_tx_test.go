package chapter_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisTxPipelined: go-redis's TxPipelined sends MULTI, the
// commands and EXEC in one write and reads EXEC's array into each
// command's result. A runtime error is that command's alone: the others
// run, as in Redis.
func TestGoRedisTxPipelined(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := context.Background()
			rdb := newGoRedis(t, proto)
			if err := rdb.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "m"}).Err(); err != nil {
				t.Fatal(err)
			}
			var get *redis.StringCmd
			var score *redis.FloatCmd
			var wrong *redis.StringCmd
			cmds, err := rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				pipe.Set(ctx, "a", "1", 0)
				pipe.Set(ctx, "b", "2", 0)
				get = pipe.Get(ctx, "a")
				score = pipe.ZScore(ctx, "z", "m")
				wrong = pipe.Get(ctx, "z") // WRONGTYPE
				return nil
			})
			if err == nil || wrong.Err() == nil || err.Error() != wrong.Err().Error() {
				t.Fatalf("TxPipelined: %v; GET of a sorted set: %v; want its WRONGTYPE", err, wrong.Err())
			}
			if len(cmds) != 5 || get.Val() != "1" || score.Val() != 1.5 {
				t.Fatalf("%d results; GET a = %q, ZSCORE = %v", len(cmds), get.Val(), score.Val())
			}
			if got, err := rdb.Get(ctx, "b").Result(); err != nil || got != "2" {
				t.Fatalf("GET b after the transaction = %q, %v", got, err)
			}
		})
	}
}

// TestGoRedisWatch: optimistic locking as go-redis documents it. A write
// by another client between WATCH and EXEC fails the transaction
// (redis.TxFailedErr) and changes nothing; and clients that increment one
// counter concurrently, each with GET then SET inside WATCH and retrying
// on failure, lose no increment.
func TestGoRedisWatch(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := context.Background()
			rdb := newGoRedis(t, proto)

			err := rdb.Watch(ctx, func(tx *redis.Tx) error {
				if err := tx.Get(ctx, "counter").Err(); !errors.Is(err, redis.Nil) {
					return err
				}
				// Another connection of the pool writes the key.
				if err := rdb.Set(ctx, "counter", "100", 0).Err(); err != nil {
					return err
				}
				_, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
					pipe.Set(ctx, "counter", "1", 0)
					return nil
				})
				return err
			}, "counter")
			if !errors.Is(err, redis.TxFailedErr) {
				t.Fatalf("a transaction whose watched key was written: %v, want redis.TxFailedErr", err)
			}
			if got, _ := rdb.Get(ctx, "counter").Result(); got != "100" {
				t.Fatalf("counter = %q after the failed transaction, want the other write's 100", got)
			}

			// The documented increment, with GET and SET.
			increment := func(key string) error {
				for range 10000 { // retries; far more than contention needs
					err := rdb.Watch(ctx, func(tx *redis.Tx) error {
						n, err := tx.Get(ctx, key).Int()
						if err != nil && !errors.Is(err, redis.Nil) {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
							pipe.Set(ctx, key, strconv.Itoa(n+1), 0)
							return nil
						})
						return err
					}, key)
					if !errors.Is(err, redis.TxFailedErr) {
						return err
					}
				}
				return errors.New("too many retries")
			}
			const clients, each = 4, 25
			var wg sync.WaitGroup
			errs := make(chan error, clients*each)
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range each {
						if err := increment("shared"); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("increment: %v", err)
			}
			if got, err := rdb.Get(ctx, "shared").Int(); err != nil || got != clients*each {
				t.Fatalf("shared = %d, %v after %d increments", got, err, clients*each)
			}
		})
	}
}
