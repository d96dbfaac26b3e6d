package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/resp"
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

// TestRESPWarmChangesNothing: the same for a RESP connection's
// look-ahead, over requests too long for its array of arguments, past its
// bound of bytes, and up to an inline request and one cut short.
func TestRESPWarmChangesNothing(t *testing.T) {
	var in []byte
	for _, cmd := range warmBatch() {
		in = resp.AppendRequest(in, cmd...)
	}
	in = resp.AppendRequest(in, "mget", "key:000001", "a", "b", "c", "d", "e", "f", "g", "h")
	in = resp.AppendRequest(in, "set", "big", strings.Repeat("v", kWarmBytes))
	in = append(in, "get key:000002\r\n"...)
	in = append(in, resp.AppendRequest(nil, "get", "key:000003")[:12]...)
	serve := func(warm bool) []byte {
		pipeLoad(t)
		st := newRESPState(nil)
		c := newConn(-1)
		c.framing = st
		st.buf = append([]byte(nil), in...)
		if warm {
			if allocs := testing.AllocsPerRun(10, func() { st.warm(c) }); allocs != 0 {
				t.Errorf("warm: %v allocations, want 0", allocs)
			}
			if st.start != 0 || !bytes.Equal(st.buf, in) {
				t.Fatalf("warm moved or changed the buffer")
			}
		}
		for st.oneRequest(c) {
		}
		return c.wbuf
	}
	want := serve(false)
	if got := serve(true); !bytes.Equal(got, want) {
		t.Errorf("replies after warm differ:\n got %q\nwant %q", got, want)
	}
}

// TestRESPWarmWaitsForWholeRequest: a request that arrives a few bytes at
// a time, its arguments "*" so that its bytes look like the start of more
// requests, is not looked ahead at until it is whole: the look-ahead parses
// from the buffer's start, and would parse the request's first 4 KiB again
// on every read, where its own parse goes on from where it stopped.
func TestRESPWarmWaitsForWholeRequest(t *testing.T) {
	resetData(t)
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	const argc = 600
	req := []byte(fmt.Sprintf("*%d\r\n", argc))
	for range argc {
		req = append(req, "$1\r\n*\r\n"...)
	}
	req = resp.AppendRequest(req, "get", "k") // a second request, so a look-ahead is worth it
	before := warmParses
	for sent := 0; sent < len(req); {
		piece := req[sent:min(sent+7, len(req))]
		if w, err := unix.Write(cli, piece); err != nil || w != len(piece) {
			t.Fatalf("write: %d, %v", w, err)
		}
		sent += len(piece)
		for loopOnce(t, conn) {
		}
	}
	// Only the turn that finds both requests whole looks ahead: at most
	// one parse for each of them.
	if parses := warmParses - before; parses > 2 {
		t.Errorf("a request read in %d pieces was looked ahead at %d times", (len(req)+6)/7, parses)
	}
	// The first is an unknown command, the second a miss: both answered.
	buf := make([]byte, 4096)
	n, err := unix.Read(cli, buf)
	if err != nil || !bytes.HasSuffix(buf[:n], []byte("$-1\r\n")) {
		t.Fatalf("replies %q, %v", buf[:max(n, 0)], err)
	}
}
