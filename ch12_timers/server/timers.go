package server

import (
	"fmt"

	"golang.org/x/sys/unix"
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

// nextTimerMs returns how long poll() may sleep: until the nearest timer
// is due. The idle list is ordered by last activity, so its first
// connection's timer is the nearest.
func nextTimerMs() int {
	// exercise: ch12-idle-timers
	if gData.idleList.Empty() {
		return 10000 // no timers; any timeout will do
	}
	nowUs := getMonotonicUsec()
	next := gData.idleList.Next().Owner
	nextUs := next.idleStart + idleTimeoutMs*1000
	if nextUs <= nowUs {
		return 0 // already due
	}
	return int((nextUs - nowUs) / 1000)
	// end exercise: ch12-idle-timers
}

// processTimers closes every connection whose idle timer is due.
func processTimers() {
	// exercise: ch12-idle-timers
	nowUs := getMonotonicUsec()
	for !gData.idleList.Empty() {
		next := gData.idleList.Next().Owner
		nextUs := next.idleStart + idleTimeoutMs*1000
		// poll() counts in whole milliseconds and may wake up to 1 ms
		// early, so a timer less than 1 ms away counts as due.
		if nextUs >= nowUs+1000 {
			break
		}
		fmt.Printf("removing idle connection: %d\n", next.fd)
		connDone(next)
	}
	// end exercise: ch12-idle-timers
}
