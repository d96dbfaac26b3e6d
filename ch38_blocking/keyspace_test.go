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
	pipeline(func(int) string { return serNil() },
		func(i int) []string { return []string{"set", key(i), fmt.Sprint(i)} })
	pipeline(func(i int) string { return serStr(fmt.Sprint(i)) },
		func(i int) []string { return []string{"get", key(i)} })
	pipeline(func(i int) string {
		if i%2 == 0 {
			return serInt(1)
		}
		return serNil()
	}, func(i int) []string {
		if i%2 == 0 {
			return []string{"del", key(i)}
		}
		return []string{"set", key(i), "odd"}
	})
	pipeline(func(i int) string {
		if i%2 == 0 {
			return serNil()
		}
		return serStr("odd")
	}, func(i int) []string { return []string{"get", key(i)} })
}

// TestKeysTooBig: keys answers with every key while the reply fits in one
// message, and with the error "response is too big" once it would not.
func TestKeysTooBig(t *testing.T) {
	srv := testkit.StartTestServer(t)
	c := dialRaw(t, srv.Addr)
	// Each key costs 1+4+8 bytes in the reply; 5 bytes of array header and
	// 4 of message header leave room for 314 of them in 4096 bytes.
	var keys []string
	for i := 0; len(keys) < 314; i++ {
		keys = append(keys, fmt.Sprintf("k%07d", i))
		exchange(t, c, serNil(), "set", keys[len(keys)-1], "v")
	}
	if _, err := c.Write(req("keys")); err != nil {
		t.Fatal(err)
	}
	got := readReply(t, c)
	if len(got) != 5+314*13 || got[0] != 5 {
		t.Fatalf("keys with 314 keys: %d-byte reply starting %x; want a 4087-byte array", len(got), got[:5])
	}
	exchange(t, c, serNil(), "set", "k9999999", "v")
	exchange(t, c, serErr(2, "response is too big"), "keys")
	// The key space is untouched by the failed reply.
	exchange(t, c, serStr("v"), "get", "k9999999")
}
