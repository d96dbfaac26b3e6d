package chapter_test

import (
	"fmt"
	"testing"

	"example.com/byor/testkit"
)

// TestManyKeys drives enough keys through the server for its hashtable to
// resize many times, pipelining the requests, and checks every key
// reads back right before and after half of them are deleted.
func TestManyKeys(t *testing.T) {
	srv := testkit.StartTestServer(t)
	c := dialRaw(t, srv.Addr)
	const n = 20000
	key := func(i int) string { return fmt.Sprintf("key:%d", i) }

	pipeline := func(want func(i int) string, cmd func(i int) []string) {
		t.Helper()
		// The requests go out from a second goroutine while this one
		// reads the replies. This server writes each reply on its own, and
		// Nagle's algorithm holds a small reply back until the client's
		// ACK: a steady stream of requests carries those ACKs at once,
		// where a client that stopped to read would leave each one to the
		// delayed-ACK timer. Neither side can fill its buffers and wait.
		sent := make(chan error, 1)
		go func() {
			var out []byte
			for i := range n {
				out = append(out, req(cmd(i)...)...)
				if len(out) >= 32<<10 || i == n-1 {
					if _, err := c.Write(out); err != nil {
						sent <- err
						return
					}
					out = out[:0]
				}
			}
			sent <- nil
		}()
		for i := range n {
			expectReply(t, c, want(i))
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
	}
	pipeline(func(int) string { return res(0, "") },
		func(i int) []string { return []string{"set", key(i), fmt.Sprint(i)} })
	pipeline(func(i int) string { return res(0, fmt.Sprint(i)) },
		func(i int) []string { return []string{"get", key(i)} })
	pipeline(func(int) string { return res(0, "") },
		func(i int) []string {
			if i%2 == 0 {
				return []string{"del", key(i)}
			}
			return []string{"set", key(i), "odd"}
		})
	pipeline(func(i int) string {
		if i%2 == 0 {
			return res(2, "")
		}
		return res(0, "odd")
	}, func(i int) []string { return []string{"get", key(i)} })
}
