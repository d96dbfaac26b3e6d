package hostile

import (
	"net"
	"testing"
	"time"
)

// TestOutOfFDsServerSurvives connects more clients than a server has file
// descriptors for. Every server must keep running: at worst it fails to
// accept some of them. (Go's runtime creates its own epoll instance lazily,
// the first time it arms a timer; when that happened with no descriptor
// left, the runtime aborted the whole process.)
func TestOutOfFDsServerSurvives(t *testing.T) {
	const nofile, clients = 64, 150
	eachChapter(t, allChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, nofile)
		var conns []net.Conn
		defer closeConns(&conns)
		for range clients {
			c, err := net.DialTimeout("tcp", p.Addr, 2*time.Second)
			if err != nil {
				break // the backlog is full; enough
			}
			conns = append(conns, c)
		}
		// Keep the server out of descriptors for a while: a server
		// that retries accept in a loop allocates (each failure is
		// logged), the garbage collector runs and its scavenger arms
		// a timer, which is when the runtime wants its poller.
		deadline := time.Now().Add(1500 * time.Millisecond)
		for p.Running() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !p.Running() {
			t.Fatalf("server died with %d clients and RLIMIT_NOFILE %d:\n%.2000s", len(conns), nofile, p.Stderr())
		}
		closeConns(&conns)
		if err := p.WaitAccepting(10 * time.Second); err != nil {
			t.Fatalf("server no longer accepts after the clients left: %v", err)
		}
	})
}
