package server

import (
	"testing"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/sock"
)

// TestAcceptAllTakesEveryPending: one call accepts every connection
// waiting in the backlog, not just the first.
func TestAcceptAllTakesEveryPending(t *testing.T) {
	sa, err := sock.ParseAddr("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := sock.Listen(sa)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := sock.SetNonblock(fd); err != nil {
		t.Fatal(err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	for range n {
		c, err := sock.Dial(bound.(*unix.SockaddrInet4))
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(c)
	}
	var got []int
	acceptAll(fd, func(connfd int) { got = append(got, connfd) })
	for _, c := range got {
		unix.Close(c)
	}
	if len(got) != n {
		t.Fatalf("accepted %d of %d pending connections in one call", len(got), n)
	}
	if gAccept.pausedUntil != 0 {
		t.Fatal("accepting paused without a failure")
	}
}

// TestAcceptErrorsRateLimited: of many failed accepts in a row only the
// first is logged at once; the others are counted for the next line.
func TestAcceptErrorsRateLimited(t *testing.T) {
	saved := gAccept
	t.Cleanup(func() { gAccept = saved })
	gAccept.lastLogUs, gAccept.unlogged = 0, 0
	for range 1000 {
		logAcceptError(unix.EMFILE)
	}
	if gAccept.lastLogUs == 0 || gAccept.unlogged != 999 {
		t.Fatalf("after 1000 failures in a row: logged at %d, %d not logged; want 1 logged, 999 counted",
			gAccept.lastLogUs, gAccept.unlogged)
	}
}
