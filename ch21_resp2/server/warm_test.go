package server

import (
	"bytes"
	"fmt"
	"testing"
)

// warmBatch is a batch of pipelined requests, more than the look-ahead
// takes: hits, misses, new keys, and requests without a key.
func warmBatch() [][]string {
	var batch [][]string
	for i := range 2 * kWarmRequests {
		switch i % 4 {
		case 0:
			batch = append(batch, []string{"get", fmt.Sprintf("key:%06d", i*37)})
		case 1:
			batch = append(batch, []string{"set", fmt.Sprintf("new:%d", i), "xyz"})
		case 2:
			batch = append(batch, []string{"get"}) // no key: an error reply
		case 3:
			batch = append(batch, []string{"get", "nosuchkey"})
		}
	}
	return batch
}

// TestWarmKeysChangesNothing: the look-ahead only reads. A batch whose
// last request is cut short gets the same replies with or without it; the
// read buffer is as it was; and it allocates nothing.
func TestWarmKeysChangesNothing(t *testing.T) {
	in := pipeFrame(warmBatch())
	in = append(in, pipeFrame([][]string{{"get", "key:000001"}})[:9]...)
	pipeLoad(t)
	want := pipeServe(pipeConn(), in, nil)

	pipeLoad(t)
	conn := pipeConn()
	conn.rbufStart, conn.rbufEnd = 0, copy(conn.testReadBuf(), in)
	if allocs := testing.AllocsPerRun(10, func() { warmKeys(conn) }); allocs != 0 {
		t.Errorf("warmKeys: %v allocations, want 0", allocs)
	}
	if conn.rbufStart != 0 || !bytes.Equal(conn.rbuf[:conn.rbufEnd], in) {
		t.Fatalf("warmKeys moved or changed the read buffer")
	}
	for tryOneRequest(conn) {
	}
	if !bytes.Equal(conn.wbuf, want) {
		t.Errorf("replies after warmKeys differ:\n got %q\nwant %q", conn.wbuf, want)
	}
}
