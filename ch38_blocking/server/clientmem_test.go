package server

import (
	"errors"
	"io"
	"testing"

	"golang.org/x/sys/unix"
)

// serveOne sends one request on cli and runs conn until its reply is
// read back.
func serveOne(t *testing.T, conn *conn, cli int, request, reply []byte) {
	t.Helper()
	if _, err := unix.Write(cli, request); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(reply))
	n := 0
	for tries := 0; n < len(got); tries++ {
		if tries > 1000 {
			t.Fatalf("no reply after %d turns: %q", tries, got[:n])
		}
		loopOnce(t, conn)
		m, err := unix.Read(cli, got[n:])
		if err != nil && !errors.Is(err, unix.EAGAIN) {
			t.Fatal(err)
		}
		n += max(m, 0)
	}
	if string(got) != string(reply) {
		t.Fatalf("reply %q, want %q", got, reply)
	}
}

// TestBuffersTakenWhenNeeded: a connection holds no buffer until it reads
// and answers, counts the ones it takes in the budget, keeps them while it
// is busy, and gives them back once idle for kBufIdleMs.
func TestBuffersTakenWhenNeeded(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	conn := newTestConn(t, srv)
	if conn.memory() != 0 || outputHeld+inputHeld != 0 {
		t.Fatalf("a new connection holds %d bytes, the count is %d", conn.memory(), outputHeld+inputHeld)
	}
	run("set", "k", "v")
	serveOne(t, conn, cli, testFrame("get", "k"), testStrReply("v"))
	serveOne(t, conn, cli, testFrame("get", "k"), testStrReply("v"))
	if held := conn.memory(); held != kRBufSize+kWBufSize || outputHeld+inputHeld != held {
		t.Fatalf("after two requests: the connection holds %d bytes, the count is %d; want %d", held, outputHeld+inputHeld, kRBufSize+kWBufSize)
	}
	giveBackIdle(conn.idleStart + kBufIdleMs*1000 - 1000)
	if conn.memory() == 0 {
		t.Fatal("the buffers were given back before the connection was idle for kBufIdleMs")
	}
	giveBackIdle(conn.idleStart + kBufIdleMs*1000 + 1)
	if conn.memory() != 0 || outputHeld+inputHeld != 0 {
		t.Fatalf("idle: the connection holds %d bytes, the count is %d", conn.memory(), outputHeld+inputHeld)
	}
	serveOne(t, conn, cli, testFrame("get", "k"), testStrReply("v")) // takes them again
}

// TestBudgetClosesTheBiggest: when the budget is full, the connection
// that needs memory gets it by closing the one holding the most (Redis's
// maxmemory-clients), not by being refused itself; the memory of the one
// closed is given back. One holding the most that asks for more is
// refused itself.
func TestBudgetClosesTheBiggest(t *testing.T) {
	hogSrv, hogCli := testPair(t, unix.SOCK_STREAM)
	hog := newTestConn(t, hogSrv)
	srv, cli := testPair(t, unix.SOCK_STREAM)
	small := newTestConn(t, srv)
	gData.fd2conn = nil
	connPut(&gData.fd2conn, hog)
	connPut(&gData.fd2conn, small)
	savedTotal := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = savedTotal })
	// The hog holds a backlog of replies that fills the budget.
	maxOutputTotal = 1 << 20
	hog.wbuf = make([]byte, 0, maxOutputTotal-kWBufSize)
	hog.wbuf = append(hog.wbuf, make([]byte, 1000)...)
	outputHeld = cap(hog.wbuf)

	run("set", "k", "v")
	serveOne(t, small, cli, testFrame("get", "k"), testStrReply("v"))
	if gData.fd2conn[hogSrv] != nil {
		t.Fatal("the connection holding the most is still open")
	}
	if n, err := unix.Read(hogCli, make([]byte, 1)); n != 0 || err != nil {
		t.Fatalf("the hog's client reads %d, %v; want EOF", n, err)
	}
	if outputHeld+inputHeld != small.memory() {
		t.Fatalf("the count is %d, the connection left holds %d", outputHeld+inputHeld, small.memory())
	}
	// Now the small one holds the most: asking past the budget, it is
	// refused, and nothing is counted for it.
	if budgetMake(small, maxOutputTotal) || outputHeld+inputHeld != small.memory() {
		t.Fatalf("a connection holding the most was let past the budget")
	}
}

// TestMaxClientsRefused: a connection accepted over maxclients is closed
// at once; one of RESP is told why first, in Redis's words.
func TestMaxClientsRefused(t *testing.T) {
	for _, resp := range []bool{false, true} {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		before := connsRefused
		refuseConn(fds[0], resp)
		got, err := io.ReadAll(readerOf(fds[1]))
		unix.Close(fds[1])
		want := ""
		if resp {
			want = "-ERR max number of clients reached\r\n"
		}
		if err != nil || string(got) != want || connsRefused != before+1 {
			t.Errorf("refused (RESP %v): read %q, %v; want %q", resp, got, err, want)
		}
	}
}

// readerOf reads a blocking descriptor.
type readerOf int

func (fd readerOf) Read(b []byte) (int, error) {
	n, err := unix.Read(int(fd), b)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return max(n, 0), err
}
