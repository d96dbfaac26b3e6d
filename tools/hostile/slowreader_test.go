package hostile

import (
	"context"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"example.com/byor/tools/internal/wire"
)

// dialSmallWindow connects with a small receive buffer, so that the kernel
// holds few of the replies a client does not read and the server the rest.
func dialSmallWindow(addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return err
	}}
	return d.DialContext(context.Background(), "tcp", addr)
}

// getLatency returns the slowest of n gets of key on a fresh connection.
func getLatency(t *testing.T, addr, key string, n int) time.Duration {
	c := dial(t, addr)
	worst := time.Duration(0)
	for range n {
		start := time.Now()
		if v := c.do("get", key); v.Tag != wire.TagStr {
			t.Fatalf("get %s: %v", key, v)
		}
		worst = max(worst, time.Since(start))
	}
	return worst
}

// TestSlowReadersMemoryBounded: many clients pipeline gets of a 4,000-byte
// value and read none of the replies. Each may have up to 1 MiB of replies
// held for it; the server must also bound the sum (to 8 MiB here, with
// -max-output-mb), and keep serving others.
func TestSlowReadersMemoryBounded(t *testing.T) {
	eachChapter(t, costlyBook, func(t *testing.T, ch string) { testSlowReaders(t, ch, false, "8", 50<<20) })
	// RESP connections (ch17 on), whose replies are built their own way.
	eachChapterAs(t, costlyRESP, "-RESP", func(t *testing.T, ch string) { testSlowReaders(t, ch, true, "8", 50<<20) })
}

// testSlowReaders runs the flood against chapter ch's server (in Redis's
// protocol on its RESP listener if resp) started with
// -max-output-mb maxMB and fails if its resident memory peaks past limit.
// The kernel takes the first few MB of each client's replies into its
// socket buffers; the gets are enough to leave about 1 MiB more.
func testSlowReaders(t *testing.T, ch string, resp bool, maxMB string, limit int64) {
	clients, gets := 60, 1000
	// For measuring by hand: HOSTILE_SLOW_READERS=1000 HOSTILE_MAX_OUTPUT_MB=64.
	if s := os.Getenv("HOSTILE_SLOW_READERS"); s != "" {
		clients, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("HOSTILE_MAX_OUTPUT_MB"); s != "" {
		maxMB = s
	}
	p := startServer(t, ch, 0, "-max-output-mb", maxMB)
	_, addr, reqs := bigGets(t, p, resp, gets)
	before := procStatus(t, p.Pid(), "VmRSS")
	var conns []net.Conn
	defer func() {
		for _, conn := range conns {
			conn.Close()
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range clients {
		conn, err := dialSmallWindow(addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if _, err := conn.Write(reqs); err != nil {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("sending requests: %v", err)
			}
		}()
	}
	wg.Wait()
	// Let the server answer what it will, until its memory stops growing.
	for last, i := int64(0), 0; i < 50; i++ {
		time.Sleep(100 * time.Millisecond)
		rss := procStatus(t, p.Pid(), "VmRSS")
		if rss-last < 1<<20 && i >= 5 {
			break
		}
		last = rss
	}
	lat := getLatency(t, p.Addr, "small", 100)
	peak := procStatus(t, p.Pid(), "VmHWM")
	t.Logf("%d clients not reading: server resident %d MiB at peak (%d MiB before); slowest of 100 gets %v",
		clients, peak>>20, before>>20, lat)
	if peak > limit {
		t.Errorf("the server's memory peaked at %d MiB, past %d MiB", peak>>20, limit>>20)
	}
}
