package server

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// saveBudget restores the memory accounting after a test that sets it.
// The connections of earlier tests are forgotten (bufList), so that their
// buffers are not given back into this test's count.
func saveBudget(t *testing.T) {
	bufList.Init()
	savedOut, savedIn, savedTotal := outputHeld, inputHeld, maxOutputTotal
	t.Cleanup(func() { outputHeld, inputHeld, maxOutputTotal = savedOut, savedIn, savedTotal })
}

// sendPartial sends the first size bytes of a SET of a value of 500 KB
// (never the rest) and runs the connection until it has read them all.
func sendPartial(t *testing.T, conn *conn, cli, size int) {
	t.Helper()
	req := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s", 500_000, strings.Repeat("v", size))
	data := []byte(req)[:size]
	for len(data) > 0 {
		w, err := unix.Write(cli, data[:min(len(data), 16<<10)])
		if err != nil && err != unix.EAGAIN {
			t.Fatal(err)
		}
		data = data[max(w, 0):]
		for conn.state == stateReq && loopOnce(t, conn) {
		}
		if conn.state != stateReq {
			return
		}
	}
}

// TestRESPPartialRequestsBudgeted: the read buffer a partial request grows
// counts in the bound over all connections (2000 clients each holding
// most of a 1 MB request held 2.2 GB), is given back when the connection
// closes, and a connection whose request would take it past the bound is
// refused with an error saying so and closed.
func TestRESPPartialRequestsBudgeted(t *testing.T) {
	saveBudget(t)
	outputHeld, inputHeld, maxOutputTotal = 0, 0, 64<<20
	srv, cli := testPair(t, unix.SOCK_STREAM)
	fd2conn := make([]*conn, srv+1)
	c := newTestRESPConn(t, srv)
	fd2conn[srv] = c
	gData.fd2conn = fd2conn
	st := c.framing.(*respState)
	sendPartial(t, c, cli, 300_000)
	if inputHeld != cap(st.buf)+st.bigHeld || inputHeld < 300_000 {
		t.Fatalf("a partial request of 300 KB: inputHeld %d, the read buffers have %d + %d bytes", inputHeld, cap(st.buf), st.bigHeld)
	}
	connDone(c)
	if inputHeld != 0 {
		t.Fatalf("inputHeld %d after the connection closed, want 0", inputHeld)
	}

	// With the bound nearly reached, the next growth is refused.
	srv, cli = testPair(t, unix.SOCK_STREAM)
	c = newTestRESPConn(t, srv)
	maxOutputTotal = 100 << 10
	outputHeld = 34 << 10
	sendPartial(t, c, cli, 200_000)
	if c.state == stateReq {
		t.Fatalf("a request needing %d bytes with %d left of the bound is still read", 200_000, budgetLeft())
	}
	if inputHeld+outputHeld > maxOutputTotal {
		t.Fatalf("held %d + %d, past the bound %d", inputHeld, outputHeld, maxOutputTotal)
	}
	buf := make([]byte, 1024)
	n, _ := unix.Read(cli, buf)
	if want := "-" + errClientMemory + "\r\n"; string(buf[:max(n, 0)]) != want {
		t.Fatalf("got %q, want %q", buf[:max(n, 0)], want)
	}
}

// TestRESPNamesBudgeted: client names count in the bound over all
// connections (2000 clients naming themselves with 512 KB each held
// 1.5 GB): a name that would pass it is refused and changes nothing, and
// a connection's name is given back when it closes.
func TestRESPNamesBudgeted(t *testing.T) {
	saveBudget(t)
	outputHeld, inputHeld, maxOutputTotal = 0, 0, 1<<20
	st := newRESPState(nil)
	w := &st.w
	name := strings.Repeat("n", 600<<10)
	w.begin(nil)
	respDo(&conn{state: stateReq}, st, [][]byte{[]byte("CLIENT"), []byte("SETNAME"), []byte(name)})
	if string(w.buf) != "+OK\r\n" || inputHeld != len(name) {
		t.Fatalf("first name: %q, inputHeld %d", w.buf, inputHeld)
	}
	other := newRESPState(nil)
	other.w.begin(nil)
	respDo(&conn{state: stateReq}, other, [][]byte{[]byte("CLIENT"), []byte("SETNAME"), []byte(name)})
	if !strings.HasPrefix(string(other.w.buf), "-ERR the server's memory for clients is full") || other.name != "" || inputHeld != len(name) {
		t.Fatalf("a name past the bound: %q, name %d bytes, inputHeld %d", other.w.buf, len(other.name), inputHeld)
	}
	st.release()
	if inputHeld != 0 {
		t.Fatalf("inputHeld %d after the named connection closed", inputHeld)
	}
}

// TestRESPHogClosed: a client holding most of the budget in a request it
// never finishes is the one closed when another client's request needs
// room, not the other: the other's request of 100 KB, past the 16 KiB of
// a read buffer, is answered.
func TestRESPHogClosed(t *testing.T) {
	saveBudget(t)
	hogSrv, hogCli := testPair(t, unix.SOCK_STREAM)
	hog := newTestRESPConn(t, hogSrv)
	maxOutputTotal = 1 << 20
	sendPartial(t, hog, hogCli, 500_000) // most of a SET of 500 KB
	held := hog.memory()
	if hog.state != stateReq || held < 500_000 || outputHeld+inputHeld != held {
		t.Fatalf("the hog's partial request: state %d, %d bytes held, %d counted", hog.state, held, outputHeld+inputHeld)
	}
	// A second connection (on a poller of its own: the test runs one at a
	// time), the hog's memory still counted.
	srv, cli := testPair(t, unix.SOCK_STREAM)
	c := newTestRESPConn(t, srv)
	outputHeld, inputHeld = 0, held
	maxOutputTotal = held + 64<<10 // room for buffers of the usual size, not for the request
	connPut(&gData.fd2conn, hog)
	connPut(&gData.fd2conn, c)
	val := strings.Repeat("x", 100_000)
	req := []byte(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nv\r\n$%d\r\n%s\r\n", len(val), val))
	for len(req) > 0 {
		if c.state != stateReq {
			t.Fatalf("the other client's connection ended (%d bytes of its request unsent)", len(req))
		}
		n, err := unix.Write(cli, req)
		if err != nil && err != unix.EAGAIN {
			t.Fatal(err)
		}
		req = req[max(n, 0):]
		for c.state == stateReq && loopOnce(t, c) {
		}
	}
	buf := make([]byte, 16)
	for i := 0; i < 100 && c.pending() > 0; i++ {
		loopOnce(t, c)
	}
	if n, _ := unix.Read(cli, buf); string(buf[:max(n, 0)]) != "+OK\r\n" {
		t.Fatalf("the other client's SET of 100 KB: %q", buf[:max(n, 0)])
	}
	if gData.fd2conn[hogSrv] != nil {
		t.Fatal("the hog is still open")
	}
	if outputHeld+inputHeld != c.memory() {
		t.Fatalf("the count is %d, the connection left holds %d", outputHeld+inputHeld, c.memory())
	}
}
