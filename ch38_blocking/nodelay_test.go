package chapter_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"example.com/byor/testkit"
)

// TestAcceptedSocketsHaveNoDelay: the server turns Nagle's algorithm off
// (TCP_NODELAY) on every connection it accepts. The test borrows the
// server's own socket for one connection with pidfd_getfd(2), which a
// parent may use on its child, and asks it with getsockopt.
func TestAcceptedSocketsHaveNoDelay(t *testing.T) {
	srv := testkit.StartTestServer(t)
	c := dialRaw(t, srv.Addr)
	exchange(t, c, serNil(), "set", "k", "v") // the connection is accepted
	pid := srv.Pid()

	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Skipf("pidfd_open: %v (Linux 5.3 or newer is needed)", err)
	}
	defer unix.Close(pidfd)

	// The server's end of our connection: the socket whose local address
	// is the server's and whose peer is our end.
	client := c.LocalAddr().(*net.TCPAddr)
	server := c.RemoteAddr().(*net.TCPAddr)
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	found, sockets := false, 0
	for _, e := range entries {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err != nil || !strings.HasPrefix(link, "socket:") {
			continue
		}
		sockets++
		target, err := strconv.Atoi(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		fd, err := unix.PidfdGetfd(pidfd, target, 0)
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) {
			t.Skipf("pidfd_getfd: %v (Linux 5.6 or newer, and ptrace rights over the server, are needed)", err)
		}
		if err != nil {
			t.Fatalf("pidfd_getfd(%d): %v", target, err)
		}
		local, _ := unix.Getsockname(fd)
		peer, _ := unix.Getpeername(fd)
		l, lok := local.(*unix.SockaddrInet4)
		p, pok := peer.(*unix.SockaddrInet4)
		if lok && pok && l.Port == server.Port && p.Port == client.Port {
			found = true
			v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
			if err != nil {
				t.Fatalf("getsockopt TCP_NODELAY: %v", err)
			}
			if v == 0 {
				t.Errorf("TCP_NODELAY is off on the accepted socket (server fd %d)", target)
			}
			// O_NONBLOCK belongs to the open file, which the borrowed fd
			// shares: accept4 must have set it.
			flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			if err != nil {
				t.Fatalf("fcntl F_GETFL: %v", err)
			}
			if flags&unix.O_NONBLOCK == 0 {
				t.Errorf("the accepted socket is blocking (server fd %d)", target)
			}
		}
		unix.Close(fd)
	}
	if !found {
		t.Fatalf("none of the server's %d sockets is the accepted end of %v -> %v", sockets, client, server)
	}
}
