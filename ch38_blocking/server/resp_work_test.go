package server

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// pipelineTurns sends the requests, in one write, to a fresh RESP
// connection, hangs up, and runs the event loop until the connection
// ends. It returns, for every turn, the work done (the growth of
// workDone), and all the reply bytes the client received.
func pipelineTurns(t *testing.T, requests []byte, setup func()) (works []int, got []byte) {
	t.Helper()
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	setup()
	if len(requests) > kRESPBufSize {
		t.Fatalf("test bug: %d bytes of requests take more than one read", len(requests))
	}
	if w, err := unix.Write(cli, requests); err != nil || w != len(requests) {
		t.Fatalf("writing the requests: %d of %d bytes, %v", w, len(requests), err)
	}
	if err := unix.Shutdown(cli, unix.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for turns := 0; conn.state != stateEnd; turns++ {
		before := workDone
		if !loopOnce(t, conn) {
			t.Fatalf("after %d turns the connection is not reported ready (state %d)", turns, conn.state)
		}
		works = append(works, workDone-before)
		for {
			m, err := unix.Read(cli, buf)
			if errors.Is(err, unix.EAGAIN) || m <= 0 {
				break
			}
			got = append(got, buf[:m]...)
		}
		if turns > 10_000 {
			t.Fatal("the connection does not end")
		}
	}
	return works, got
}

// TestRESPTurnWorkBounded: 16 pipelined ZRANGEs over a whole sorted set
// of 100,000 members each visit all of them. Their number does not end a
// turn; the work does: no turn
// does more than kMaxTurnWork plus one request's work, so the 16 are
// answered over several turns, taken in turn with other connections.
func TestRESPTurnWorkBounded(t *testing.T) {
	const members, n = 40_000, 16
	req := "*4\r\n$6\r\nZRANGE\r\n$1\r\nz\r\n$1\r\n0\r\n$2\r\n-1\r\n"
	works, got := pipelineTurns(t, []byte(strings.Repeat(req, n)), func() {
		for i := range members {
			run("zadd", "z", fmt.Sprint(i), fmt.Sprintf("member-%020d", i))
		}
	})
	if c := bytes.Count(got, []byte(fmt.Sprintf("*%d\r\n", members))); c != n {
		t.Fatalf("got %q..., %d whole replies, want %d", got[:min(len(got), 80)], c, n)
	}
	if len(works) < 4 {
		t.Errorf("%d ZRANGEs of the whole set were answered in %d turns; the work does not bound a turn", n, len(works))
	}
	total := 0
	for _, w := range works {
		total += w
	}
	one := total / n // the work of one request
	if one < kMaxTurnWork/8 {
		t.Fatalf("test bug: one ZRANGE visits %d members, too few to test the bound", one)
	}
	for i, w := range works {
		if w > kMaxTurnWork+one {
			t.Errorf("turn %d did %d work, past kMaxTurnWork (%d) and one request (%d)", i, w, kMaxTurnWork, one)
		}
	}
	t.Logf("%d ZRANGEs, %d work each, answered in %d turns", n, one, len(works))
}

// TestRESPKeysBounded: KEYS walks every key, so over a key space larger
// than kKeysMaxScan it is refused before it walks any; under it, it
// counts the keys it walked, and pipelined KEYS share turns by that work.
func TestRESPKeysBounded(t *testing.T) {
	const n = 16
	req := "*2\r\n$4\r\nKEYS\r\n$5\r\nnomat\r\n"
	keys := kMaxTurnWork / 2
	works, got := pipelineTurns(t, []byte(strings.Repeat(req, n)), func() {
		for i := range keys {
			run("set", fmt.Sprint("k", i), "v")
		}
	})
	if want := bytes.Repeat([]byte("*0\r\n"), n); !bytes.Equal(got, want) {
		t.Fatalf("got %q, want %d empty arrays", got, n)
	}
	for i, w := range works {
		if w > kMaxTurnWork+keys+2 {
			t.Errorf("turn %d did %d work, past kMaxTurnWork (%d) and one KEYS (%d)", i, w, kMaxTurnWork, keys)
		}
	}

	// Past kKeysMaxScan keys, KEYS is refused having walked none.
	for i := keys; i <= kKeysMaxScan; i++ {
		insertEntry(newEntry(fmt.Sprint("k", i), nil))
	}
	before := workDone
	if got := respRun(t, "KEYS", "*"); got != "-"+errKeysTooMany+"\r\n" {
		t.Fatalf("KEYS over %d keys: %q", gData.db.Len(), got)
	}
	if w := workDone - before; w > 2 {
		t.Errorf("refused KEYS did %d work", w)
	}
}

// respRun runs one RESP command on a connection of its own and returns
// its reply.
func respRun(t *testing.T, args ...string) string {
	t.Helper()
	st := newRESPState(nil)
	cmd := make([][]byte, len(args))
	for i, a := range args {
		cmd[i] = []byte(a)
	}
	st.w.begin(nil)
	respDo(&conn{state: stateReq}, st, cmd)
	outputHeld -= cap(st.w.buf) // the reply is taken at once
	return string(st.w.buf)
}

// TestRESPTrickleParsedOnce: a SET of a 500 KB value arriving 1 KB at a
// time is not parsed again from its start on every read, which made a
// slow sender cost the server work quadratic in the request's size: once
// its header says how long it is, it is parsed again only when that much
// is there.
func TestRESPTrickleParsedOnce(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	val := strings.Repeat("v", 500_000)
	req := []byte(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", len(val), val))
	before := respParses
	reads := 0
	for len(req) > 0 {
		piece := req[:min(1024, len(req))]
		if w, err := unix.Write(cli, piece); err != nil || w != len(piece) {
			t.Fatalf("write: %d, %v", w, err)
		}
		req = req[len(piece):]
		for loopOnce(t, conn) {
			reads++
		}
	}
	buf := make([]byte, 64)
	if n, err := unix.Read(cli, buf); err != nil || string(buf[:n]) != "+OK\r\n" {
		t.Fatalf("reply %q, %v", buf[:max(n, 0)], err)
	}
	if parses := respParses - before; parses > 10 {
		t.Errorf("a request read in %d pieces was parsed %d times", reads, parses)
	}
}

// TestRESPHGetAllRefusedBeforeWalk: HGETALL of a hash whose fields cannot
// fit in what the budget has left is refused before it lists them (it
// listed every field first, then cut the reply off).
func TestRESPHGetAllRefusedBeforeWalk(t *testing.T) {
	resetData(t)
	saveBudget(t)
	maxOutputTotal = 128 << 10
	n := maxOutputTotal/12 + 1
	for i := 0; i < n; i += 1000 {
		args := []string{"hset", "h"}
		for j := i; j < min(i+1000, n); j++ {
			args = append(args, fmt.Sprint(j), "")
		}
		run(args...)
	}
	before := workDone
	got := respRun(t, "HGETALL", "h")
	if got != "-"+errReplyMemory+"\r\n" {
		t.Fatalf("HGETALL of %d fields: %.40q", n, got)
	}
	// The request's and the reply's bytes, and no field.
	if w := workDone - before; w > (len("HGETALLh")+len(got))/kWorkBytes {
		t.Errorf("HGETALL refused after %d units of work", w)
	}
}

// TestRESPTrickleManyArgs: a request of 8192 small arguments arriving 1 KB
// at a time is checked from where the last piece stopped: the elements
// walked in all stay within a few times the request's, where walking
// each piece from the start made them quadratic.
func TestRESPTrickleManyArgs(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestRESPConn(t, srv)
	st := conn.framing.(*respState)
	args := []string{"DEL"}
	for i := 1; i < 8192; i++ {
		args = append(args, fmt.Sprintf("key-%08d", i))
	}
	req := []byte(fmt.Sprintf("*%d\r\n", len(args)))
	for _, a := range args {
		req = append(req, fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)...)
	}
	checked := int64(0) // elements walked by incomplete parses
	for len(req) > 0 {
		piece := req[:min(1024, len(req))]
		if w, err := unix.Write(cli, piece); err != nil || w != len(piece) {
			t.Fatalf("write: %d, %v", w, err)
		}
		req = req[len(piece):]
		for loopOnce(t, conn) {
		}
		checked = max(checked, st.progress.Done)
	}
	buf := make([]byte, 64)
	if n, err := unix.Read(cli, buf); err != nil || string(buf[:n]) != ":0\r\n" {
		t.Fatalf("reply %q, %v", buf[:max(n, 0)], err)
	}
	if checked < 8000 {
		t.Errorf("the parse remembered at most %d of 8192 elements checked", checked)
	}
}
