package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Members weighed at their arguments' cost. EXEC weighs a ZADD or an HSET
// by its arguments and bytes alone (the cost functions note what the
// command adds, and charge nothing for adding it), and the commands
// charge no more as they run. But putting a member into a sorted set
// (its tree, its hash table, a node allocated) or a field into a hash
// costs several times what copying its bytes does, so a transaction the
// weighing lets through as within kMaxExecWork may hold the event loop
// for most of a second: 8 ZADDs of 100,000 new members each weigh some
// 1.8 million units, under the bound of about 2.1 million, and took
// 0.64 s of the server's CPU in one EXEC (a bystander's PING waited as
// long), against 10 ms for 8 SETs of the same bytes. (ZADDs updating
// scores in a set of a million members, or ZREMs from it, took 3.8 s.)
// The test sends the transaction and its twin, reports both, and asserts
// that the attack is refused whole (EXECABORT), nothing added, as a
// transaction whose work could pass the bound is; the twin runs.

// TestExecMemberWork: see above.
func TestExecMemberWork(t *testing.T) { eachChapter(t, txChapters(), testExecMemberWork) }

func testExecMemberWork(t *testing.T, ch string) {
	p, addr := startRESP(t, ch)
	const cmds, members = 8, 100_000

	// queue sends MULTI and the commands, and reads their replies, so
	// that what is measured next is EXEC alone.
	queue := func(c *respConn, reqs []string) {
		t.Helper()
		c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		go c.conn.Write([]byte(respCmd("MULTI") + strings.Join(reqs, "")))
		for range len(reqs) + 1 {
			if got := skipReply(t, c.r); got != "+OK" && got != "+QUEUED" {
				t.Fatalf("queueing: %q", got)
			}
		}
	}
	// exec runs EXEC and returns its reply's first line, the server's CPU
	// for it and the bystander's worst PING meanwhile.
	exec := func(c *respConn) (string, time.Duration, time.Duration) {
		t.Helper()
		var got string
		f := measure(t, p.Pid(), addr, "EXEC", func() {
			c.conn.Write([]byte(respCmd("EXEC")))
			got = skipReply(t, c.r)
		})
		return got, f.cpu, f.worst
	}

	for _, kind := range []string{"ZADD", "HSET"} {
		var attack, twin []string
		for i := range cmds {
			args := []string{kind, fmt.Sprintf("%s-%d", kind, i)}
			for j := range members {
				if kind == "ZADD" {
					args = append(args, fmt.Sprint(j), fmt.Sprintf("m%d", j))
				} else {
					args = append(args, fmt.Sprintf("f%d", j), fmt.Sprint(j))
				}
			}
			req := respCmd(args...)
			attack = append(attack, req)
			// The twin: a SET of a value as long as the ZADD's request.
			twin = append(twin, respCmd("SET", fmt.Sprintf("str-%s-%d", kind, i), strings.Repeat("v", len(req))))
		}
		a := dialRESP(t, addr)
		queue(a, attack)
		got, cpu, worst := exec(a)
		b := dialRESP(t, addr)
		queue(b, twin)
		twinGot, twinCPU, twinWorst := exec(b)
		t.Logf("EXEC of %d %ss of %d new members or fields each: %s, server CPU %v, bystander's worst PING %v; honest twin (as many SETs of the same bytes): %s, %v, %v",
			cmds, kind, members, got, cpu.Round(time.Millisecond), worst.Round(time.Millisecond),
			twinGot, twinCPU.Round(time.Millisecond), twinWorst.Round(time.Millisecond))
		if !strings.HasPrefix(got, "-EXECABORT") {
			t.Errorf("EXEC of %d %ss of %d members or fields each: %q, want it refused (EXECABORT)", cmds, kind, members, got)
		}
		if want := fmt.Sprintf("*%d", cmds); twinGot != want {
			t.Errorf("EXEC of %d SETs: %q, want %q", cmds, twinGot, want)
		}
		if n := a.do(time.Minute, "EXISTS", kind+"-0"); strings.HasPrefix(got, "-EXECABORT") && n != ":0" {
			t.Errorf("EXISTS %s-0 after the refused EXEC: %q, want :0", kind, n)
		}
	}
}
