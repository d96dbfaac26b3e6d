package chapter_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/testkit"
)

// respBulk sends one request and reads a bulk string reply, checking it
// is want.
func respBulk(t *testing.T, c io.Writer, r *bufio.Reader, req []byte, want string) {
	t.Helper()
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	hdr := fmt.Sprintf("$%d\r\n", len(want))
	if line, err := r.ReadString('\n'); err != nil || line != hdr {
		t.Fatalf("want %q, got %q (%v)", hdr, line, err)
	}
	got := make([]byte, len(want)+2)
	if _, err := io.ReadFull(r, got); err != nil || string(got) != want+"\r\n" {
		t.Fatalf("the value of %d bytes came back different (%v)", len(want), err)
	}
}

// testRESPSizes sets and gets values of each size on the RESP listener,
// as Redis takes them (bulk strings of up to 512 MB).
func testRESPSizes(t *testing.T, sizes ...int) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	for _, n := range sizes {
		val := strings.Repeat("0123456789abcdef", n/16)
		respExchange(t, c, r, string(resp.AppendRequest(nil, "SET", "big", val)), "+OK\r\n")
		respBulk(t, c, r, resp.AppendRequest(nil, "GET", "big"), val)
		respExchange(t, c, r, "STRLEN big\r\nPING\r\n", fmt.Sprintf(":%d\r\n+PONG\r\n", n))
	}
}

// TestRESPBigValues: SET and GET of 1 MB and 16 MB values work as on
// Redis (a 1 MB value once closed the connection: bulk strings stopped at
// 512 KiB).
func TestRESPBigValues(t *testing.T) {
	testRESPSizes(t, 1<<20, 16<<20)
}

// TestRESPHugeValue: and of 100 MB, within the default budget (heavy: it
// moves some 400 MB).
func TestRESPHugeValue(t *testing.T) {
	testkit.Heavy(t)
	testRESPSizes(t, 100<<20)
}

// TestRESPManyArguments: an MSET of 10,001 pairs (20,003 arguments; the
// parser once stopped at 8,192) and an HGETALL of a hash of 1 MB, whose
// reply passes 512 KiB, are answered as on Redis.
func TestRESPManyArguments(t *testing.T) {
	p := testkit.StartTestServer(t)
	c := respDial(t, p)
	r := bufio.NewReader(c)
	mset := []string{"MSET"}
	for i := range 10_001 {
		mset = append(mset, fmt.Sprintf("k%05d", i), fmt.Sprint(i))
	}
	respExchange(t, c, r, string(resp.AppendRequest(nil, mset...)), "+OK\r\n")
	respExchange(t, c, r, "DBSIZE\r\nGET k10000\r\n", ":10001\r\n$5\r\n10000\r\n")

	hset := []string{"HSET", "h"}
	for i := range 1024 {
		hset = append(hset, fmt.Sprintf("f%04d", i), strings.Repeat("v", 1024))
	}
	respExchange(t, c, r, string(resp.AppendRequest(nil, hset...)), ":1024\r\n")
	if _, err := io.WriteString(c, "HGETALL h\r\n"); err != nil {
		t.Fatal(err)
	}
	got := respReadBulks(t, r)
	if len(got) != 2048 {
		t.Fatalf("HGETALL of 1024 fields: %d strings", len(got))
	}
	seen := map[string]bool{}
	for i := 0; i < len(got); i += 2 {
		if got[i+1] != strings.Repeat("v", 1024) {
			t.Fatalf("field %q: a value of %d bytes", got[i], len(got[i+1]))
		}
		seen[got[i]] = true
	}
	if len(seen) != 1024 {
		t.Fatalf("HGETALL listed %d distinct fields, want 1024", len(seen))
	}
	respExchange(t, c, r, "PING\r\n", "+PONG\r\n")
}
