package server

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/resp"
)

// TestAlwaysHoldsRepliesOfASecondPass: under appendfsync always, the
// replies to writes wait for the fsync however the turn answered them.
// serveRequests answers requests, writes the replies, and goes round
// once more if the write made room; a write there that sent only part of
// a backlog of replies let the loop answer requests again, and their
// replies were left unsent without waiting for the log: the next turn,
// which appended nothing, sent them before any fsync.
//
// The client pipelines a GET of a value whose reply is just past what
// lets a connection answer more (see canAnswer), and three SETs, while
// its socket is full. The first turn answers the GET only (its reply is
// more than a turn makes) and sends nothing. Once the client has read
// what filled the socket, the second turn answers nothing at first (the
// backlog is too big), sends part of the backlog, and then, below the
// bound, answers the SETs: their replies must wait for the log.
func TestAlwaysHoldsRepliesOfASecondPass(t *testing.T) {
	logOn(t)
	conn, cli := newSlowRESPConn(t)
	saved := aofPolicy
	aofPolicy = fsyncAlways
	t.Cleanup(func() {
		aofPolicy = saved
		clear(aofHeld)
	})
	bound := kMaxOutput - 4 - proto.KMaxMsg // canAnswer's: the most pending
	reply := bound + 16
	size := reply - len("$\r\n\r\n") - len(strings.Repeat("9", 7))
	run("set", "big", strings.Repeat("v", size))
	aofWrite()
	aofSynced.Store(aofWritten) // as if fsynced

	// Fill the client's socket, so that the first turn sends nothing.
	junk := 0
	for {
		n, err := unix.Write(conn.fd, make([]byte, 4096))
		junk += max(n, 0)
		if err != nil {
			break
		}
	}
	req := resp.AppendRequest(nil, "GET", "big")
	for _, k := range []string{"a", "b", "c"} {
		req = resp.AppendRequest(req, "SET", k, "1")
	}
	if _, err := unix.Write(cli, req); err != nil {
		t.Fatal(err)
	}
	conn.framing.fill(conn)
	serveRequests(conn)
	if conn.pending() != reply {
		t.Fatalf("after the first turn: %d bytes pending, want the GET's %d", conn.pending(), reply)
	}
	got := drain(t, cli, junk)
	if got != junk {
		t.Fatalf("the client read %d bytes of the %d that filled its socket", got, junk)
	}

	logged := aofCmds
	serveRequests(conn)
	if aofCmds != logged+3 {
		t.Fatalf("the second turn logged %d writes, want the 3 SETs (the scenario did not happen: %d bytes pending)", aofCmds-logged, conn.pending())
	}
	if conn.pending() == 0 || !aofWaits(conn) {
		t.Fatalf("the SETs' replies (%d bytes pending) do not wait for the log's fsync", conn.pending())
	}
}

// drain reads what the socket fd has, up to n bytes, and returns how
// many it read.
func drain(t *testing.T, fd, n int) int {
	t.Helper()
	buf := make([]byte, 64<<10)
	got := 0
	for got < n {
		m, err := unix.Read(fd, buf[:min(len(buf), n-got)])
		if err != nil || m == 0 {
			break
		}
		got += m
	}
	return got
}

// TestAlwaysHoldsReadsOfUnsyncedWrites: under appendfsync always, a
// connection that only reads, in the same iteration as another's write,
// waits for the fsync too: its reply may show that write, which a crash
// before the fsync would lose. Redis too sends every reply after it.
func TestAlwaysHoldsReadsOfUnsyncedWrites(t *testing.T) {
	logOn(t)
	writer, wcli := newSlowRESPConn(t)
	rsrv, rcli := testPair(t, unix.SOCK_STREAM)
	reader := newTestRESPConn(t, rsrv)
	saved := aofPolicy
	aofPolicy = fsyncAlways
	t.Cleanup(func() {
		aofPolicy = saved
		clear(aofHeld)
	})
	aofSynced.Store(aofWritten)
	connPut(&gData.fd2conn, writer) // aofBeforeSleep sends to the connections it finds
	connPut(&gData.fd2conn, reader)
	for _, c := range []struct {
		conn *conn
		cli  int
		req  []byte
	}{{writer, wcli, resp.AppendRequest(nil, "SET", "k", "v")}, {reader, rcli, resp.AppendRequest(nil, "GET", "k")}} {
		if _, err := unix.Write(c.cli, c.req); err != nil {
			t.Fatal(err)
		}
		c.conn.framing.fill(c.conn)
		serveRequests(c.conn)
	}
	if !aofWaits(writer) || !aofWaits(reader) {
		t.Fatalf("before the fsync: the writer's reply waits %v, the reader's %v; want both", aofWaits(writer), aofWaits(reader))
	}
	aofBeforeSleep()
	if aofWaits(writer) || aofWaits(reader) || aofSynced.Load() != aofWritten {
		t.Fatal("after the fsync, replies still wait")
	}
	if got := drain(t, rcli, 64); got != len("$1\r\nv\r\n") {
		t.Fatalf("the reader got %d bytes, want its GET's reply", got)
	}
}

// TestEverysecHoldsRepliesOfAFailedWrite: under everysec (and no), a
// write whose records the log could not take (a full disk) is not
// acknowledged until they are written: a crash meanwhile would lose it.
// Its reply used to go out at once. A reader is not held.
func TestEverysecHoldsRepliesOfAFailedWrite(t *testing.T) {
	path := logOn(t)
	saved := aofPolicy
	aofPolicy = fsyncEverysec
	good := aofFd
	bad, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(bad)
	t.Cleanup(func() {
		aofPolicy, aofFd, aofWriteErr = saved, good, nil
		clear(aofHeld)
	})
	wsrv, wcli := testPair(t, unix.SOCK_STREAM)
	writer := newTestRESPConn(t, wsrv)
	rsrv, rcli := testPair(t, unix.SOCK_STREAM)
	reader := newTestRESPConn(t, rsrv)
	connPut(&gData.fd2conn, writer) // aofBeforeSleep sends to the connections it finds
	connPut(&gData.fd2conn, reader)
	aofFd = bad // every write fails, as on a full disk
	for _, c := range []struct {
		conn *conn
		cli  int
		req  []byte
	}{{writer, wcli, resp.AppendRequest(nil, "SET", "k", "v")}, {reader, rcli, resp.AppendRequest(nil, "GET", "nokey")}} {
		if _, err := unix.Write(c.cli, c.req); err != nil {
			t.Fatal(err)
		}
		c.conn.framing.fill(c.conn)
		serveRequests(c.conn)
	}
	aofBeforeSleep()
	if !aofWaits(writer) || aofWaits(reader) || aofWriteErr == nil {
		t.Fatalf("while the log cannot be written: the writer's reply waits %v, the reader's %v; want the writer's only", aofWaits(writer), aofWaits(reader))
	}
	if got := drain(t, rcli, 64); got != len("$-1\r\n") {
		t.Fatalf("the reader got %d bytes, want its GET's reply", got)
	}
	aofFd = good // the disk has room again
	aofBeforeSleep()
	if aofWaits(writer) || aofWriteErr != nil {
		t.Fatal("after the log was written, the writer's reply still waits")
	}
	if got := drain(t, wcli, 64); got != len("+OK\r\n") {
		t.Fatalf("the writer got %d bytes, want its SET's reply", got)
	}
}
