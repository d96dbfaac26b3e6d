package server

import (
	"math"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch15_hardening/hashtable"
)

// idleTimeoutMs is how long a connection may stay silent before the server
// closes it: the book's k_idle_timeout_ms, 5 s unless -idle-timeout says
// otherwise.
var idleTimeoutMs uint64 = 5000

// getMonotonicUsec reads the monotonic clock, in microseconds. Timers must
// not use wall-clock time, which can jump backwards.
func getMonotonicUsec() uint64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) // cannot fail for this clock
	return uint64(ts.Sec)*1_000_000 + uint64(ts.Nsec)/1000
}

// kMaxWorks bounds how many keys one loop iteration may expire, so that a
// mass expiry is spread over many iterations instead of stalling clients.
const kMaxWorks = 2000

// nextTimerMs returns how long poll() may sleep: until the nearest timer
// is due. The idle list is ordered by last activity, so its first
// connection's timer is the nearest idle timer; the heap's root is the
// nearest TTL.
func nextTimerMs() int {
	nowUs := getMonotonicUsec()
	nextUs := uint64(math.MaxUint64)
	if !gData.idleList.Empty() {
		next := gData.idleList.Next().Owner
		nextUs = next.idleStart + idleTimeoutMs*1000
	}
	if len(gData.heap) > 0 && gData.heap[0].Val < nextUs {
		nextUs = gData.heap[0].Val
	}
	if gAccept.pausedUntil != 0 {
		nextUs = min(nextUs, gAccept.pausedUntil) // resume accepting
	}
	if nextUs == math.MaxUint64 {
		return 10000 // no timers; any timeout will do
	}
	if nextUs <= nowUs {
		return 0 // already due
	}
	return int(min((nextUs-nowUs)/1000, math.MaxInt32))
}

// processTimers closes every connection whose idle timer is due, and
// removes keys whose TTL is due, at most kMaxWorks of them.
func processTimers() {
	// poll() counts in whole milliseconds and may wake up to 1 ms early,
	// so a timer less than 1 ms away counts as due.
	nowUs := getMonotonicUsec() + 1000
	for !gData.idleList.Empty() {
		next := gData.idleList.Next().Owner
		nextUs := next.idleStart + idleTimeoutMs*1000
		if nextUs >= nowUs {
			break
		}
		logTo(os.Stdout, "removing idle connection: %d", next.fd)
		connDone(next)
	}

	for nworks := 0; nworks < kMaxWorks && len(gData.heap) > 0 && gData.heap[0].Val < nowUs; nworks++ {
		ent := gData.heap[0].Owner
		gData.db.Pop(&ent.node, hnodeSame)
		entryDel(ent)
	}
}

// hnodeSame matches a node only with itself: the expiring entry is already
// in hand, so there is no need to compare keys.
func hnodeSame(lhs, rhs *hashtable.HNode[entry]) bool {
	return lhs == rhs
}
