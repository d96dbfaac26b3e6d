package chapter_test

import (
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// vmRSS reads a process's resident memory, in bytes, from /proc.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("parsing %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// raceEnabled reports whether the tests, and so the server they run (the
// same binary), were built with the race detector, whose shadow memory
// multiplies the server's footprint.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestNeverReadingClient: one client pipelines requests for a 4 KB value
// and reads none of the replies; another keeps making requests meanwhile.
// The server must keep answering the second client, must hold at most
// about kMaxOutput (1 MiB) of replies for the first, and must not drop it:
// once it reads, every reply arrives, intact and in order.
//
// The bound on the server's growth, 16 MiB over its resident memory
// before the test: the 1 MiB of pending replies, the earlier, smaller
// copies of that buffer (each doubling leaves one, about 1 MiB in all)
// until the garbage collector frees them, the connections' buffers, and
// the Go runtime's own slack, which varies from run to run with when the
// collector runs (a bound of 8 MiB was passed by 9 MiB once, under load).
// Without the bound the server would read all the requests and hold some
// 80 MB of replies, less what the kernel's socket buffers absorb (a few
// MB on loopback). Under the race detector the bound is four times
// larger, still far below that.
//
// The idle timeout still applies to such a client: one that makes no
// progress at all for that long is closed, as any idle client is. It is
// set here well above the time the client stalls.
func TestNeverReadingClient(t *testing.T) {
	srv := testkit.StartTestServer(t, "-idle-timeout", "60s")
	pid := srv.Pid()
	val := strings.Repeat("v", 4000)
	other := dialRaw(t, srv.Addr)
	exchange(t, other, serNil(), "set", "big", val)
	exchange(t, other, serNil(), "set", "k", "v")
	base := vmRSS(t, pid)

	const count = 20_000 // 80 MB of replies
	slow := dialRaw(t, srv.Addr)
	slow.SetDeadline(time.Now().Add(60 * time.Second))
	// A small receive buffer keeps the kernel from absorbing the replies.
	slow.(*net.TCPConn).SetReadBuffer(64 << 10)
	written := make(chan error, 1)
	go func() {
		batch := strings.Repeat(string(req("get", "big")), 100)
		for i := 0; i < count; i += 100 {
			if _, err := slow.Write([]byte(batch)); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()

	// For 80 rounds (some 400 ms; longer on a slow machine), the other
	// client is served while the slow one owes ever more replies, and the
	// server's memory is watched. A server without backpressure makes all
	// 80 MB of replies in a fraction of that.
	const rounds = 80
	peak := base
	var slowest time.Duration
	for range rounds {
		t0 := time.Now()
		exchange(t, other, serStr("v"), "get", "k")
		slowest = max(slowest, time.Since(t0))
		peak = max(peak, vmRSS(t, pid))
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("other client: %d requests answered, the slowest in %v; server RSS %d KiB before, %d KiB at most",
		rounds, slowest, base>>10, peak>>10)
	bound := int64(16 << 20)
	if raceEnabled() {
		bound *= 4
	}
	if grown := peak - base; grown > bound {
		t.Errorf("the server grew by %d KiB for a client that does not read, more than the %d MiB bound", grown>>10, bound>>20)
	}

	// The slow client now reads: nothing may be missing.
	want := serStr(val)
	for i := 0; i < count; i++ {
		if body := readReply(t, slow); string(body) != want {
			t.Fatalf("reply %d of %d: %d bytes %q..., want the value", i, count, len(body), body[:min(len(body), 8)])
		}
	}
	if err := <-written; err != nil {
		t.Fatalf("sending the requests: %v", err)
	}
	exchange(t, slow, serStr("v"), "get", "k")
}
