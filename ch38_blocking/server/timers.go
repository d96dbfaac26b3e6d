package server

import (
	"math"
	"os"
	"time"

	"example.com/byor/ch38_blocking/dlist"
)

// idleTimeoutMs is how long a connection of the book's protocol may stay
// silent before the server closes it: the book's k_idle_timeout_ms, 5 s unless -idle-timeout says
// otherwise.
var idleTimeoutMs uint64 = 5000

// clockStart is the origin of getMonotonicUsec.
var clockStart = time.Now()

// getMonotonicUsec reads the monotonic clock, in microseconds since the
// server started. Timers must not use wall-clock time, which can jump
// backwards.
//
// The clock is read through Go's time package, which takes it from the
// vDSO, a page the kernel maps into every process, without a system call;
// clock_gettime(2) through unix.ClockGettime is a real system call, and
// the loop reads the clock several times per iteration.
func getMonotonicUsec() uint64 {
	return uint64(time.Since(clockStart).Microseconds())
}

// kMaxWorks bounds how many keys one loop iteration may expire, so that a
// mass expiry is spread over many iterations instead of stalling clients.
const kMaxWorks = 2000

// nextTimerMs returns how long epoll_wait may sleep: until the nearest timer
// is due. The idle list is ordered by last activity, so its first
// connection's timer is the nearest idle timer; the heap's root is the
// nearest TTL.
func nextTimerMs() int {
	nowUs := getMonotonicUsec()
	nextUs := idleDueUs(&gData.idleList, idleTimeoutMs)
	if respTimeoutMs > 0 {
		nextUs = min(nextUs, idleDueUs(respIdleList(), respTimeoutMs))
	}
	if len(gData.heap) > 0 && gData.heap[0].Val < nextUs {
		nextUs = gData.heap[0].Val
	}
	if len(gData.fieldHeap) > 0 {
		// A field has expired once the wall clock passes its time, so the
		// hash's timer is due 1 ms after it; convert that to the monotonic
		// clock the other timers use.
		nowMs, dueMs := getUnixMs(), gData.fieldHeap[0].Val+1
		dueUs := nowUs
		if dueMs > nowMs {
			dueUs += (dueMs - nowMs) * 1000
		}
		nextUs = min(nextUs, dueUs)
	}
	if gAccept.pausedUntil != 0 {
		nextUs = min(nextUs, gAccept.pausedUntil) // resume accepting
	}
	if bufUs := nextBufTimerUs(); bufUs != 0 {
		nextUs = min(nextUs, bufUs) // give back an idle connection's buffers
	}
	if len(unwatchQueue) > 0 || blockReady.Len() > 0 || len(blockGone) > 0 {
		nextUs = nowUs // closed connections' keys to unwatch (watch.go), ready keys (blocking.go)
	}
	nextUs = min(nextUs, blockNextUs())     // a parked client's timeout (blocking.go)
	nextUs = min(nextUs, aofNextUs(nowUs))  // a log write to try again
	nextUs = min(nextUs, snapNextUs(nowUs)) // a snapshot's next step (snapshot.go)
	if nextUs == math.MaxUint64 {
		return 10000 // no timers; any timeout will do
	}
	if nextUs <= nowUs {
		return 0 // already due
	}
	return int(min((nextUs-nowUs)/1000, math.MaxInt32))
}

// idleDueUs returns when the first connection of list, a list ordered by
// last activity, has been idle for timeoutMs; math.MaxUint64 if none.
func idleDueUs(list *dlist.DList[conn], timeoutMs uint64) uint64 {
	if list.Empty() {
		return math.MaxUint64
	}
	return list.Next().Owner.idleStart + timeoutMs*1000
}

// closeIdle closes the connections of list idle for timeoutMs by nowUs.
func closeIdle(list *dlist.DList[conn], timeoutMs, nowUs uint64) {
	for idleDueUs(list, timeoutMs) < nowUs {
		next := list.Next().Owner
		connMsg(os.Stdout, "removing idle connection: %d", next.fd)
		connHungUp(next)
	}
}

// processTimers closes every connection whose idle timer is due, and
// removes keys whose TTL is due, at most kMaxWorks of them.
func processTimers() {
	// epoll_wait counts in whole milliseconds and may wake up to 1 ms early,
	// so a timer less than 1 ms away counts as due.
	nowUs := getMonotonicUsec() + 1000
	closeIdle(&gData.idleList, idleTimeoutMs, nowUs)
	if respTimeoutMs > 0 {
		closeIdle(respIdleList(), respTimeoutMs, nowUs)
	}
	giveBackIdle(nowUs)
	blockTimeouts(nowUs) // parked clients whose timeout passed (blocking.go)

	nworks := 0
	for ; nworks < kMaxWorks && len(gData.heap) > 0 && gData.heap[0].Val < nowUs; nworks++ {
		ent := gData.heap[0].Owner
		aofExpired(ent.key())
		removeEntry(ent)
		entryDel(ent)
		gStats.expiredKeys++
	}

	// Hash fields share the same budget. A hash's timer fires once its
	// earliest field has expired; the hash reclaims expired fields earliest
	// first, as many as the budget allows, and its timer moves on.
	nowMs := getUnixMs()
	for nworks < kMaxWorks && len(gData.fieldHeap) > 0 && gData.fieldHeap[0].Val < nowMs {
		ent := gData.fieldHeap[0].Owner
		snapshotKeep(ent) // as it was, before its fields go (snapshot.go)
		removed := ent.obj.hash.ExpireSome(nowMs, kMaxWorks-nworks)
		nworks += removed
		touchKey(ent.key())
		if ent.obj.hash.StoredLen() == 0 {
			removeEntry(ent)
			entryDel(ent)
		} else {
			hashTimerUpdate(ent)
		}
		if removed == 0 {
			break // cannot happen while the timer is kept right; never spin
		}
	}
}

// getUnixMs reads the wall clock in unix milliseconds. Field expiry times
// are dates that clients give and read back (hexpireat, hpexpiretime), so
// they run on this clock rather than the monotonic one. Like
// getMonotonicUsec, it reads the clock without a system call.
func getUnixMs() uint64 {
	return uint64(time.Now().UnixMilli())
}
