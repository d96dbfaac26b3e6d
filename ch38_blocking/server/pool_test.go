package server

import (
	"fmt"
	"testing"

	"example.com/byor/ch38_blocking/threadpool"
)

// addMembers fills the sorted set at key with n members.
func addMembers(key string, n int) *entry {
	for i := 0; i < n; i++ {
		run("zadd", key, fmt.Sprint(i), fmt.Sprintf("m%d", i))
	}
	return lookupEntry(key)
}

// busyPool returns a pool whose 4 workers are all held until release is
// called, so that nothing queued on it can run before then.
func busyPool() (tp *threadpool.ThreadPool, release func()) {
	tp = threadpool.New(4)
	hold := make(chan struct{})
	for i := 0; i < 4; i++ {
		tp.Queue(func() { <-hold })
	}
	return tp, func() { close(hold) }
}

// TestLargeZSetTornDownOnPool: deleting a sorted set above
// kLargeContainerSize, by del or by expiry, leaves its teardown to the
// pool; one at the limit is torn down inline.
func TestLargeZSetTornDownOnPool(t *testing.T) {
	for _, how := range []string{"del", "expiry"} {
		t.Run(how, func(t *testing.T) {
			resetData(t)
			tp, release := busyPool()
			gData.tp = tp
			small := addMembers("small", kLargeContainerSize)
			large := addMembers("large", kLargeContainerSize+1)
			for _, key := range []string{"small", "large"} {
				if how == "del" {
					run("del", key)
				} else {
					run("pexpire", key, "0")
				}
			}
			if how == "expiry" {
				processTimers()
			}
			if gData.db.Len() != 0 {
				t.Fatalf("%d keys left after deleting both", gData.db.Len())
			}
			if small.obj.zset.Len() != 0 {
				t.Errorf("the set at the limit was not torn down inline: %d members left", small.obj.zset.Len())
			}
			if large.obj.zset.Len() != kLargeContainerSize+1 {
				t.Errorf("the large set was torn down inline, not queued: %d members left", large.obj.zset.Len())
			}
			release()
			tp.Close() // waits for the queued teardown
			if large.obj.zset.Len() != 0 {
				t.Errorf("the pool did not tear down the large set: %d members left", large.obj.zset.Len())
			}
		})
	}
}

// BenchmarkDeleteLargeZSet measures what deleting a 1,000,000-member
// sorted set costs the event loop, inline and through the pool. Dropping a
// set in Go is O(1) whatever its size (the garbage collector frees the
// nodes later, on its own threads), so each iteration deletes a fresh
// handle on the same million members: the work is exactly what a real
// delete does.
func BenchmarkDeleteLargeZSet(b *testing.B) {
	resetData(b)
	members := addMembers("big", 1_000_000).obj.zset
	for _, mode := range []string{"inline", "pool"} {
		b.Run(mode, func(b *testing.B) {
			gData.tp = threadpool.New(4)
			defer gData.tp.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				handle := *members // the same nodes, under a new header
				ent := &entry{obj: &object{zset: &handle}, heapIdx: -1}
				if mode == "inline" {
					entryDestroy(ent)
				} else {
					entryDel(ent)
				}
			}
		})
	}
}
