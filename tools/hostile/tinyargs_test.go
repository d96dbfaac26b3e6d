package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Argument slots outside the budget. A RESP request's read buffer counts
// in the budget of the connections' memory, but the slice of its
// arguments, which the parser fills once the request is whole, does not:
// 24 bytes for each argument, where an empty argument takes 6 bytes of
// the request ("$0\r\n\r\n"), and the slice grows by doubling. So a
// request of millions of empty arguments makes the server hold four to
// eight times its own size beside the budget: EXISTS with 5,000,000 empty
// keys, a request of 30 MB under a 64 MiB budget, took the server's RSS
// from 4 MB to 328 MB (and 1.1 s of CPU, the bystander's PING waiting as
// long), where its honest twin, a SET of a 30 MB value, peaked at 96 MB
// with the value stored. The test sends both to servers of their own,
// reports their CPU, peak RSS and the bystander's worst PING, and asserts
// that the attack's peak stays within twice the budget, as the many
// connections' test does (the budget and as much again for the garbage
// collector's headroom): a server that counts the slots answers the
// request or refuses it within its budget.

// TestTinyArgumentsCounted: see above.
func TestTinyArgumentsCounted(t *testing.T) {
	eachChapter(t, costlyRESP[len(costlyRESP)-1:], testTinyArguments)
}

func testTinyArguments(t *testing.T, ch string) {
	const budgetMB, n = 64, 5_000_000
	var attack strings.Builder
	fmt.Fprintf(&attack, "*%d\r\n$6\r\nEXISTS\r\n", n+1)
	attack.WriteString(strings.Repeat("$0\r\n\r\n", n))
	twin := respCmd("SET", "k", strings.Repeat("v", attack.Len()-30))

	// run sends req to a server of its own and returns the reply's first
	// line (or the error that ended the connection), the server's CPU,
	// its peak RSS beyond what it held before, and the bystander's worst
	// PING.
	run := func(req string) (got string, cpu time.Duration, peak int64, worst time.Duration) {
		p, addr := startRESP(t, ch, "-max-output-mb", fmt.Sprint(budgetMB))
		before := procStatus(t, p.Pid(), "VmHWM")
		c := dialRESP(t, addr)
		c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		f := measure(t, p.Pid(), addr, "the request", func() {
			go c.conn.Write([]byte(req))
			line, err := c.r.ReadString('\n')
			got = strings.TrimSuffix(line, "\r\n")
			if err != nil {
				got = "connection ended: " + err.Error()
			}
		})
		peak = procStatus(t, p.Pid(), "VmHWM") - before
		cpu, worst = f.cpu, f.worst
		return got, cpu, peak, worst
	}
	got, cpu, peak, worst := run(attack.String())
	twinGot, twinCPU, twinPeak, twinWorst := run(twin)
	t.Logf("EXISTS of %d empty keys (%d MB): %s, server CPU %v, peak RSS +%d MB, bystander's worst PING %v; honest twin (a SET of as many bytes): %s, %v, +%d MB, %v",
		n, attack.Len()>>20, got, cpu.Round(time.Millisecond), peak>>20, worst.Round(time.Millisecond),
		twinGot, twinCPU.Round(time.Millisecond), twinPeak>>20, twinWorst.Round(time.Millisecond))
	if twinGot != "+OK" {
		t.Errorf("the twin's SET: %q", twinGot)
	}
	if got != ":0" && !strings.HasPrefix(got, "-ERR") {
		t.Errorf("EXISTS of %d empty keys: %q, want :0 or an error", n, got)
	}
	if peak > 2*budgetMB<<20 {
		t.Errorf("EXISTS of %d empty keys: the peak RSS grew by %d MB, past twice the %d MB budget", n, peak>>20, budgetMB)
	}
}
