package sock

// Events is a set of the readiness conditions a Poller watches a file
// descriptor for, and reports.
type Events uint32

const (
	// In: there is input to read (or a connection to accept, or the
	// peer's EOF).
	In Events = 1 << iota
	// Out: there is room to write.
	Out
	// Err: an error or a hang-up. It is reported whether asked for or not;
	// the next read or write says which.
	Err
)

// Event is one ready file descriptor, as Poller.Wait reports it.
type Event struct {
	Fd     int32
	Events Events
}

// A Poller watches many file descriptors at once and reports those that
// are ready. It is level-triggered, like poll(2): a descriptor is reported
// for as long as it is ready, so it need not be drained in one go. One
// Wait reports each descriptor at most once.
//
// The kernels differ in how the set is kept: epoll (Linux) and kqueue
// (macOS, FreeBSD) keep it in the kernel and change it by one syscall per
// change; the poll(2) fallback keeps it in user space and hands the whole
// list to the kernel on every Wait.
type Poller interface {
	// Add starts watching fd for events.
	Add(fd int, events Events) error
	// Modify changes what fd is watched for from old, which must be what
	// it was watched for until now, to events. kqueue needs old: it keeps
	// reading and writing as two separate filters, added and deleted one
	// by one.
	Modify(fd int, old, events Events) error
	// Forget stops watching fd. Call it just before closing fd, and only
	// then: epoll and kqueue drop a descriptor by themselves when it is
	// closed, so for them Forget costs nothing; the poll(2) fallback has
	// to take it out of its list.
	Forget(fd int)
	// Wait waits up to timeoutMs milliseconds (-1: no limit) until some
	// watched descriptors are ready, stores them in events and returns how
	// many it stored. Those that do not fit are reported by a later call.
	// When a signal interrupts it, it returns unix.EINTR itself, unwrapped.
	Wait(events []Event, timeoutMs int) (int, error)
	// Close releases the poller.
	Close() error
}

// NewPoller returns the system's poller: epoll on Linux, kqueue on macOS
// and FreeBSD. Built with -tags pollfallback, or on another system, it
// returns one on poll(2), which works everywhere.
func NewPoller() (Poller, error) {
	return newPoller()
}
