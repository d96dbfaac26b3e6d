package chapter_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// respDial connects to the RESP listener of a server started for t.
func respDial(t *testing.T, p *testkit.Server) net.Conn {
	t.Helper()
	addr, err := respAddr(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// A generous bound: a reply that never comes fails the test, not go test.
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c
}

// respExchange sends raw bytes and reads back exactly len(want) bytes.
func respExchange(t *testing.T, c net.Conn, r *bufio.Reader, send, want string) {
	t.Helper()
	if _, err := io.WriteString(c, send); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatalf("sent %q: reading the reply: %v (got %q)", send, err, got)
	}
	if string(got) != want {
		t.Fatalf("sent %q: got %q, want %q", send, got, want)
	}
}

// TestRESPWire checks the framing byte by byte: array and inline requests,
// requests split across writes, pipelines, RESP3 after HELLO 3, and QUIT.
func TestRESPWire(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)

	respExchange(t, c, r, "*1\r\n$4\r\nPING\r\n", "+PONG\r\n")
	// Inline commands, as typed into telnet, with quotes.
	respExchange(t, c, r, "set k \"a b\\x21\"\r\nGET k\n", "+OK\r\n$4\r\na b!\r\n")
	// A blank line is no request and gets no reply.
	respExchange(t, c, r, "\r\nPING\r\n", "+PONG\r\n")
	// A request in pieces is answered once it is whole.
	io.WriteString(c, "*2\r\n$3\r\nGE")
	time.Sleep(10 * time.Millisecond)
	respExchange(t, c, r, "T\r\n$1\r\nk\r\n", "$4\r\na b!\r\n")
	// A pipeline: every reply, in order.
	respExchange(t, c, r, strings.Repeat("*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", 100), strings.Repeat("$2\r\nhi\r\n", 100))
	// Scores are bulk strings in RESP2, and no value a null bulk string.
	respExchange(t, c, r, "ZADD z 1.5 m\r\nZSCORE z m\r\nGET nokey\r\n", ":1\r\n$3\r\n1.5\r\n$-1\r\n")
	respExchange(t, c, r, "HSET h f v\r\nHGETALL h\r\n", ":1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n")
	// After HELLO 3 the same replies are RESP3's: a double, a null, maps.
	if _, err := io.WriteString(c, "HELLO 3\r\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "%7\r\n" {
		t.Fatalf("HELLO 3: first line %q (%v), want a map of 7", line, err)
	}
	for range 14 { // the map's keys and values, one line each but bulk ones two
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "$") {
			r.ReadString('\n')
		}
	}
	respExchange(t, c, r, "ZSCORE z m\r\nGET nokey\r\nHGETALL nokey\r\n", ",1.5\r\n_\r\n%0\r\n") // Redis too: an empty map
	respExchange(t, c, r, "HGETALL h\r\n", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n")
	// QUIT answers, then the server closes the connection.
	respExchange(t, c, r, "QUIT\r\n", "+OK\r\n")
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("after QUIT: %v, want EOF", err)
	}
}

// TestRESPProtocolErrors: a request that cannot be parsed is answered with
// Redis's protocol error, after the replies to the requests before it,
// and the connection is closed; the server goes on serving others.
func TestRESPProtocolErrors(t *testing.T) {
	p := testkit.StartTestServer(t)
	tests := []struct{ send, want string }{
		{"PING\r\n*1\r\n+PING\r\n", "+PONG\r\n-ERR Protocol error: expected '$', got '+'\r\n"},
		{"*2\r\n$3\r\nGET\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n"}, // past Redis's 512 MB
		{"*2147483648\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},              // past a C int
		{"*1\r\n$1\r\nab\r\n", "-ERR Protocol error: expected CRLF after a bulk string\r\n"},
		{"GET \"k\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
		{strings.Repeat("x", 70000), "-ERR Protocol error: too big inline request\r\n"},
	}
	for _, tt := range tests {
		c := respDial(t, p)
		r := bufio.NewReader(c)
		respExchange(t, c, r, tt.send, tt.want)
		if b, err := r.ReadByte(); err != io.EOF {
			t.Fatalf("after %.30q: read %q, %v; want EOF", tt.send, b, err)
		}
	}
	c := respDial(t, p)
	respExchange(t, c, bufio.NewReader(c), "PING\r\n", "+PONG\r\n")
}

// TestRESPErrorsChangeNothing: a command answering an error leaves the
// data as it was.
func TestRESPErrorsChangeNothing(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	respExchange(t, c, r, "ZADD z 1 a\r\n", ":1\r\n")
	respExchange(t, c, r, "ZADD z x b\r\n", "-ERR expect fp number\r\n")
	respExchange(t, c, r, "ZADD z 2 b c\r\n", "-ERR wrong number of arguments for 'zadd' command\r\n")
	respExchange(t, c, r, "HSET z f v\r\n", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
	respExchange(t, c, r, "SELECT 1\r\n", "-ERR DB index is out of range\r\n")
	respExchange(t, c, r, "ZQUERY z 0 \"\" 0 10\r\n", "-ERR unknown command 'ZQUERY', with args beginning with: 'z' '0' '' '0' '10' \r\n")
	respExchange(t, c, r, "ZSCORE z b\r\nZSCORE z a\r\n", "$-1\r\n$1\r\n1\r\n")
}
