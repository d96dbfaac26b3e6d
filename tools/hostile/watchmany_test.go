package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWatchManyOneWrite: 34 clients each WATCH the same 10,000 keys, then
// one SET of one of them. A watcher marked dirty stopped watching all its
// keys at once, so that one SET removed 340,000 watches in one request
// (170 to 430 ms); now it costs what the written key's 34 watchers cost,
// and each watcher drops its other keys at its own EXEC. The honest twin
// is one client watching one key, and one SET of it. The log reports the
// SET's latency, the server's CPU for it, the bystander's worst PING and
// the watchers' EXECs; the test asserts that every WATCH is accepted and
// every watcher's EXEC fails (a null array), the SET's reply between.
func TestWatchManyOneWrite(t *testing.T) {
	eachChapter(t, costlyRESP, func(t *testing.T, ch string) {
		// Room in the budget for every watch (about 200 bytes each).
		p, addr := startWatching(t, ch, "-max-output-mb", "512")
		honest := watchOneWrite(t, p.Pid(), addr, 1, 1)
		attack := watchOneWrite(t, p.Pid(), addr, 34, 10_000)
		t.Logf("one SET with 1 client watching 1 key: %s", honest)
		t.Logf("one SET with 34 clients watching the same 10,000 keys: %s", attack)
	})
}

// watchOneWrite has clients each WATCH the same keys, then SETs one of
// them from another connection while a bystander PINGs, then has each
// watcher run MULTI, EXEC, and reports the figures.
func watchOneWrite(t *testing.T, pid int, addr string, clients, keys int) string {
	var names []string
	for i := range keys {
		names = append(names, fmt.Sprintf("watched:%d:%05d", clients, i))
	}
	var watch strings.Builder
	for i := 0; i < keys; i += 5000 { // within the arguments of one request
		watch.WriteString(respCmd(append([]string{"WATCH"}, names[i:min(i+5000, keys)]...)...))
	}
	requests := (keys + 4999) / 5000
	var ws []*respConn
	for range clients {
		c := dialRESP(t, addr)
		c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		go c.conn.Write([]byte(watch.String()))
		for range requests {
			if got := skipReply(t, c.r); got != "+OK" {
				t.Fatalf("WATCH of %d keys: %q", keys, got)
			}
		}
		ws = append(ws, c)
	}
	writer := dialRESP(t, addr)
	f := measure(t, pid, addr, "the SET", func() {
		if got := writer.do(time.Minute, "SET", names[keys/2], "v"); got != "+OK" {
			t.Fatalf("SET: %q", got)
		}
	})
	cpu0 := cpuTime(t, pid)
	execStart := time.Now()
	for i, c := range ws {
		c.conn.SetDeadline(time.Now().Add(time.Minute))
		c.conn.Write([]byte(respCmd("MULTI") + respCmd("SET", "ran", "1") + respCmd("EXEC")))
		for j, want := range []string{"+OK", "+QUEUED", "*-1"} {
			if got := skipReply(t, c.r); got != want {
				t.Fatalf("watcher %d, reply %d after the SET: %q, want %q", i+1, j+1, got, want)
			}
		}
	}
	return fmt.Sprintf("SET answered in %v, server CPU %v, bystander's worst PING %v; then the %d watchers' EXECs in %v, server CPU %v",
		f.took.Round(time.Microsecond), f.cpu, f.worst.Round(time.Microsecond), clients, time.Since(execStart).Round(time.Millisecond), cpuTime(t, pid)-cpu0)
}
