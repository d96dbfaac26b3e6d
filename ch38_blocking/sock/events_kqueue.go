//go:build darwin || freebsd

package sock

import (
	"os"

	"golang.org/x/sys/unix"
)

// kqueuePoller is the Poller on macOS and FreeBSD. kqueue watches reading
// and writing as two filters, each reported on its own; Wait merges the
// two reports of one descriptor into one Event, as epoll would give it.
type kqueuePoller struct {
	kq   int
	kevs []unix.Kevent_t // Wait's buffer, reused
	// slot[fd] is 1 + the index of fd's Event during a Wait that has
	// already reported it, else 0.
	slot []int32
}

func newNativePoller() (Poller, error) {
	return newKqueuePoller()
}

func newKqueuePoller() (*kqueuePoller, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, os.NewSyscallError("kqueue", err)
	}
	unix.CloseOnExec(kq)
	return &kqueuePoller{kq: kq}, nil
}

func (p *kqueuePoller) Add(fd int, events Events) error {
	return p.Modify(fd, 0, events)
}

// Modify adds or deletes the filters that change, in one kevent call.
func (p *kqueuePoller) Modify(fd int, old, events Events) error {
	var changes [2]unix.Kevent_t
	n := 0
	for _, f := range [...]struct {
		bit    Events
		filter int
	}{{In, unix.EVFILT_READ}, {Out, unix.EVFILT_WRITE}} {
		if (old^events)&f.bit == 0 {
			continue
		}
		flags := unix.EV_DELETE
		if events&f.bit != 0 {
			flags = unix.EV_ADD
		}
		unix.SetKevent(&changes[n], fd, f.filter, flags)
		n++
	}
	if n == 0 {
		return nil
	}
	if _, err := unix.Kevent(p.kq, changes[:n], nil, nil); err != nil {
		return os.NewSyscallError("kevent", err)
	}
	return nil
}

// Forget does nothing: closing a descriptor deletes its filters.
func (p *kqueuePoller) Forget(fd int) {}

func (p *kqueuePoller) Wait(events []Event, timeoutMs int) (int, error) {
	if len(p.kevs) < len(events) {
		p.kevs = make([]unix.Kevent_t, len(events))
	}
	var timeout *unix.Timespec
	if timeoutMs >= 0 {
		ts := unix.NsecToTimespec(int64(timeoutMs) * 1e6)
		timeout = &ts
	}
	n, err := unix.Kevent(p.kq, nil, p.kevs[:len(events)], timeout)
	if err == unix.EINTR {
		return 0, err
	}
	if err != nil {
		return 0, os.NewSyscallError("kevent", err)
	}
	m := 0
	for _, kev := range p.kevs[:n] {
		fd := int(kev.Ident)
		var got Events
		switch kev.Filter {
		case unix.EVFILT_READ:
			got = In // EV_EOF too: the read that follows finds it
		case unix.EVFILT_WRITE:
			got = Out
			if kev.Flags&unix.EV_EOF != 0 {
				got |= Err // the peer is gone: the write will fail
			}
		}
		if kev.Flags&unix.EV_ERROR != 0 {
			got |= Err
		}
		for len(p.slot) <= fd {
			p.slot = append(p.slot, 0)
		}
		if i := p.slot[fd]; i != 0 {
			events[i-1].Events |= got
			continue
		}
		events[m] = Event{Fd: int32(fd), Events: got}
		m++
		p.slot[fd] = int32(m)
	}
	for _, ev := range events[:m] {
		p.slot[ev.Fd] = 0
	}
	return m, nil
}

func (p *kqueuePoller) Close() error {
	return unix.Close(p.kq)
}
