// Package threadpool is a fixed-size pool of worker goroutines fed from a
// single FIFO queue.
//
// The server uses it for one job: tearing down large values away from the
// event loop. In C, freeing a sorted set with millions of members means
// visiting every node, and doing that inline would stall every client for as
// long as it takes, so the book detaches a big key from the key space and
// queues its destruction here instead; small values are destroyed inline,
// because handing work to another thread has a cost too. (In Go the garbage
// collector already frees memory off the event loop; chapter 14's README
// measures what the pool still buys.)
//
// In everyday Go a buffered channel read by N goroutines would be the natural
// way to build this, since the channel already is a locked queue with
// blocking receive. This package deliberately spells out the mutex and the
// "not empty" condition variable instead, so that it maps one to one onto the
// pthread design the book teaches (lock, wait in a loop, pop, unlock, run).
package threadpool

import "sync"

// Work is one queued task, the book's struct Work. C needs a function pointer
// plus a void* argument; a Go closure carries its argument with it.
type Work func()

// compactMin is how many consumed slots may pile up at the front of the
// queue before a queue that never fully drains is compacted.
const compactMin = 1024

// ThreadPool is a fixed set of workers consuming a shared FIFO queue. Create
// it with New; the zero value has no workers.
type ThreadPool struct {
	// workers counts running worker goroutines. Goroutines have no handle
	// like pthread_t, so this stands in for the book's vector of threads:
	// Close waits on it the way pthread_join would.
	workers sync.WaitGroup

	mu sync.Mutex
	// notEmpty is signalled when work is pushed (and broadcast by Close).
	// Its Locker is mu.
	notEmpty sync.Cond
	// queue[head:] holds the pending work in FIFO order. Popping advances
	// head instead of shifting the slice, and the slice is reset or
	// compacted so that the backing array does not grow without bound.
	queue  []Work
	head   int
	closed bool
}

// New starts a pool of numThreads workers (the book's thread_pool_init).
//
// It panics if numThreads <= 0: the book asserts the same, and a pool with
// no workers would accept work and silently never run it, which is a
// programming error rather than a condition a caller could handle.
func New(numThreads int) *ThreadPool {
	if numThreads <= 0 {
		panic("threadpool: numThreads must be positive")
	}
	tp := &ThreadPool{}
	tp.notEmpty.L = &tp.mu
	tp.workers.Add(numThreads)
	for range numThreads {
		go tp.worker()
	}
	return tp
}

// Queue appends f to the queue and wakes one idle worker (the book's
// thread_pool_queue). It never blocks on the work itself and is safe to call
// from any number of goroutines.
//
// Queue panics if called after Close, like sending on a closed channel: the
// workers are gone, so the work would otherwise be dropped without notice.
func (tp *ThreadPool) Queue(f func()) {
	// exercise: ch14-pool-queue
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.closed {
		panic("threadpool: Queue called after Close")
	}
	tp.queue = append(tp.queue, f)
	tp.notEmpty.Signal()
	// end exercise: ch14-pool-queue
}

// Close stops accepting work, lets the workers finish everything already
// queued, and waits for them to exit. Calling it again is harmless: later
// calls just wait for the same workers.
//
// The book's pool lives as long as the server process, so it never needs
// shutting down. In Go a pool is also created by tests and benchmarks, and
// workers left blocked on the condition variable would leak goroutines and
// give the race detector nothing to order the tasks' writes against the
// test's reads; Close supplies that end point.
func (tp *ThreadPool) Close() {
	tp.mu.Lock()
	tp.closed = true
	// Every idle worker must wake to notice closed, not just one.
	tp.notEmpty.Broadcast()
	tp.mu.Unlock()
	tp.workers.Wait()
}

// worker is the consumer loop: take the lock, sleep until there is work (or
// the pool is closed and drained), pop one task, release the lock, run it.
// The task runs without the lock so that other workers, and Queue, proceed.
func (tp *ThreadPool) worker() {
	// exercise: ch14-pool-queue
	defer tp.workers.Done()
	for {
		tp.mu.Lock()
		// Wait re-acquires the lock on waking, but another worker may
		// have emptied the queue in between, so the condition must be
		// checked again: always wait in a loop.
		for tp.head == len(tp.queue) && !tp.closed {
			tp.notEmpty.Wait()
		}
		if tp.head == len(tp.queue) {
			// Closed and nothing left to do.
			tp.mu.Unlock()
			return
		}
		w := tp.pop()
		tp.mu.Unlock()
		w()
	}
	// end exercise: ch14-pool-queue
}

// pop removes and returns the front of a non-empty queue. tp.mu must be held.
func (tp *ThreadPool) pop() Work {
	// exercise: ch14-pool-queue
	w := tp.queue[tp.head]
	// Drop the queue's reference: the closure may hold a huge value whose
	// memory should be reclaimable as soon as the task finishes.
	tp.queue[tp.head] = nil
	tp.head++
	switch {
	case tp.head == len(tp.queue):
		// Drained: reuse the whole backing array from the start.
		tp.queue = tp.queue[:0]
		tp.head = 0
	case tp.head >= compactMin && tp.head*2 >= len(tp.queue):
		// The producers keep the queue from ever draining; slide the
		// pending tail to the front. Waiting until at least half the
		// slice is consumed keeps the copying amortised O(1) per task.
		n := copy(tp.queue, tp.queue[tp.head:])
		clear(tp.queue[n:])
		tp.queue = tp.queue[:n]
		tp.head = 0
	}
	return w
	// end exercise: ch14-pool-queue
}
