package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// EXEC's reply built in time linear in its size. MULTI, 10,000 COMMANDs
// and EXEC froze the loop for 13 to 15 s, and 10,000 ZRANGEs of a
// 100-member set for 8 to 25 s: each element raised the reply's room a
// little, and a nearly full reply of megabytes was copied again for every
// element. (10,000 COMMANDs now weigh more than a transaction may, and
// EXEC refuses them before running any: the test sends 1,000, a reply of
// some 14 MB, still copied gigabytes over the old way; and 10,000 ZRANGEs
// visit a million members, past the bound too: it sends 5,000, a reply of
// 8.5 MB.) The honest twin sends the same commands pipelined, without
// MULTI: the same replies, the same bytes. The log reports both CPU times
// and a bystander's worst PING; the test asserts the replies: every
// element of EXEC's reply is the command's own reply, not an error.

// txChapters are the chapters with transactions: the newest of the RESP
// chapters (chapter 18 brought them).
func txChapters() []string {
	return costlyRESP[len(costlyRESP)-1:]
}

// TestExecReplyCost: see above.
func TestExecReplyCost(t *testing.T) {
	eachChapter(t, txChapters(), testExecReplyCost)
}

func testExecReplyCost(t *testing.T, ch string) {
	p, addr, setup := startWithClient(t, ch)
	args := []string{"ZADD", "z"}
	for i := range 100 {
		args = append(args, fmt.Sprint(i), fmt.Sprintf("member-%03d", i))
	}
	if got := setup.do(time.Minute, args...); got != ":100" {
		t.Fatalf("ZADD: %q", got)
	}
	for _, tc := range []struct {
		cmd []string
		n   int
	}{{[]string{"COMMAND"}, 1_000}, {[]string{"ZRANGE", "z", "0", "99"}, 5_000}} {
		cmd, n := tc.cmd, tc.n
		name := fmt.Sprintf("%d x %s", n, strings.Join(cmd, " "))
		// The twin: the same commands, pipelined.
		twin := func(c *respConn) []string {
			c.conn.Write([]byte(strings.Repeat(respCmd(cmd...), n)))
			heads := make([]string, n)
			for i := range heads {
				heads[i] = skipReply(t, c.r)
			}
			return heads
		}
		// The attack: the same commands in one transaction.
		attack := func(c *respConn) []string {
			c.conn.Write([]byte(respCmd("MULTI") + strings.Repeat(respCmd(cmd...), n) + respCmd("EXEC")))
			for i := range n + 1 {
				if line := c.line(); line != "+OK" && line != "+QUEUED" {
					t.Fatalf("%s: reply %d to queueing: %q", name, i, line)
				}
			}
			if line := c.line(); line != fmt.Sprintf("*%d", n) {
				t.Fatalf("%s: EXEC answered %q", name, line)
			}
			heads := make([]string, n)
			for i := range heads {
				heads[i] = skipReply(t, c.r)
			}
			return heads
		}
		var want []string
		for _, run := range []struct {
			kind string
			do   func(*respConn) []string
		}{{"pipelined", twin}, {"in MULTI/EXEC", attack}} {
			c := dialRESP(t, addr)
			c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			var heads []string
			f := measure(t, p.Pid(), addr, name+" "+run.kind, func() { heads = run.do(c) })
			t.Logf("%s %s: answered in %v, server CPU %v; bystander's worst PING %v",
				name, run.kind, f.took.Round(time.Millisecond), f.cpu, f.worst.Round(time.Millisecond))
			if want == nil {
				want = heads
				continue
			}
			for i := range heads {
				if heads[i] != want[i] {
					t.Fatalf("%s: element %d of EXEC's reply starts %q, the command's own reply %q", name, i, heads[i], want[i])
				}
			}
		}
	}
}
