//go:build unix

package sock

import (
	"os"

	"golang.org/x/sys/unix"
)

// pollList is the Poller on poll(2), the fallback for any Unix. It keeps
// the list of watched descriptors itself, the array poll takes, and hands
// all of it to the kernel on every Wait: each call costs time in
// proportion to the connections, ready or not, which is what epoll and
// kqueue were made to avoid. Build with -tags pollfallback to use it where
// those exist.
type pollList struct {
	fds []unix.PollFd
	// at[fd] is 1 + fd's index in fds, or 0 if fd is not watched.
	at []int32
	// Where the next Wait starts looking, past the last descriptor the
	// previous one reported when events was too short for all: otherwise
	// the ones at the end of the list would be left over every time.
	next int
}

func newPollList() *pollList {
	return &pollList{}
}

// toPoll converts events to poll's bits. POLLERR, POLLHUP and POLLNVAL
// need no asking.
func toPoll(events Events) int16 {
	var bits int16
	if events&In != 0 {
		bits |= unix.POLLIN
	}
	if events&Out != 0 {
		bits |= unix.POLLOUT
	}
	return bits
}

func (p *pollList) Add(fd int, events Events) error {
	for len(p.at) <= fd {
		p.at = append(p.at, 0)
	}
	if p.at[fd] != 0 {
		return os.NewSyscallError("poll", unix.EEXIST)
	}
	p.fds = append(p.fds, unix.PollFd{Fd: int32(fd), Events: toPoll(events)})
	p.at[fd] = int32(len(p.fds))
	return nil
}

func (p *pollList) Modify(fd int, old, events Events) error {
	if fd >= len(p.at) || p.at[fd] == 0 {
		return os.NewSyscallError("poll", unix.ENOENT)
	}
	p.fds[p.at[fd]-1].Events = toPoll(events)
	return nil
}

// Forget moves the last descriptor of the list into fd's place.
func (p *pollList) Forget(fd int) {
	if fd >= len(p.at) || p.at[fd] == 0 {
		return
	}
	i, last := p.at[fd]-1, len(p.fds)-1
	p.fds[i] = p.fds[last]
	p.at[p.fds[i].Fd] = i + 1
	p.fds = p.fds[:last]
	p.at[fd] = 0
}

func (p *pollList) Wait(events []Event, timeoutMs int) (int, error) {
	ready, err := unix.Poll(p.fds, timeoutMs)
	if err == unix.EINTR {
		return 0, err
	}
	if err != nil {
		return 0, os.NewSyscallError("poll", err)
	}
	m := 0
	for k := 0; k < len(p.fds) && m < ready && m < len(events); k++ {
		i := (p.next + k) % len(p.fds)
		pfd := p.fds[i]
		if pfd.Revents == 0 {
			continue
		}
		var got Events
		if pfd.Revents&unix.POLLIN != 0 {
			got |= In
		}
		if pfd.Revents&unix.POLLOUT != 0 {
			got |= Out
		}
		if pfd.Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			got |= Err
		}
		events[m] = Event{Fd: pfd.Fd, Events: got}
		m++
		if m == len(events) {
			p.next = (i + 1) % len(p.fds)
		}
	}
	return m, nil
}

func (p *pollList) Close() error {
	p.fds, p.at = nil, nil
	return nil
}
