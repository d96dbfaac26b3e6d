package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/wire"
)

// Helpers the attacks share: connections to the server, in the book's
// protocol and in RESP, reading RESP replies, and pipelines of GETs of a
// large value.

// dialConn connects to addr for the test, which closes the connection when
// it ends.
func dialConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// closeConns closes the connections and forgets them.
func closeConns(conns *[]net.Conn) {
	for _, c := range *conns {
		c.Close()
	}
	*conns = nil
}

// bigGets stores, through the client c it returns, a 4000-byte value under
// "big" and a small one under "small" on p's server, and returns gets
// pipelined GETs of big, in Redis's protocol if resp, with the address of
// the listener that speaks it.
func bigGets(t *testing.T, p *serverproc.Process, resp bool, gets int) (c *client, addr string, reqs []byte) {
	t.Helper()
	c = dial(t, p.Addr)
	c.do("set", "big", strings.Repeat("v", 4000))
	c.do("set", "small", "v")
	req, _ := wire.AppendRequest(nil, "get", "big")
	addr = p.Addr
	if resp {
		req = []byte("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")
		addr = respAddr(t, p)
	}
	return c, addr, bytes.Repeat(req, gets)
}

// respConn is a bare RESP connection, for the few commands these tests send.
type respConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

// dialRESP connects a respConn to addr, for the test.
func dialRESP(t *testing.T, addr string) *respConn {
	t.Helper()
	conn := dialConn(t, addr)
	return &respConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// do sends a command and returns the first line of its reply; the reply's
// other lines (of an array) are left to read with line. The deadline only
// guards against a server that never answers.
func (c *respConn) do(timeout time.Duration, args ...string) string {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(timeout))
	if _, err := c.conn.Write([]byte(respCmd(args...))); err != nil {
		c.t.Fatal(err)
	}
	return c.line()
}

// expectReply sends a command and fails the test, naming the command, the
// reply and want, unless the reply's first line is want; the reply's other
// lines (of an array or a bulk string) are left to read with line.
func (c *respConn) expectReply(timeout time.Duration, want string, args ...string) {
	c.t.Helper()
	if got := c.do(timeout, args...); got != want {
		c.t.Fatalf("%s: %q, want %q", commandText(args), got, want)
	}
}

// commandText quotes a command's arguments for a failure message, cut
// short: the requests that build a test's data carry thousands of
// arguments and values of megabytes.
func commandText(args []string) string {
	const maxArgs, maxBytes = 6, 32
	var sb strings.Builder
	for i, a := range args {
		if i == maxArgs {
			fmt.Fprintf(&sb, " and %d more", len(args)-i)
			break
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		if len(a) > maxBytes {
			fmt.Fprintf(&sb, "%q... (%d bytes)", a[:maxBytes], len(a))
		} else {
			fmt.Fprintf(&sb, "%q", a)
		}
	}
	return sb.String()
}

// line reads one line of a reply, without its CRLF.
func (c *respConn) line() string {
	c.t.Helper()
	s, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("reading a RESP reply: %v", err)
	}
	return strings.TrimSuffix(s, "\r\n")
}

// respCmd encodes one RESP request.
func respCmd(args ...string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	return sb.String()
}

// skipReply reads one whole RESP reply (of any nesting) and returns its
// first line.
func skipReply(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	line = strings.TrimSuffix(line, "\r\n")
	var n int
	switch line[0] {
	case '$':
		fmt.Sscan(line[1:], &n)
		if n >= 0 {
			if _, err := r.Discard(n + 2); err != nil {
				t.Fatal(err)
			}
		}
	case '*', '%':
		fmt.Sscan(line[1:], &n)
		if line[0] == '%' {
			n *= 2
		}
		for range n {
			skipReply(t, r)
		}
	}
	return line
}

// readBulks reads the bulk strings of an array reply whose first line
// (header) has been read.
func readBulks(t *testing.T, r *bufio.Reader, header string) []string {
	t.Helper()
	if header == "" || header[0] != '*' {
		t.Fatalf("expected an array, got %.60q", header)
	}
	n, err := strconv.Atoi(header[1:])
	if err != nil {
		t.Fatalf("array header %q", header)
	}
	out := make([]string, 0, max(n, 0))
	for range n {
		line, err := r.ReadString('\n')
		if err != nil || line[0] != '$' {
			t.Fatalf("bulk header %q: %v", line, err)
		}
		size, _ := strconv.Atoi(strings.TrimSuffix(line[1:], "\r\n"))
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(buf[:size]))
	}
	return out
}
