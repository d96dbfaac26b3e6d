package threadpool

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// timeout bounds every wait in these tests. It is generous on purpose: it
// only turns a hang into a failure and never decides a passing run.
const timeout = 10 * time.Second

// waitClosed waits for ch to be closed, failing the test after timeout.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) bool {
	t.Helper()
	select {
	case <-ch:
		return true
	case <-time.After(timeout):
		t.Errorf("timed out after %v waiting for %s", timeout, what)
		return false
	}
}

func TestNewPanicsOnNonPositive(t *testing.T) {
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d) did not panic", n)
				}
			}()
			New(n).Close()
		}()
	}
}

// Every queued task runs, and runs exactly once.
func TestEveryTaskRunsOnce(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	slots := make([]atomic.Int32, n)
	tp := New(4)
	for i := range slots {
		tp.Queue(func() { slots[i].Add(1) })
	}
	tp.Close()

	got := make([]int32, n)
	want := make([]int32, n)
	for i := range slots {
		got[i] = slots[i].Load()
		want[i] = 1
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run counts per task (-want +got):\n%s", diff)
	}
}

// With N workers, N tasks run at the same time, and never more than N.
//
// Tasks are queued in rounds of N. Each task of a round blocks until all N of
// its round have started, which only happens if N workers run concurrently.
// Every task also tracks how many tasks are running at once; with more than
// N workers (or a goroutine per task) the next round's tasks would start
// while the current round is still parked at its barrier.
func TestConcurrencyIsExactlyN(t *testing.T) {
	const workers = 4
	rounds := 50
	if testing.Short() {
		rounds = 10
	}

	type barrier struct {
		arrived atomic.Int32
		release chan struct{}
	}
	bars := make([]*barrier, rounds)
	for r := range bars {
		bars[r] = &barrier{release: make(chan struct{})}
	}

	// One shared deadline, so that a broken pool fails in about timeout
	// overall instead of timing out round after round.
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()

	var running, maxRunning, released atomic.Int32
	tp := New(workers)
	for r := range rounds {
		b := bars[r]
		for range workers {
			tp.Queue(func() {
				cur := running.Add(1)
				for {
					m := maxRunning.Load()
					if cur <= m || maxRunning.CompareAndSwap(m, cur) {
						break
					}
				}
				if b.arrived.Add(1) == workers {
					close(b.release)
				}
				select {
				case <-b.release:
					released.Add(1)
				case <-ctx.Done():
				}
				running.Add(-1)
			})
		}
	}
	tp.Close()

	if got, want := released.Load(), int32(rounds*workers); got != want {
		t.Errorf("%d tasks got past their barrier within %v, want %d", got, timeout, want)
	}
	if got := maxRunning.Load(); got != workers {
		t.Errorf("at most %d tasks ran at once, want exactly %d", got, workers)
	}
}

// A single worker starts tasks in the order they were queued.
func TestFIFOWithOneWorker(t *testing.T) {
	const n = 1000
	var mu sync.Mutex
	var got []int
	tp := New(1)
	for i := range n {
		tp.Queue(func() {
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
		})
	}
	tp.Close()

	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

// Many goroutines queue at once. Every task runs exactly once, and with a
// single worker each producer's own tasks keep their relative order (the
// queue is FIFO even though producers interleave).
func TestConcurrentProducers(t *testing.T) {
	const producers = 16
	perProducer := 1000
	if testing.Short() {
		perProducer = 200
	}
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			var mu sync.Mutex
			seen := make([][]int, producers)
			tp := New(workers)

			var wg sync.WaitGroup
			for p := range producers {
				wg.Go(func() {
					for i := range perProducer {
						tp.Queue(func() {
							mu.Lock()
							seen[p] = append(seen[p], i)
							mu.Unlock()
						})
					}
				})
			}
			wg.Wait()
			tp.Close()

			want := make([]int, perProducer)
			for i := range want {
				want[i] = i
			}
			for p := range producers {
				got := seen[p]
				if workers > 1 {
					// Several workers finish tasks out of order;
					// only the set of tasks is checked.
					got = sortedCopy(got)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("producer %d tasks (-want +got):\n%s", p, diff)
				}
			}
		})
	}
}

func sortedCopy(s []int) []int {
	// Tasks are numbered 0..len-1, so a counting pass sorts them and
	// exposes duplicates or gaps as a mismatch.
	out := make([]int, 0, len(s))
	counts := make([]int, len(s))
	for _, v := range s {
		if v >= 0 && v < len(counts) {
			counts[v]++
		} else {
			out = append(out, v) // out of range: keep it so the diff shows it
		}
	}
	for v, c := range counts {
		for range c {
			out = append(out, v)
		}
	}
	return out
}

// Close runs every task still queued when it is called, waits for them, and
// only then returns; a second Close is a no-op; Queue after Close panics.
func TestCloseRunsPendingWork(t *testing.T) {
	const workers = 2
	const pending = 500

	gate := make(chan struct{})
	var blocked sync.WaitGroup
	blocked.Add(workers)
	tp := New(workers)
	// Occupy every worker so the tasks below are still queued when Close
	// is called.
	for range workers {
		tp.Queue(func() {
			blocked.Done()
			<-gate
		})
	}
	var ran atomic.Int32
	for range pending {
		tp.Queue(func() { ran.Add(1) })
	}
	blockedCh := make(chan struct{})
	go func() { blocked.Wait(); close(blockedCh) }()
	if !waitClosed(t, blockedCh, "workers to pick up the gate tasks") {
		close(gate)
		return
	}

	closeDone := make(chan struct{})
	go func() {
		tp.Close()
		close(closeDone)
	}()

	// Wait until Close has marked the pool closed, so the pending tasks
	// are provably drained by Close and not before it.
	deadline := time.Now().Add(timeout)
	for {
		tp.mu.Lock()
		closed := tp.closed
		tp.mu.Unlock()
		if closed {
			break
		}
		if time.Now().After(deadline) {
			close(gate)
			t.Fatalf("Close did not mark the pool closed within %v", timeout)
		}
		runtime.Gosched()
	}

	select {
	case <-closeDone:
		t.Fatal("Close returned while tasks were still running")
	default:
	}
	if got := ran.Load(); got != 0 {
		t.Fatalf("%d pending tasks ran while every worker was blocked", got)
	}

	close(gate)
	if !waitClosed(t, closeDone, "Close to return") {
		return
	}
	if got := ran.Load(); got != pending {
		t.Errorf("Close returned after %d of %d pending tasks ran", got, pending)
	}

	// A second Close must return (the workers are already gone).
	again := make(chan struct{})
	go func() { tp.Close(); close(again) }()
	waitClosed(t, again, "second Close to return")

	func() {
		defer func() {
			if recover() == nil {
				t.Error("Queue after Close did not panic")
			}
		}()
		tp.Queue(func() { t.Error("task queued after Close ran") })
	}()
}

// Close on a pool that never got work returns: idle workers are woken.
func TestCloseIdle(t *testing.T) {
	tp := New(8)
	done := make(chan struct{})
	go func() { tp.Close(); close(done) }()
	waitClosed(t, done, "Close of an idle pool")
}

// After the queue drains, the slice is reset to the start of its backing
// array and holds no references to finished tasks.
func TestQueueReleasesDrainedWork(t *testing.T) {
	gate := make(chan struct{})
	tp := New(1)
	tp.Queue(func() { <-gate })
	for range 100 {
		tp.Queue(func() {})
	}
	close(gate)
	tp.Close()

	if len(tp.queue) != 0 || tp.head != 0 {
		t.Errorf("drained queue has len %d, head %d; want 0, 0", len(tp.queue), tp.head)
	}
	for i, w := range tp.queue[:cap(tp.queue)] {
		if w != nil {
			t.Errorf("backing array slot %d still holds a finished task", i)
		}
	}
}

// A queue that never drains is compacted: its length stays bounded while
// the order is preserved. This drives pop directly, with no workers.
func TestQueueCompactsWithoutDraining(t *testing.T) {
	tp := &ThreadPool{}
	var popped []int
	next := 0
	push := func() {
		i := next
		next++
		tp.queue = append(tp.queue, func() { popped = append(popped, i) })
	}
	const backlog = 10
	for range backlog {
		push()
	}
	maxLen := 0
	const steps = 100000
	for range steps {
		push()
		tp.pop()()
		maxLen = max(maxLen, len(tp.queue))
	}
	// Consumed slots may pile up to compactMin, plus the live backlog.
	if limit := compactMin + backlog + 1; maxLen > limit {
		t.Errorf("queue slice grew to %d, want at most %d", maxLen, limit)
	}
	if got := len(tp.queue) - tp.head; got != backlog {
		t.Errorf("%d tasks pending, want %d", got, backlog)
	}
	for i, w := range tp.queue[:tp.head] {
		if w != nil {
			t.Errorf("consumed slot %d still holds a task", i)
		}
	}
	want := make([]int, steps)
	for i := range want {
		want[i] = i
	}
	if diff := cmp.Diff(want, popped); diff != "" {
		t.Errorf("pop order (-want +got):\n%s", diff)
	}
}

// BenchmarkQueue measures queueing a trivial task and having it run.
func BenchmarkQueue(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var ran atomic.Int64
			tp := New(workers)
			b.ResetTimer()
			for range b.N {
				tp.Queue(func() { ran.Add(1) })
			}
			// Close is timed too: the cost measured is queueing a
			// task and running it, not just queueing it.
			tp.Close()
			b.StopTimer()
			if got := ran.Load(); got != int64(b.N) {
				b.Fatalf("%d of %d tasks ran", got, b.N)
			}
		})
	}
}
