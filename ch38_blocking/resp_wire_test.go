package chapter_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/ch38_blocking/resp"
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
// requests split across writes, pipelines, and RESP3 after HELLO 3.
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
	// Scores: bulk strings in RESP2, doubles after HELLO 3; nil changes too.
	respExchange(t, c, r, "ZADD z 1.5 m\r\nZSCORE z m\r\nGET nokey\r\n", ":1\r\n$3\r\n1.5\r\n$-1\r\n")
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
	respExchange(t, c, r, "HSET h f v\r\nHGETALL h\r\n", ":1\r\n%1\r\n$1\r\nf\r\n$1\r\nv\r\n")
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
	respExchange(t, c, r, "ZADD z 2 b x c\r\n", "-ERR value is not a valid float\r\n")
	respExchange(t, c, r, "SET k v EX 0\r\n", "-ERR invalid expire time in 'set' command\r\n")
	respExchange(t, c, r, "SET z v BADOPT\r\n", "-ERR syntax error\r\n")
	respExchange(t, c, r, "ZRANGE z 0 -1\r\nEXISTS k\r\n", "*1\r\n$1\r\na\r\n:0\r\n")
	respExchange(t, c, r, "HSET z f v\r\n", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
	respExchange(t, c, r, "SELECT 1\r\n", "-ERR DB index is out of range\r\n")
	respExchange(t, c, r, "DBSIZE\r\n", ":1\r\n")
}

// TestRESPLargeValues: a request far larger than the book's 4 KiB messages
// grows the connection's buffer and goes through whole, and so does a
// reply: RESP has no cap on either but the budget of memory.
func TestRESPLargeValues(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	big := strings.Repeat("abcdefgh", 50_000) // 400,000 bytes
	respExchange(t, c, r, "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$400000\r\n"+big+"\r\n", "+OK\r\n")
	respExchange(t, c, r, "GET big\r\nSTRLEN_IS_NOT_HERE\r\n",
		"$400000\r\n"+big+"\r\n-ERR unknown command 'STRLEN_IS_NOT_HERE', with args beginning with: \r\n")
	// A field of 800,000 bytes: HGETALL's reply is over 512 KiB (where
	// replies were once cut off), and answered as Redis answers it.
	respExchange(t, c, r, "*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\na\r\n$800000\r\n"+big+big+"\r\n", ":1\r\n")
	respExchange(t, c, r, "HGETALL h\r\nPING\r\n", "*2\r\n$1\r\na\r\n$800000\r\n"+big+big+"\r\n+PONG\r\n")
}

// respReadBulks reads a reply that is an array of bulk strings, and
// returns them.
func respReadBulks(t *testing.T, r *bufio.Reader) []string {
	t.Helper()
	line, err := r.ReadString('\n')
	n, err2 := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "*"), "\r\n"))
	if err != nil || err2 != nil || !strings.HasPrefix(line, "*") {
		t.Fatalf("want an array, got %q (%v)", line, err)
	}
	got := make([]string, n)
	for i := range got {
		hdr, err := r.ReadString('\n')
		size, err2 := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(hdr, "$"), "\r\n"))
		if err != nil || err2 != nil || !strings.HasPrefix(hdr, "$") {
			t.Fatalf("element %d: want a bulk string, got %q (%v)", i, hdr, err)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		got[i] = string(b[:size])
	}
	return got
}

// respSetMany sets n keys named prefix+i, each of keyLen bytes or more, to
// "v" over a RESP connection, in one pipeline.
func respSetMany(t *testing.T, c net.Conn, r *bufio.Reader, prefix string, n, keyLen int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		k := fmt.Sprintf("%s%d", prefix, i)
		k += strings.Repeat("x", max(0, keyLen-len(k)))
		fmt.Fprintf(&b, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", len(k), k)
	}
	respExchange(t, c, r, b.String(), strings.Repeat("+OK\r\n", n))
}

// TestRESPManyKeys: KEYS and FLUSHALL work on a key space far larger than
// the book's keys can list in one 4 KiB reply (it once panicked the
// server), and KEYS refuses a reply over the RESP reply cap.
func TestRESPManyKeys(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	const n = 1500
	respSetMany(t, c, r, "key", n, 0)
	respExchange(t, c, r, "DBSIZE\r\n", fmt.Sprintf(":%d\r\n", n))

	if _, err := io.WriteString(c, "KEYS *\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadString('\n')
	if err != nil || line != fmt.Sprintf("*%d\r\n", n) {
		t.Fatalf("KEYS *: got %q (%v), want an array of %d", line, err, n)
	}
	seen := map[string]bool{}
	for range n {
		hdr, err1 := r.ReadString('\n')
		key, err2 := r.ReadString('\n')
		if err1 != nil || err2 != nil || !strings.HasPrefix(hdr, "$") {
			t.Fatalf("KEYS *: bad element %q %q (%v %v)", hdr, key, err1, err2)
		}
		seen[strings.TrimSuffix(key, "\r\n")] = true
	}
	for i := range n {
		if k := fmt.Sprintf("key%d", i); !seen[k] {
			t.Fatalf("KEYS * misses %q", k)
		}
	}
	respExchange(t, c, r, "KEYS key149?\r\n", "*10\r\n")
	for range 10 {
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}

	// 600 keys of 1000 bytes: listing them is over 512 KiB, and answered.
	respSetMany(t, c, r, "long", 600, 1000)
	if _, err := io.WriteString(c, "KEYS *\r\nKEYS long*\r\n"); err != nil {
		t.Fatal(err)
	}
	if got := respReadBulks(t, r); len(got) != n+600 {
		t.Fatalf("KEYS * listed %d keys, want %d", len(got), n+600)
	}
	if got := respReadBulks(t, r); len(got) != 600 || len(got[0]) != 1000 {
		t.Fatalf("KEYS long* listed %d keys, want 600 of 1000 bytes", len(got))
	}
	respExchange(t, c, r, "KEYS key1499\r\n", "*1\r\n$7\r\nkey1499\r\n")

	respExchange(t, c, r, "FLUSHALL\r\nDBSIZE\r\nPING\r\n", "+OK\r\n:0\r\n+PONG\r\n")
}

// TestRESPReplyBounds: replies are not bounded at the book's 4 KiB:
// ZRANGE of 1000 members and HGETALL of 409 fields (which the book's
// hgetall refuses) are answered; so are replies over 512 KiB (where they
// were once refused), as Redis answers them.
func TestRESPReplyBounds(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	var zadd, hset strings.Builder
	zadd.WriteString("ZADD z")
	hset.WriteString("HSET h")
	for i := range 1000 {
		fmt.Fprintf(&zadd, " %d member%04d", i, i)
	}
	for i := range 408 {
		fmt.Fprintf(&hset, " f%03d v", i)
	}
	respExchange(t, c, r, zadd.String()+"\r\n"+hset.String()+"\r\n", ":1000\r\n:408\r\n")
	var want strings.Builder
	want.WriteString("*1000\r\n")
	for i := range 1000 {
		fmt.Fprintf(&want, "$10\r\nmember%04d\r\n", i)
	}
	respExchange(t, c, r, "ZRANGE z 0 -1\r\n", want.String()) // 16 KB
	if _, err := io.WriteString(c, "HGETALL h\r\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "*816\r\n" {
		t.Fatalf("HGETALL of 408 fields: got %q (%v), want *816", line, err)
	}
	for range 816 * 2 {
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	respExchange(t, c, r, "HSET h f408 v\r\nHLEN h\r\n", ":1\r\n:409\r\n")
	if _, err := io.WriteString(c, "HGETALL h\r\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "*818\r\n" {
		t.Fatalf("HGETALL of 409 fields: got %q (%v), want *818", line, err)
	}
	for range 818 * 2 {
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	// 600 fields, or members, of 1000 bytes: over 512 KiB.
	bigH, bigZ := []string{"HSET", "big"}, []string{"ZADD", "bigz"}
	for i := range 600 {
		bigH = append(bigH, fmt.Sprintf("f%03d", i), strings.Repeat("v", 1000))
		bigZ = append(bigZ, fmt.Sprint(i), fmt.Sprintf("%01000d", i))
	}
	respExchange(t, c, r, string(resp.AppendRequest(resp.AppendRequest(nil, bigH...), bigZ...)), ":600\r\n:600\r\n")
	if _, err := io.WriteString(c, "HGETALL big\r\nZRANGE bigz 0 -1\r\nZRANGE bigz -inf +inf BYSCORE\r\n"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{1200, 600, 600} {
		if got := respReadBulks(t, r); len(got) != want {
			t.Fatalf("a reply of %d strings, want %d", len(got), want)
		}
	}
	respExchange(t, c, r, "ZRANGE bigz 0 -1 BYSCORE\r\nPING\r\n", "*0\r\n+PONG\r\n")
	respExchange(t, c, r, "ZRANGE bigz -inf +inf BYSCORE LIMIT 0 2\r\n", "*2\r\n$1000\r\n"+fmt.Sprintf("%01000d", 0)+"\r\n$1000\r\n"+fmt.Sprintf("%01000d", 1)+"\r\n")
}

// TestRESPMulti: MULTI queues the commands up to EXEC, which runs them
// and answers their replies in one array; a command refused when queued
// makes EXEC discard the transaction; DISCARD ends one without running it.
func TestRESPMulti(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	respExchange(t, c, r, "MULTI\r\nSET k v\r\nMULTI\r\nGET k\r\nEXEC\r\nGET k\r\n",
		"+OK\r\n+QUEUED\r\n-ERR MULTI calls can not be nested\r\n+QUEUED\r\n*2\r\n+OK\r\n$1\r\nv\r\n$1\r\nv\r\n")
	respExchange(t, c, r, "MULTI\r\nSET k w\r\nNOSUCH\r\nEXEC\r\nGET k\r\n",
		"+OK\r\n+QUEUED\r\n-ERR unknown command 'NOSUCH', with args beginning with: \r\n"+
			"-EXECABORT Transaction discarded because of previous errors.\r\n$1\r\nv\r\n")
	respExchange(t, c, r, "MULTI\r\nSET k w\r\nDISCARD\r\nGET k\r\nMULTI\r\nEXEC\r\nEXEC\r\nDISCARD\r\n",
		"+OK\r\n+QUEUED\r\n+OK\r\n$1\r\nv\r\n+OK\r\n*0\r\n-ERR EXEC without MULTI\r\n-ERR DISCARD without MULTI\r\n")
}
