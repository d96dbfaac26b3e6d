package sock

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// nonblockingPair returns a connected pair of nonblocking stream sockets.
func nonblockingPair(t *testing.T) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		t.Cleanup(func() { unix.Close(fd) })
		if err := SetNonblock(fd); err != nil {
			t.Fatal(err)
		}
	}
	return fds[0], fds[1]
}

// TestWouldBlockIsBareAndFree: a read with nothing to read and a write to
// a full socket fail with EAGAIN itself, which an event loop meets all the
// time, so it must cost no allocation.
func TestWouldBlockIsBareAndFree(t *testing.T) {
	a, b := nonblockingPair(t)
	buf := make([]byte, 64<<10)

	_, err := Read(a, buf)
	if err != unix.EAGAIN || !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("Read on an empty socket: %#v, want unix.EAGAIN", err)
	}
	if n := testing.AllocsPerRun(100, func() { Read(a, buf) }); n != 0 {
		t.Errorf("Read that would block: %v allocations, want 0", n)
	}

	// Fill b's send buffer (and a's receive buffer) until a write would
	// block; bounded, as a socket buffer is at most a few MiB.
	for i := 0; ; i++ {
		if i == 10_000 {
			t.Fatal("the socket never filled up")
		}
		if _, err = Write(b, buf); err != nil {
			break
		}
	}
	if err != unix.EAGAIN {
		t.Fatalf("Write to a full socket: %#v, want unix.EAGAIN", err)
	}
	if n := testing.AllocsPerRun(100, func() { Write(b, buf) }); n != 0 {
		t.Errorf("Write that would block: %v allocations, want 0", n)
	}

	// Other errors still name the call.
	if err := unix.Shutdown(a, unix.SHUT_RD); err != nil {
		t.Fatal(err)
	}
	var serr *os.SyscallError
	if _, err := Write(b, buf[:1]); !errors.As(err, &serr) || serr.Syscall != "write" || !errors.Is(err, unix.EPIPE) {
		t.Errorf("Write to a peer that stopped reading: %#v, want EPIPE wrapped as a write error", err)
	}
}
