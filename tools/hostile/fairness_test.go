package hostile

import (
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"example.com/byor/tools/internal/wire"
)

// TestFloodersDoNotStallOthers: many clients pipeline gets of a 4,000-byte
// value and read the replies slowly, so their sockets keep becoming
// writable again; meanwhile another client sends one get at a time. Every
// one of its gets must be answered, with the right value, while the flood
// goes on.
//
// How long each get waited is reported, not judged: a time limit would
// fail on a loaded machine. The fairness itself, a short turn for every
// ready connection, is asserted by counting bytes per turn in the
// chapters' own tests (TestTurnBounded in ch16 and ch17, and
// TestRESPTurnBounded in ch17), which drive the event loop one turn at a
// time.
func TestFloodersDoNotStallOthers(t *testing.T) {
	eachChapter(t, costlyBook, func(t *testing.T, ch string) { testFlooders(t, ch, false) })
	// RESP connections flooding, on their own listener (ch17 on).
	eachChapterAs(t, costlyRESP, "-RESP", func(t *testing.T, ch string) { testFlooders(t, ch, true) })
}

// testFlooders runs the flood against chapter ch's server (in Redis's
// protocol on its RESP listener if resp; the well-behaved client speaks
// the book's) and reports how long that client's gets took.
func testFlooders(t *testing.T, ch string, resp bool) {
	flooders, gets, dur := 1000, 4000, 3*time.Second
	// For measuring by hand: HOSTILE_FLOODERS=300 HOSTILE_FLOOD_GETS=8000.
	if s := os.Getenv("HOSTILE_FLOODERS"); s != "" {
		flooders, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("HOSTILE_FLOOD_GETS"); s != "" {
		gets, _ = strconv.Atoi(s)
	}
	p := startServer(t, ch, 0)
	c, addr, reqs := bigGets(t, p, resp, gets)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for range flooders {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		// Send every request at once, without waiting for a reply.
		go func() {
			defer wg.Done()
			conn.SetWriteDeadline(time.Now().Add(dur + 5*time.Second))
			conn.Write(reqs)
		}()
		// Read 16 KB every 2 ms until the test ends: slowly, but enough
		// for the socket to become writable again and again.
		go func() {
			defer wg.Done()
			defer conn.Close()
			buf := make([]byte, 16<<10)
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				conn.SetReadDeadline(time.Now().Add(time.Second))
				if _, err := io.ReadFull(conn, buf); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						continue
					}
					return
				}
			}
		}()
	}

	// The well-behaved client: one get at a time, for dur (and at least
	// 10 gets, however slow the machine).
	var lats []time.Duration
	for start := time.Now(); time.Since(start) < dur || len(lats) < 10; {
		t0 := time.Now()
		if v := c.do("get", "small"); v.Tag != wire.TagStr || string(v.Str) != "v" {
			t.Fatalf("get small, after %d answered: %v", len(lats), v)
		}
		lats = append(lats, time.Since(t0))
	}
	slices.Sort(lats)
	worst, p99 := lats[len(lats)-1], lats[len(lats)*99/100]
	t.Logf("%d flooders reading slowly: %d gets by another client, p99 %v, slowest %v (load %s)",
		flooders, len(lats), p99, worst, loadAvg())
}

// loadAvg returns the machine's load averages, to read beside a reported
// time: a figure taken on a busy machine says little.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
