package sock

import "os"

// StartRuntimePoller makes the Go runtime create its own poller (an epoll
// instance and an eventfd) now, while file descriptors are plentiful.
//
// These servers never use Go's network poller, but the runtime creates it
// lazily the first time it arms a timer, and it arms timers behind our
// back (the garbage collector's background scavenger sleeps on one). A
// server that has run out of descriptors (too many clients) would then
// die with "fatal error: runtime: netpollinit failed" instead of merely
// failing an accept. Opening a pipe through package os registers its ends
// with the poller, which creates it; the pipe itself is closed at once.
func StartRuntimePoller() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	r.Close()
	w.Close()
	return nil
}
