package chapter_test

import (
	"net"
	"regexp"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// TestIdleTimeout: with a 1 s idle timeout, a silent client and one that
// sent half a request are both disconnected (and logged), while a client
// that talks every 100 ms meanwhile stays connected and served. The test
// waits for the server's own verdicts: it ends once both idle clients are
// gone (the chatty one has talked through all of their idle second), and
// a deadline only guards against a server that never closes them.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	srv := testkit.StartTestServer(t, "-idle-timeout", "1s")
	chatty := dialRaw(t, srv.Addr)
	silent := dialRaw(t, srv.Addr)
	truncated := dialRaw(t, srv.Addr)
	if _, err := truncated.Write(req("set", "k", "v")[:7]); err != nil {
		t.Fatal(err)
	}
	// Each idle client's read returns when the server closes it.
	closed := make(chan error, 2)
	for _, c := range []net.Conn{silent, truncated} {
		go func() { closed <- closedRead(c) }()
	}

	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for gone := 0; gone < 2; {
		exchange(t, chatty, serNil(), "set", "k", "v")
		select {
		case err := <-closed:
			if err != nil {
				t.Fatal(err)
			}
			gone++
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle clients were still connected after 30 s")
		}
	}
	removed := regexp.MustCompile(`(?m)^removing idle connection: \d+$`)
	for got := 0; got != 2; {
		// The log line comes through a pipe: it may trail the close.
		if got = len(removed.FindAllString(srv.Stdout(), -1)); got > 2 || time.Now().After(deadline) {
			t.Fatalf("server reported %d idle connections removed, want 2:\n%s", got, srv.Stdout())
		}
		time.Sleep(10 * time.Millisecond)
	}
	exchange(t, chatty, serStr("v"), "get", "k")
}
