//go:build linux

package sock

import (
	"os"

	"golang.org/x/sys/unix"
)

// epoller is the Poller on Linux.
type epoller struct {
	epfd int
	evs  []unix.EpollEvent // Wait's buffer, reused
}

func newNativePoller() (Poller, error) {
	return newEpoller()
}

func newEpoller() (*epoller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	return &epoller{epfd: epfd}, nil
}

// toEpoll converts events to epoll's bits. EPOLLERR and EPOLLHUP need no
// asking: epoll always reports them.
func toEpoll(events Events) uint32 {
	var bits uint32
	if events&In != 0 {
		bits |= unix.EPOLLIN
	}
	if events&Out != 0 {
		bits |= unix.EPOLLOUT
	}
	return bits
}

func (p *epoller) ctl(op, fd int, events Events) error {
	ev := unix.EpollEvent{Events: toEpoll(events), Fd: int32(fd)}
	if err := unix.EpollCtl(p.epfd, op, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

func (p *epoller) Add(fd int, events Events) error {
	return p.ctl(unix.EPOLL_CTL_ADD, fd, events)
}

func (p *epoller) Modify(fd int, old, events Events) error {
	return p.ctl(unix.EPOLL_CTL_MOD, fd, events)
}

// Forget does nothing: the kernel drops a descriptor from every epoll set
// once its last file descriptor is closed.
func (p *epoller) Forget(fd int) {}

func (p *epoller) Wait(events []Event, timeoutMs int) (int, error) {
	if len(p.evs) < len(events) {
		p.evs = make([]unix.EpollEvent, len(events))
	}
	n, err := unix.EpollWait(p.epfd, p.evs[:len(events)], timeoutMs)
	if err == unix.EINTR {
		return 0, err
	}
	if err != nil {
		return 0, os.NewSyscallError("epoll_wait", err)
	}
	for i, ev := range p.evs[:n] {
		var got Events
		if ev.Events&unix.EPOLLIN != 0 {
			got |= In
		}
		if ev.Events&unix.EPOLLOUT != 0 {
			got |= Out
		}
		if ev.Events&(unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			got |= Err
		}
		events[i] = Event{Fd: ev.Fd, Events: got}
	}
	return n, nil
}

func (p *epoller) Close() error {
	return unix.Close(p.epfd)
}
