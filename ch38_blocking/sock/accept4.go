//go:build linux || freebsd

package sock

import (
	"os"

	"golang.org/x/sys/unix"
)

// AcceptNonblock is Accept for an event loop: the new socket comes back
// already nonblocking and close-on-exec, set by accept4(2) in the same
// system call instead of two fcntl calls afterwards (SetNonblock).
func AcceptNonblock(fd int) (int, error) {
	for {
		connfd, _, err := unix.Accept4(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, os.NewSyscallError("accept4", err)
		}
		return connfd, nil
	}
}
