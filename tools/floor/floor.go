// Package floor is the least a server on this machine can spend per
// request of the book's protocol: it reads whatever a connection sent,
// counts the whole requests in it, and answers each with the same 5-byte
// reply (a nil, which loadgen takes for a set's answer and a get's miss),
// in one write. One read and one write per ready connection per wake-up,
// no parsing past the length prefixes, no data kept: what a chapter's
// server spends above this, at the same load, is what its own work costs.
// The performance page measures it beside the chapters and Redis.
package floor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nilReply is the book's reply frame for nil: a 4-byte length, then the tag.
var nilReply = []byte{1, 0, 0, 0, 0}

// maxMsg is the book's bound on a message's body; a longer one ends the
// connection, as the chapters' servers do.
const maxMsg = 4096

// conn is one client: the unanswered part of what it sent.
type conn struct {
	in  []byte
	out []byte
}

// Serve accepts connections on the listening socket lfd and answers them
// until stop is closed or an error ends the loop. It blocks.
func Serve(lfd int, stop <-chan struct{}) error {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	defer unix.Close(epfd)
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, lfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(lfd)}); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	conns := map[int]*conn{}
	defer func() {
		for fd := range conns {
			unix.Close(fd)
		}
	}()
	buf := make([]byte, 64<<10)
	events := make([]unix.EpollEvent, 256)
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		// A timeout, so that stop is seen; the measured loads never idle.
		n, err := unix.EpollWait(epfd, events, 100)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd == lfd {
				cfd, _, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
				if err != nil {
					continue // EAGAIN, or a client gone already
				}
				unix.SetsockoptInt(cfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
				if unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, cfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(cfd)}) != nil {
					unix.Close(cfd)
					continue
				}
				conns[cfd] = &conn{}
				continue
			}
			c := conns[fd]
			if c == nil || !c.serve(fd, buf) {
				unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, fd, nil)
				unix.Close(fd)
				delete(conns, fd)
			}
		}
	}
}

// serve does one read and one write for a ready connection, and reports
// whether it stays open. A reply the socket cannot take at once closes the
// connection: the floor does not buffer (loadgen's clients always read).
func (c *conn) serve(fd int, buf []byte) bool {
	n, err := rawIO(unix.SYS_READ, fd, buf)
	if errors.Is(err, unix.EAGAIN) {
		return true
	}
	if err != nil || n == 0 {
		return false
	}
	data := buf[:n]
	if len(c.in) > 0 {
		c.in = append(c.in, data...)
		data = c.in
	}
	c.out = c.out[:0]
	for len(data) >= 4 {
		// Compared before it becomes an int, which is 32 bits on some builds.
		size32 := binary.LittleEndian.Uint32(data)
		if size32 > maxMsg {
			return false
		}
		size := int(size32)
		if len(data) < 4+size {
			break
		}
		data = data[4+size:]
		c.out = append(c.out, nilReply...)
	}
	c.in = append(c.in[:0], data...)
	if len(c.out) == 0 {
		return true
	}
	w, err := rawIO(unix.SYS_WRITE, fd, c.out)
	return err == nil && w == len(c.out)
}

// rawIO is read(2) or write(2) as a raw system call: the socket is
// nonblocking, so the call never waits, and the Go runtime's bookkeeping
// for a call that might is left out, as a C server would.
func rawIO(trap uintptr, fd int, b []byte) (int, error) {
	n, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Listen opens a nonblocking TCP listener on the IPv4 address ip and port
// (0 picks one) and returns it and the port it took.
func Listen(ip [4]byte, port int) (fd, boundPort int, err error) {
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, fmt.Errorf("socket: %w", err)
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: ip}); err != nil {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("bind: %w", err)
	}
	if err := unix.Listen(fd, 4096); err != nil {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("listen: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("getsockname: %w", err)
	}
	return fd, sa.(*unix.SockaddrInet4).Port, nil
}
