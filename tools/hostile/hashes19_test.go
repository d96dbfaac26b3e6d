package hostile

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Chapter 19's hash commands under attack. HRANDFIELD with a huge
// negative count asks for that many picks of a one-field hash: a reply of
// any length from a value of a few bytes. HSCAN with a huge COUNT asks one
// call to walk a whole hash. Each is compared with its honest twin of the
// same size: HKEYS of a hash with as many fields as the picks, and an
// HSCAN with COUNT 10. The log reports the server's CPU time and a
// bystander's worst PING for each; the verdicts are counts.

// hashes19 is the chapter of these commands.
const hashes19 = "ch19_commands"

// fillHash gives the hash at key n fields named prefix0, prefix1, ..., in
// HSETs of 1,000 fields.
func fillHash(t *testing.T, c *respConn, key, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i += 1000 {
		args := []string{"HSET", key}
		for j := i; j < min(n, i+1000); j++ {
			args = append(args, prefix+strconv.Itoa(j), "v")
		}
		if got := c.do(time.Minute, args...); !strings.HasPrefix(got, ":") {
			t.Fatalf("HSET: %.60q", got)
		}
	}
}

// TestHRandFieldHugeCount: HRANDFIELD one -N with N = 500,000 is answered
// with N picks, at about the cost of HKEYS of N fields; with N past what
// the reply budget holds, or past Redis's range, it is refused at once,
// and the server goes on answering.
func TestHRandFieldHugeCount(t *testing.T) {
	p, addr := startRESP(t, hashes19)
	c := dialRESP(t, addr)
	const n = 500_000
	if got := c.do(time.Minute, "HSET", "one", "f", "v"); got != ":1" {
		t.Fatalf("HSET: %q", got)
	}
	fillHash(t, c, "many", "f", n)
	var items int
	attack := measure(t, p.Pid(), addr, "HRANDFIELD one -N", func() {
		items = len(readBulks(t, c.r, c.do(time.Minute, "HRANDFIELD", "one", strconv.Itoa(-n))))
	})
	if items != n {
		t.Fatalf("HRANDFIELD one -%d: %d picks", n, items)
	}
	honest := measure(t, p.Pid(), addr, "HKEYS many", func() {
		items = len(readBulks(t, c.r, c.do(time.Minute, "HKEYS", "many")))
	})
	if items != n {
		t.Fatalf("HKEYS many: %d fields, want %d", items, n)
	}
	t.Logf("HRANDFIELD one -%d: server CPU %v, bystander's worst PING %v", n, attack.cpu, attack.worst.Round(time.Millisecond))
	t.Logf("HKEYS of %d fields (its honest twin): server CPU %v, bystander's worst PING %v", n, honest.cpu, honest.worst.Round(time.Millisecond))
	for _, args := range [][]string{
		{"HRANDFIELD", "one", "-9223372036854775807"},
		{"HRANDFIELD", "one", "-4611686018427387903", "WITHVALUES"},
		{"HRANDFIELD", "one", "-9223372036854775808"},
		{"HRANDFIELD", "many", "-9223372036854775807", "WITHVALUES"},
	} {
		var got string
		f := measure(t, p.Pid(), addr, args[2], func() { got = c.do(time.Minute, args...) })
		if !strings.HasPrefix(got, "-ERR") {
			t.Fatalf("%q: %.80q, want an error", args, got)
		}
		t.Logf("%s: refused (%.50s...), server CPU %v", strings.Join(args, " "), got, f.cpu)
	}
	if got := c.do(time.Minute, "HLEN", "many"); got != ":"+strconv.Itoa(n) {
		t.Fatalf("HLEN many after the attacks: %q", got)
	}
}

// TestHScanHugeCount: a whole HSCAN of a hash of 300,000 fields with
// COUNT 1,000,000,000 against one with COUNT 10: each call of the first
// is bounded (kScanMaxCount places), so the bystander waits no longer
// than for a call of that size; both return every field exactly once. A
// pattern that takes many steps per field is refused, not run.
func TestHScanHugeCount(t *testing.T) {
	p, addr := startRESP(t, hashes19)
	c := dialRESP(t, addr)
	const n = 300_000
	fillHash(t, c, "h", "field:", n)
	scan := func(count string) (int, int) {
		seen := map[string]int{}
		calls := 0
		for cursor := "0"; ; {
			calls++
			if got := c.do(time.Minute, "HSCAN", "h", cursor, "COUNT", count); got != "*2" {
				t.Fatalf("HSCAN: %.60q", got)
			}
			c.line()
			cursor = c.line()
			kv := readBulks(t, c.r, c.line())
			for i := 0; i < len(kv); i += 2 {
				seen[kv[i]]++
			}
			if cursor == "0" {
				break
			}
		}
		for f, k := range seen {
			if k != 1 {
				t.Fatalf("HSCAN COUNT %s returned %q %d times, nothing changing", count, f, k)
			}
		}
		return len(seen), calls
	}
	for _, count := range []string{"1000000000", "10"} {
		var fields, calls int
		f := measure(t, p.Pid(), addr, "HSCAN COUNT "+count, func() { fields, calls = scan(count) })
		if fields != n {
			t.Fatalf("HSCAN COUNT %s: %d fields, want %d", count, fields, n)
		}
		t.Logf("a whole HSCAN of %d fields with COUNT %s: %d calls, server CPU %v, bystander's worst PING %v",
			n, count, calls, f.cpu, f.worst.Round(time.Millisecond))
	}
	pattern := strings.Repeat("*f", 200) + "x"
	var got string
	f := measure(t, p.Pid(), addr, "HSCAN MATCH", func() {
		got = c.do(time.Minute, "HSCAN", "h", "0", "COUNT", "16384", "MATCH", pattern)
		if got == "*2" {
			c.line()
			c.line()
			readBulks(t, c.r, c.line())
		}
	})
	t.Logf("HSCAN COUNT 16384 with a costly pattern: %.60q, server CPU %v, bystander's worst PING %v", got, f.cpu, f.worst.Round(time.Millisecond))
	if !strings.HasPrefix(got, "-ERR the pattern would take more than") && got != "*2" {
		t.Fatalf("HSCAN with a costly pattern: %.80q", got)
	}
}

// TestHIncrByFloatLongNumbers: 2,000 pipelined HINCRBYFLOATs of numbers of
// 4,900 digits, each read and written in time that grows with the square
// of its digits, against 2,000 SETs of values of as many bytes, their
// honest twin. Each is answered; the log reports the server's CPU time
// and the bystander's worst PING for both. The conversions are the cost
// of Redis's own arithmetic (Redis 7.0.15 takes about 2.4 s of CPU for
// these 2,000, where this server took 0.7 s): what the server owes the
// bystander is that they are charged, so that a turn of them ends early.
func TestHIncrByFloatLongNumbers(t *testing.T) {
	p, addr := startRESP(t, hashes19)
	c := dialRESP(t, addr)
	const n = 2000
	long := strings.Repeat("1", 4900)
	run := func(what string, cmd func(i int) []string, want func(reply string) bool) figures {
		return measure(t, p.Pid(), addr, what, func() {
			var req strings.Builder
			for i := range n {
				req.WriteString(respCmd(cmd(i)...))
			}
			go c.conn.Write([]byte(req.String()))
			c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			for i := range n {
				if got := skipReply(t, c.r); !want(got) {
					t.Fatalf("%s, reply %d: %.60q", what, i, got)
				}
			}
		})
	}
	attack := run("HINCRBYFLOAT", func(i int) []string {
		return []string{"HINCRBYFLOAT", "h" + strconv.Itoa(i%10), "f", long}
	}, func(r string) bool { return strings.HasPrefix(r, "$") || strings.HasPrefix(r, "-ERR increment") })
	honest := run("SET", func(i int) []string {
		return []string{"SET", "s" + strconv.Itoa(i%10), long}
	}, func(r string) bool { return r == "+OK" })
	t.Logf("%d HINCRBYFLOATs of %d digits: server CPU %v, bystander's worst PING %v", n, len(long), attack.cpu, attack.worst.Round(time.Millisecond))
	t.Logf("%d SETs of %d bytes (the honest twin): server CPU %v, bystander's worst PING %v", n, len(long), honest.cpu, honest.worst.Round(time.Millisecond))
}
