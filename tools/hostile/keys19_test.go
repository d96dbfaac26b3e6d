package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The generic key commands of chapter 19 that do work their few bytes of
// request do not pay for: COPY of a large value (O(n) copied from a
// request of a few dozen bytes), RENAME onto a large value (what it held
// is torn down) and RANDOMKEY over many keys (a probe of the key table).
// Each is run beside its honest twin, which makes the same data by
// sending it, or asks for keys by name; the log reports both (the
// server's CPU, the bystander's worst PING) and the assertions are the
// replies and the counts of keys and fields, never times.

// keys19Chapters are the chapters with chapter 19's key commands: 19 on.
func keys19Chapters() []string {
	var out []string
	for _, d := range allChapters {
		if d >= "ch19" {
			out = append(out, d)
		}
	}
	return out
}

// TestKeysCopyRenameRandom: see above.
func TestKeysCopyRenameRandom(t *testing.T) {
	eachChapter(t, keys19Chapters(), testKeysCopyRenameRandom)
}

func testKeysCopyRenameRandom(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	// expect sends the requests in one write and checks each reply's
	// first line.
	expect := func(c *respConn, reqs []string, want func(i int, got string) bool) {
		t.Helper()
		c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		go c.conn.Write([]byte(strings.Join(reqs, "")))
		for i := range reqs {
			if got := skipReply(t, c.r); !want(i, got) {
				t.Fatalf("reply %d of %d: %q", i+1, len(reqs), got)
			}
		}
	}
	is := func(s string) func(int, string) bool { return func(_ int, got string) bool { return got == s } }

	// COPY of a hash at the largest COPY copies (30,000 fields), 32
	// times, against 32 HSETs that send the same fields.
	const fields, copies = 30_000, 32
	hset := []string{"HSET", "h"}
	for i := range fields {
		hset = append(hset, fmt.Sprintf("field:%06d", i), fmt.Sprint(i))
	}
	expect(c, []string{respCmd(hset...)}, is(fmt.Sprintf(":%d", fields)))
	var attack, twin []string
	for i := range copies {
		attack = append(attack, respCmd("COPY", "h", fmt.Sprintf("copy:%d", i)))
		twin = append(twin, respCmd(append([]string{"HSET", fmt.Sprintf("sent:%d", i)}, hset[2:]...)...))
	}
	fa := measure(t, p.Pid(), addr, "COPY", func() { expect(c, attack, is(":1")) })
	ft := measure(t, p.Pid(), addr, "HSET", func() { expect(c, twin, is(fmt.Sprintf(":%d", fields))) })
	t.Logf("%d COPYs of a hash of %d fields: server CPU %v, bystander's worst PING %v; honest twin (%d HSETs sending the fields): %v, %v",
		copies, fields, fa.cpu.Round(time.Millisecond), fa.worst.Round(time.Millisecond), copies,
		ft.cpu.Round(time.Millisecond), ft.worst.Round(time.Millisecond))
	for _, k := range []string{"copy:0", fmt.Sprintf("copy:%d", copies-1), "sent:0"} {
		if got := c.do(time.Minute, "HLEN", k); got != fmt.Sprintf(":%d", fields) {
			t.Errorf("HLEN %s: %q", k, got)
		}
	}
	// One field more, and COPY refuses: nothing is copied.
	expect(c, []string{respCmd("HSET", "h", "one", "more"), respCmd("COPY", "h", "refused")},
		func(i int, got string) bool {
			return i == 0 && got == ":1" || i == 1 && strings.HasPrefix(got, "-ERR COPY is refused")
		})
	if got := c.do(time.Minute, "EXISTS", "refused"); got != ":0" {
		t.Errorf("EXISTS after a refused COPY: %q", got)
	}

	// RENAME onto a sorted set of 500,000 members: the set is torn down
	// off the loop, as DEL's is; the twin is a RENAME onto a string.
	const members = 500_000
	for i := 0; i < members; i += 5000 {
		zadd := []string{"ZADD", "z"}
		for j := i; j < i+5000; j++ {
			zadd = append(zadd, fmt.Sprint(j), fmt.Sprintf("member:%07d", j))
		}
		expect(c, []string{respCmd(zadd...)}, is(":5000"))
	}
	expect(c, []string{respCmd("SET", "small", "v"), respCmd("SET", "small2", "v"), respCmd("SET", "str", "v")}, is("+OK"))
	fa = measure(t, p.Pid(), addr, "RENAME", func() { expect(c, []string{respCmd("RENAME", "small", "z")}, is("+OK")) })
	ft = measure(t, p.Pid(), addr, "RENAME", func() { expect(c, []string{respCmd("RENAME", "small2", "str")}, is("+OK")) })
	t.Logf("RENAME onto a sorted set of %d members: server CPU %v, bystander's worst PING %v; honest twin (onto a string): %v, %v",
		members, fa.cpu.Round(time.Millisecond), fa.worst.Round(time.Millisecond), ft.cpu.Round(time.Millisecond), ft.worst.Round(time.Millisecond))
	if got := c.do(time.Minute, "TYPE", "z"); got != "+string" {
		t.Errorf("TYPE z after RENAME onto it: %q", got)
	}

	// RANDOMKEY over 200,000 keys, 20,000 times, against as many GETs.
	const keys, asks = 200_000, 20_000
	for i := 0; i < keys; i += 1000 {
		mset := []string{"MSET"}
		for j := i; j < i+1000; j++ {
			mset = append(mset, fmt.Sprintf("key:%07d", j), "v")
		}
		expect(c, []string{respCmd(mset...)}, is("+OK"))
	}
	attack, twin = attack[:0], twin[:0]
	for i := range asks {
		attack = append(attack, respCmd("RANDOMKEY"))
		twin = append(twin, respCmd("GET", fmt.Sprintf("key:%07d", i*7%keys)))
	}
	bulk := func(_ int, got string) bool { return strings.HasPrefix(got, "$") && got != "$-1" }
	fa = measure(t, p.Pid(), addr, "RANDOMKEY", func() { expect(c, attack, bulk) })
	ft = measure(t, p.Pid(), addr, "GET", func() { expect(c, twin, bulk) })
	t.Logf("%d RANDOMKEYs over %d keys: server CPU %v, bystander's worst PING %v; honest twin (%d GETs): %v, %v",
		asks, keys, fa.cpu.Round(time.Millisecond), fa.worst.Round(time.Millisecond), asks, ft.cpu.Round(time.Millisecond), ft.worst.Round(time.Millisecond))
}
