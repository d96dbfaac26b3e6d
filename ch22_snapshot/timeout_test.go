package chapter_test

import (
	"regexp"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// TestIdleTimeout: with a 1 s idle timeout, a silent client and one that
// sent half a request are both disconnected (and logged), while a client
// that talks every 100 ms stays connected and served throughout. The
// margins are wide (10x for the chatty client, 3 s of waiting for a 1 s
// timer) so a slow machine cannot turn them into failures.
func TestIdleTimeout(t *testing.T) {
	srv := testkit.StartTestServer(t, "-idle-timeout", "1s")
	chatty := dialRaw(t, srv.Addr)
	silent := dialRaw(t, srv.Addr)
	truncated := dialRaw(t, srv.Addr)
	if _, err := truncated.Write(req("set", "k", "v")[:7]); err != nil {
		t.Fatal(err)
	}

	for start := time.Now(); time.Since(start) < 3*time.Second; {
		exchange(t, chatty, serNil(), "set", "k", "v")
		time.Sleep(100 * time.Millisecond)
	}
	expectClosed(t, silent)
	expectClosed(t, truncated)
	removed := regexp.MustCompile(`(?m)^removing idle connection: \d+$`)
	if got := len(removed.FindAllString(srv.Stdout(), -1)); got != 2 {
		t.Errorf("server reported %d idle connections removed, want 2:\n%s", got, srv.Stdout())
	}
	exchange(t, chatty, serStr("v"), "get", "k")
}
