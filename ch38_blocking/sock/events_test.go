package sock

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// pollerKinds makes a fresh poller of each kind this system has, by name:
// the poll(2) fallback everywhere, and the system's own (see the files
// events_*_test.go).
var pollerKinds = map[string]func() (Poller, error){
	"poll": func() (Poller, error) { return newPollList(), nil },
}

// hangGuardMs bounds a Wait that should return at once because a
// descriptor is ready; it only keeps a broken poller from hanging the test.
const hangGuardMs = 10_000

// forEachPoller runs test once for each kind of poller.
func forEachPoller(t *testing.T, test func(t *testing.T, p Poller)) {
	for name, newP := range pollerKinds {
		t.Run(name, func(t *testing.T) {
			p, err := newP()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			test(t, p)
		})
	}
}

// wait calls p.Wait with room for max events and returns them, sorted by fd.
func wait(t *testing.T, p Poller, max, timeoutMs int) []Event {
	t.Helper()
	evs := make([]Event, max)
	for {
		n, err := p.Wait(evs, timeoutMs)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = evs[:n]
		slices.SortFunc(evs, func(a, b Event) int { return int(a.Fd - b.Fd) })
		return evs
	}
}

// TestPollerReportsWhatIsAskedFor walks one socket through the events an
// event loop asks for: input, input and room to write (reported as one
// event, although kqueue reports them apart), room only, nothing, and the
// peer's hang-up.
func TestPollerReportsWhatIsAskedFor(t *testing.T) {
	forEachPoller(t, func(t *testing.T, p Poller) {
		a, b := nonblockingPair(t)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(p.Add(a, In))
		if got := wait(t, p, 8, 0); len(got) != 0 {
			t.Fatalf("nothing to read: Wait reported %v, want nothing", got)
		}
		if _, err := Write(b, []byte("x")); err != nil {
			t.Fatal(err)
		}
		want := func(step string, evs ...Event) {
			t.Helper()
			timeoutMs := hangGuardMs
			if len(evs) == 0 {
				timeoutMs = 0 // nothing is ready, and that will not change
			}
			got := wait(t, p, 8, timeoutMs)
			if !slices.Equal(got, evs) {
				t.Fatalf("%s: Wait reported %v, want %v", step, got, evs)
			}
		}
		want("a byte to read", Event{int32(a), In})
		must(p.Modify(a, In, In|Out))
		want("a byte to read and room to write", Event{int32(a), In | Out})
		must(p.Modify(a, In|Out, Out))
		want("room to write only", Event{int32(a), Out})
		must(p.Modify(a, Out, 0))
		want("watching for nothing")
		must(p.Modify(a, 0, In))
		want("watching for input again", Event{int32(a), In})
		must(unix.Shutdown(b, unix.SHUT_WR))
		buf := make([]byte, 8)
		if n, err := Read(a, buf); n != 1 || err != nil {
			t.Fatalf("Read: %d, %v; want the 1 byte", n, err)
		}
		// The peer's EOF is input: the read that follows returns 0.
		got := wait(t, p, 8, hangGuardMs)
		if len(got) != 1 || got[0].Fd != int32(a) || got[0].Events&In == 0 {
			t.Fatalf("after the peer's EOF: Wait reported %v, want input on fd %d", got, a)
		}
		if n, err := Read(a, buf); n != 0 || err != nil {
			t.Fatalf("Read after EOF: %d, %v; want 0, nil", n, err)
		}
	})
}

// TestPollerForget: a descriptor forgotten and closed is no longer
// reported, and the others still are. (The poll(2) fallback moves the last
// one of its list into the forgotten one's place.)
func TestPollerForget(t *testing.T) {
	forEachPoller(t, func(t *testing.T, p Poller) {
		var ends []int
		for i := range 3 {
			a, b := nonblockingPair(t)
			if i == 0 {
				// The first is closed here, not by the pair's cleanup.
				// (Closing a duplicate instead would not do: epoll drops
				// a socket only once its last descriptor is closed.)
				fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { unix.Close(fds[1]) })
				a, b = fds[0], fds[1]
			}
			if err := p.Add(a, In); err != nil {
				t.Fatal(err)
			}
			if _, err := Write(b, []byte("x")); err != nil {
				t.Fatal(err)
			}
			ends = append(ends, a)
		}
		p.Forget(ends[0])
		unix.Close(ends[0])
		got := wait(t, p, 8, hangGuardMs)
		want := []Event{{int32(ends[1]), In}, {int32(ends[2]), In}}
		if !slices.Equal(got, want) {
			t.Fatalf("after forgetting fd %d: Wait reported %v, want %v", ends[0], got, want)
		}
		if err := p.Modify(ends[2], In, Out); err != nil {
			t.Fatalf("Modify after Forget moved fd %d: %v", ends[2], err)
		}
	})
}

// TestPollerReportsEveryReadyFdInTurn: when more descriptors are ready than
// one Wait has room for, the next calls report the others rather than the
// same ones again, so no connection starves.
func TestPollerReportsEveryReadyFdInTurn(t *testing.T) {
	forEachPoller(t, func(t *testing.T, p Poller) {
		const total, room = 5, 2
		for range total {
			a, b := nonblockingPair(t)
			if err := p.Add(a, In); err != nil {
				t.Fatal(err)
			}
			if _, err := Write(b, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[int32]bool{}
		for range (total + room - 1) / room {
			for _, ev := range wait(t, p, room, hangGuardMs) {
				seen[ev.Fd] = true
			}
		}
		if len(seen) != total {
			t.Fatalf("%d Waits of %d events reported %d of the %d ready descriptors", (total+room-1)/room, room, len(seen), total)
		}
	})
}
