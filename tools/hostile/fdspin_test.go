package hostile

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestOutOfFDsNoSpin: with more clients waiting than the server has file
// descriptors for, the server must not spin on the failing accept (it used
// 100% CPU and wrote millions of log lines), must keep answering the
// clients it has, and must take new ones once descriptors free up.
func TestOutOfFDsNoSpin(t *testing.T) {
	const nofile, clients = 64, 150
	const window = 2 * time.Second
	eachChapter(t, fieldChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, nofile)
		first := dial(t, p.Addr)
		first.do("set", "k", "v")
		var conns []net.Conn
		defer closeConns(&conns)
		for range clients {
			c, err := net.DialTimeout("tcp", p.Addr, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		time.Sleep(200 * time.Millisecond) // let it run out of descriptors
		cpu0, lines0, start := cpuTime(t, p.Pid()), strings.Count(p.Stderr(), "\n"), time.Now()
		var worst time.Duration
		for time.Since(start) < window {
			t0 := time.Now()
			first.do("get", "k")
			worst = max(worst, time.Since(t0))
			time.Sleep(10 * time.Millisecond)
		}
		elapsed := time.Since(start)
		cpu := cpuTime(t, p.Pid()) - cpu0
		lines := strings.Count(p.Stderr(), "\n") - lines0
		t.Logf("out of descriptors for %v: server CPU %v (%.0f%%), %d log lines, slowest get %v",
			elapsed.Round(time.Millisecond), cpu, 100*cpu.Seconds()/elapsed.Seconds(), lines, worst)
		if cpu > elapsed/4 {
			t.Errorf("the server used %v of CPU in %v with nothing to do but wait", cpu, elapsed)
		}
		if lines > 10 {
			t.Errorf("the server wrote %d log lines in %v:\n%.500s", lines, elapsed, p.Stderr())
		}
		if !strings.Contains(p.Stderr(), "too many open files") {
			t.Errorf("the failed accepts were never logged:\n%.500s", p.Stderr())
		}
		// Once the clients leave, a new one is served.
		closeConns(&conns)
		c := dial(t, p.Addr)
		if v := c.do("get", "k"); string(v.Str) != "v" {
			t.Fatalf("get k from a new client: %v", v)
		}
	})
}
