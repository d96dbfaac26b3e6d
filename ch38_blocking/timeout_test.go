package chapter_test

import (
	"regexp"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// TestIdleTimeout: with a 1 s idle timeout, a silent client and one that
// sent half a request are both disconnected (and logged), while a client
// that talks every 100 ms meanwhile stays connected and served. The test
// waits for the server's own verdicts: it ends once the server has logged
// both removals (the chatty client has talked through all of their idle
// second), and a deadline only guards against a server that never does.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	srv := testkit.StartTestServer(t, "-idle-timeout", "1s")
	chatty := dialRaw(t, srv.Addr)
	silent := dialRaw(t, srv.Addr)
	truncated := dialRaw(t, srv.Addr)
	if _, err := truncated.Write(req("set", "k", "v")[:7]); err != nil {
		t.Fatal(err)
	}

	removed := regexp.MustCompile(`(?m)^removing idle connection: \d+$`)
	logged := func() int { return len(removed.FindAllString(srv.Stdout(), -1)) }
	deadline := time.Now().Add(testkit.Scale(10 * time.Second))
	for logged() < 2 {
		exchange(t, chatty, serNil(), "set", "k", "v")
		if time.Now().After(deadline) {
			t.Fatalf("the server removed %d idle connections in 10 s, want 2:\n%s", logged(), srv.Stdout())
		}
		time.Sleep(100 * time.Millisecond)
	}
	expectClosed(t, silent)
	expectClosed(t, truncated)
	if got := logged(); got != 2 {
		t.Errorf("server reported %d idle connections removed, want 2:\n%s", got, srv.Stdout())
	}
	exchange(t, chatty, serStr("v"), "get", "k")
}
