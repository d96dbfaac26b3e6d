package chapter_test

import (
	"fmt"
	"testing"

	"example.com/byor/testkit"
)

// TestManyKeys drives enough keys through the server for its hashtable to
// resize many times, pipelining requests in batches, and checks every key
// reads back right before and after half of them are deleted.
func TestManyKeys(t *testing.T) {
	srv := testkit.StartTestServer(t)
	c := dialRaw(t, srv.Addr)
	const n = 20000
	key := func(i int) string { return fmt.Sprintf("key:%d", i) }

	pipeline := func(want func(i int) string, cmd func(i int) []string) {
		t.Helper()
		// Large batches: this server writes each reply on its own, and
		// Nagle's algorithm then stalls each batch for a delayed ACK.
		const batch = 2000
		for start := 0; start < n; start += batch {
			var out []byte
			for i := start; i < start+batch; i++ {
				out = append(out, req(cmd(i)...)...)
			}
			if _, err := c.Write(out); err != nil {
				t.Fatal(err)
			}
			for i := start; i < start+batch; i++ {
				expectReply(t, c, want(i))
			}
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
