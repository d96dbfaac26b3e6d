//go:build unix && !(linux || freebsd)

package sock

import "golang.org/x/sys/unix"

// AcceptNonblock is Accept for an event loop: the new socket comes back
// nonblocking and close-on-exec. macOS has no accept4(2), so this takes
// accept and two fcntl calls (SetNonblock, and FD_CLOEXEC).
func AcceptNonblock(fd int) (int, error) {
	connfd, err := Accept(fd)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(connfd)
	if err := SetNonblock(connfd); err != nil {
		unix.Close(connfd)
		return -1, err
	}
	return connfd, nil
}
