package server

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/sock"
)

// kAcceptBackoffMs is how long the server stops accepting after accept
// fails for want of a resource, such as file descriptors. The pending
// connections stay in the listen backlog meanwhile. Without the pause
// the listening socket, still readable, wakes the loop at once, accept
// fails again, and the server spins at 100% CPU writing the same error.
const kAcceptBackoffMs = 100

// maxClients is the most connections served at once: Redis's maxclients,
// 10,000 unless the -maxclients flag says otherwise, and fewer if the
// descriptor limit is lower (see clampMaxClients). A connection over it is
// closed at once (refuseConn).
var maxClients = 10000

// kReservedFds is how many descriptors clampMaxClients keeps for the
// server's own (listeners, epoll, log files), as Redis keeps 32.
const kReservedFds = 32

// connsOpen is how many connections are open; connsRefused counts those
// closed at once for maxClients.
var connsOpen, connsRefused int

// clampMaxClients returns n, or fewer if the process may not open n
// descriptors besides kReservedFds. (Go raises the soft limit to the hard
// one when a program starts.)
func clampMaxClients(n int) int {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return n
	}
	if fds := int64(lim.Cur) - kReservedFds; fds < int64(n) { // lim.Cur is an int64 on macOS and FreeBSD
		return int(max(fds, 1))
	}
	return n
}

// refuseConn closes a connection accepted over maxClients; on the RESP
// listener it first says why, in Redis's words. The book's protocol has
// no message a server sends unasked, so there the client finds the
// connection closed.
func refuseConn(connfd int, resp bool) {
	connsRefused++
	if resp {
		// A new socket's buffer has room for this: the write does not block.
		unix.Write(connfd, []byte("-ERR max number of clients reached\r\n"))
	}
	connMsg(os.Stderr, "refusing a connection: %d open, the most (-maxclients)", connsOpen)
	unix.Close(connfd)
}

// kAcceptLogEveryUs is the least time between two log lines about failed
// accepts; the failures in between are counted in the next line.
const kAcceptLogEveryUs = 1_000_000

// gAccept is the state of accepting new connections.
var gAccept struct {
	// pausedUntil is the monotonic time, in microseconds, at which
	// accepting resumes; 0 while accepting.
	pausedUntil uint64
	// lastLogUs is when a failed accept was last logged; unlogged counts
	// the failures since.
	lastLogUs uint64
	unlogged  int
}

// acceptPaused reports whether accepting is paused, resuming it first if
// the pause is over.
func acceptPaused() bool {
	if gAccept.pausedUntil != 0 && getMonotonicUsec() >= gAccept.pausedUntil {
		gAccept.pausedUntil = 0
	}
	return gAccept.pausedUntil != 0
}

// acceptAll accepts every pending connection on the listening socket fd
// and hands each to start, already nonblocking. One wakeup may find many connections waiting,
// and accepting one per loop iteration would leave the rest for later
// iterations. It stops at the first error: for want of a resource it
// pauses accepting (see kAcceptBackoffMs), and it logs the error at most
// once per kAcceptLogEveryUs.
func acceptAll(fd int, start func(connfd int)) {
	for {
		connfd, err := sock.AcceptNonblock(fd)
		switch {
		case err == nil:
			start(connfd)
			continue
		case errors.Is(err, unix.EAGAIN):
			return // none left
		case errors.Is(err, unix.ECONNABORTED):
			continue // that one gave up while waiting; take the next
		case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE),
			errors.Is(err, unix.ENOBUFS), errors.Is(err, unix.ENOMEM):
			gAccept.pausedUntil = getMonotonicUsec() + kAcceptBackoffMs*1000
		}
		logAcceptError(err)
		return
	}
}

// logAcceptError logs a failed accept, unless one was logged less than
// kAcceptLogEveryUs ago; it then only counts it.
func logAcceptError(err error) {
	now := getMonotonicUsec()
	if gAccept.lastLogUs != 0 && now-gAccept.lastLogUs < kAcceptLogEveryUs {
		gAccept.unlogged++
		return
	}
	if gAccept.unlogged > 0 {
		msg("%v (and %d more failed accepts since the last message)", err, gAccept.unlogged)
	} else {
		msg("%v", err)
	}
	gAccept.lastLogUs = now
	gAccept.unlogged = 0
}
