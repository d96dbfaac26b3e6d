// Package sock wraps the few socket syscalls the book uses, through
// golang.org/x/sys/unix rather than Go's net package: the point of these
// chapters is to see the file descriptors and syscalls a server is made of.
// Every error names the syscall that failed, except the EAGAIN of Read and
// Write on a nonblocking socket, which comes back bare (see Read), and the
// EINTR of Poller.Wait.
package sock

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ParseAddr parses an IPv4 "host:port" address ("localhost" means 127.0.0.1).
func ParseAddr(addr string) (*unix.SockaddrInet4, error) {
	if port, ok := strings.CutPrefix(addr, "localhost:"); ok {
		addr = "127.0.0.1:" + port
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() {
		return nil, fmt.Errorf("bad address %q: want an IPv4 host:port such as 127.0.0.1:1234", addr)
	}
	return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}, nil
}

// Listen creates a TCP socket listening on sa: socket, SO_REUSEADDR (so a
// restarted server can bind again at once), bind, listen.
// It first has the Go runtime set up its poller (see StartRuntimePoller).
func Listen(sa *unix.SockaddrInet4) (int, error) {
	if err := StartRuntimePoller(); err != nil {
		return -1, err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("setsockopt", err)
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("bind", err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("listen", err)
	}
	return fd, nil
}

// LocalAddr reports the address a socket is bound to. After binding port 0
// it tells which port the kernel picked.
func LocalAddr(fd int) (string, error) {
	return addrOf(fd, unix.Getsockname, "getsockname")
}

// PeerAddr reports the address a connected socket's peer has.
func PeerAddr(fd int) (string, error) {
	return addrOf(fd, unix.Getpeername, "getpeername")
}

// addrOf is the IPv4 address get reports for fd, as host:port.
func addrOf(fd int, get func(int) (unix.Sockaddr, error), name string) (string, error) {
	sa, err := get(fd)
	if err != nil {
		return "", os.NewSyscallError(name, err)
	}
	in4, ok := sa.(*unix.SockaddrInet4)
	if !ok {
		return "", fmt.Errorf("%s: not an IPv4 address", name)
	}
	return netip.AddrPortFrom(netip.AddrFrom4(in4.Addr), uint16(in4.Port)).String(), nil
}

// Accept takes the next connection from a listening socket, retried on EINTR.
func Accept(fd int) (int, error) {
	for {
		connfd, _, err := unix.Accept(fd)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, os.NewSyscallError("accept", err)
		}
		return connfd, nil
	}
}

// Dial connects a new TCP socket to sa.
func Dial(sa *unix.SockaddrInet4) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("connect", err)
	}
	return fd, nil
}

// Read is read(2), retried when a signal interrupts it. The Go runtime
// sends signals to its own threads (for preemption), so EINTR is routine.
// On a nonblocking socket with nothing to read it returns unix.EAGAIN
// itself, unwrapped, so that the event loop's most common error costs no
// allocation; errors.Is(err, unix.EAGAIN) holds either way.
func Read(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return 0, err
		}
		if err != nil {
			return 0, os.NewSyscallError("read", err)
		}
		return n, nil
	}
}

// Write is write(2), retried on EINTR. It may write fewer bytes than asked.
// Like Read, it returns unix.EAGAIN unwrapped.
func Write(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Write(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return 0, err
		}
		if err != nil {
			return 0, os.NewSyscallError("write", err)
		}
		return n, nil
	}
}

// ReadFull reads exactly len(buf) bytes, looping over short reads. It
// returns io.EOF if the peer closed before sending anything, and
// io.ErrUnexpectedEOF if it closed part-way.
func ReadFull(fd int, buf []byte) error {
	for got := 0; got < len(buf); {
		n, err := Read(fd, buf[got:])
		if err != nil {
			return err
		}
		if n == 0 {
			if got == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		got += n
	}
	return nil
}

// WriteAll writes all of buf, looping over short writes.
func WriteAll(fd int, buf []byte) error {
	for len(buf) > 0 {
		n, err := Write(fd, buf)
		if err != nil {
			return err
		}
		buf = buf[n:]
	}
	return nil
}

// SetNonblock puts fd in nonblocking mode (fcntl O_NONBLOCK): reads and
// writes that would wait fail with EAGAIN instead, so one thread can serve
// many sockets.
func SetNonblock(fd int) error {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags|unix.O_NONBLOCK); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	return nil
}

// SetNoDelay turns off Nagle's algorithm on a TCP socket (TCP_NODELAY), so
// a small write is sent at once even while earlier data is unacknowledged.
func SetNoDelay(fd int) error {
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return nil
}
