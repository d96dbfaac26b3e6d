package hostile

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/wire"
)

// Helpers the attacks share: connections to the server, and pipelines of
// GETs of a large value.

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
