package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Loose weights: work that a client could get done inside one request
// (EXEC) or one turn without its being counted at its cost. APPEND copied
// the whole value, and was counted one unit per KiB, so a turn could copy
// 64 MiB and a transaction of APPENDs to a 1 MB value gigabytes; INFO and
// COMMAND were not weighed inside EXEC at all. (A value APPEND grows now
// keeps room for as much again, so an APPEND copies the value only when
// the room runs out.) Each attack runs beside an
// honest twin of the same shape (the same commands on a small value, or
// PINGs), on one server; the log reports the server's CPU for each and a
// bystander's worst PING. The verdicts are replies: a transaction whose
// work could pass the bound is refused whole (EXECABORT), its value left
// as it was, and the twin's runs.

// TestExecLooseWeights: the attacks of the loose weights, each against its
// honest twin.
func TestExecLooseWeights(t *testing.T) {
	eachChapter(t, txChapters(), testExecLooseWeights)
}

func testExecLooseWeights(t *testing.T, ch string) {
	p, addr, setup := startWithClient(t, ch)
	half := strings.Repeat("v", 500_000)
	if got := setup.do(time.Minute, "SET", "big", half); got != "+OK" {
		t.Fatalf("SET big: %q", got)
	}
	if got := setup.do(time.Minute, "APPEND", "big", half); got != ":1000000" {
		t.Fatalf("APPEND big: %q", got)
	}
	if got := setup.do(time.Minute, "SET", "small", "v"); got != "+OK" {
		t.Fatalf("SET small: %q", got)
	}

	// run sends reqs in one write, reads count replies and returns the
	// first line of each, the server's CPU time for them and the
	// bystander's worst PING meanwhile.
	run := func(reqs string, count int) (lines []string, cpu, worst time.Duration) {
		t.Helper()
		a := dialRESP(t, addr)
		f := measure(t, p.Pid(), addr, "the requests", func() {
			a.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			go a.conn.Write([]byte(reqs))
			for range count {
				lines = append(lines, skipReply(t, a.r))
			}
		})
		return lines, f.cpu, f.worst
	}
	// tx is a transaction of n copies of cmd: MULTI, the commands, EXEC.
	tx := func(n int, cmd ...string) string {
		return respCmd("MULTI") + strings.Repeat(respCmd(cmd...), n) + respCmd("EXEC")
	}
	report := func(name string, cpu, worst time.Duration, twin string, twinCPU, twinWorst time.Duration) {
		t.Logf("%s: server CPU %v, bystander's worst PING %v; honest twin (%s): %v, %v",
			name, cpu.Round(time.Millisecond), worst.Round(time.Millisecond), twin, twinCPU.Round(time.Millisecond), twinWorst.Round(time.Millisecond))
	}

	// 1. Transactions of 2000 APPENDs of one byte to a 1 MB value (2 GB
	// of copying each when every APPEND copied the value), against the
	// same on a 1-byte value. EXEC cannot tell which APPENDs will find
	// room, so it weighs each as a copy of the value, and refuses them.
	const appends, rounds = 2000, 5
	lines, cpu, worst := run(strings.Repeat(tx(appends, "APPEND", "big", "x"), rounds), rounds*(appends+2))
	twinLines, twinCPU, twinWorst := run(strings.Repeat(tx(appends, "APPEND", "small", "x"), rounds), rounds*(appends+2))
	report(fmt.Sprintf("%d EXECs of %d APPENDs to a 1 MB value", rounds, appends), cpu, worst,
		"to a 1-byte value", twinCPU, twinWorst)
	for i := range rounds {
		exec := (i+1)*(appends+2) - 1
		if !strings.HasPrefix(lines[exec], "-EXECABORT") {
			t.Errorf("EXEC of %d APPENDs to a 1 MB value: %q", appends, lines[exec])
		}
		if twinLines[exec] != fmt.Sprintf("*%d", appends) {
			t.Errorf("EXEC of %d APPENDs to a 1-byte value: %q", appends, twinLines[exec])
		}
	}
	if got := setup.do(time.Minute, "STRLEN", "big"); got != ":1000000" {
		t.Errorf("STRLEN big after the refused EXECs: %q", got)
	}

	// 2. APPENDs to the 1 MB value pipelined, outside any transaction.
	// When each copied the value, they cost some 20 times their twin's
	// CPU, though a turn ended after 4 MiB of copies; now they write into
	// the room the value keeps, as the twin's do into the small value's.
	const piped = 300
	lines, cpu, worst = run(strings.Repeat(respCmd("APPEND", "big", "x"), piped), piped)
	_, twinCPU, twinWorst = run(strings.Repeat(respCmd("APPEND", "small", "x"), piped), piped)
	report(fmt.Sprintf("%d pipelined APPENDs to a 1 MB value", piped), cpu, worst, "to a 1-byte value", twinCPU, twinWorst)
	if want := fmt.Sprintf(":%d", 1_000_000+piped); lines[piped-1] != want {
		t.Errorf("the last APPEND: %q, want %q", lines[piped-1], want)
	}

	// 3. COMMAND and INFO inside EXEC, weighed at their rows and sections:
	// 10,000 of either could pass the bound, so the transaction is
	// refused; as many PINGs run.
	for _, cmd := range [][]string{{"COMMAND"}, {"INFO", "all"}} {
		const n = 10_000
		lines, cpu, worst = run(tx(n, cmd...), n+2)
		twinLines, twinCPU, twinWorst = run(tx(n, "PING"), n+2)
		report(fmt.Sprintf("EXEC of %d %s", n, strings.Join(cmd, " ")), cpu, worst, "as many PINGs", twinCPU, twinWorst)
		if got := lines[n+1]; !strings.HasPrefix(got, "-EXECABORT") {
			t.Errorf("EXEC of %d %s: %q", n, cmd[0], got)
		}
		if got := twinLines[n+1]; got != fmt.Sprintf("*%d", n) {
			t.Errorf("EXEC of %d PINGs: %q", n, got)
		}
	}
}
