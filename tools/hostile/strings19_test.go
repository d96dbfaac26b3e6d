package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The string commands of chapter 19 whose work is not in their request's
// size: LCS (the product of two strings' lengths), BITOP (its sources'
// bytes, a long one named many times), SETRANGE and SETBIT (a small
// request that makes or writes into a long value). Each attack runs
// beside an honest twin of the same size on one server; the log reports
// the server's CPU for each and a bystander's worst PING. The verdicts are
// replies: what is past a bound is refused with its error and changes
// nothing, the rest is answered as Redis answers it.

// TestStringAttacks19: the attacks, each against its twin.
func TestStringAttacks19(t *testing.T) {
	eachChapter(t, []string{"ch19_commands"}, testStringAttacks19)
}

func testStringAttacks19(t *testing.T, ch string) {
	p, addr, setup := startWithClient(t, ch)
	set := func(k, v string) {
		t.Helper()
		if got := setup.do(time.Minute, "SET", k, v); got != "+OK" {
			t.Fatalf("SET %s: %.60q", k, got)
		}
	}
	// run sends reqs in one write and returns the first line of each of
	// count replies, with the work's figures.
	run := func(what, reqs string, count int) ([]string, figures) {
		t.Helper()
		a := dialRESP(t, addr)
		var lines []string
		f := measure(t, p.Pid(), addr, what, func() {
			a.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			go a.conn.Write([]byte(reqs))
			for range count {
				lines = append(lines, skipReply(t, a.r))
			}
		})
		t.Logf("%s: server CPU %v, bystander's worst PING %v", what, f.cpu.Round(time.Millisecond), f.worst.Round(time.Millisecond))
		return lines, f
	}
	expect := func(what string, lines []string, want string) {
		t.Helper()
		for i, l := range lines {
			if l != want {
				t.Fatalf("%s: reply %d is %.80q, want %.80q", what, i, l, want)
			}
		}
	}

	// LCS: two strings of 4,095 bytes fill a table just within the bound
	// (2^24 cells); two of 1 MiB, which Redis would fill for minutes with
	// 4 GiB of table, are refused. The twin: the same requests on
	// strings of 64 bytes.
	rna := func(n, seed int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ACGT"[(i*i+seed*i+seed)%4]
		}
		return string(b)
	}
	set("lcs:a", rna(4095, 1))
	set("lcs:b", rna(4095, 2))
	set("lcs:A", rna(1<<20, 1))
	set("lcs:B", rna(1<<20, 2))
	set("lcs:x", rna(64, 1))
	set("lcs:y", rna(64, 2))
	const lcsN = 8
	lines, _ := run(fmt.Sprintf("%d LCS LEN of two strings of 4095 bytes", lcsN), strings.Repeat(respCmd("LCS", "lcs:a", "lcs:b", "LEN"), lcsN), lcsN)
	if !strings.HasPrefix(lines[0], ":") || lines[0] == ":0" {
		t.Fatalf("LCS at the bound: %q, want a length", lines[0])
	}
	expect("LCS at the bound", lines, lines[0])
	lines, _ = run(fmt.Sprintf("%d LCS LEN of two strings of 1 MiB", lcsN), strings.Repeat(respCmd("LCS", "lcs:A", "lcs:B", "LEN"), lcsN), lcsN)
	expect("LCS past the bound", lines, "-ERR LCS is refused when the lengths multiply past 16777216: the table would stall the server")
	lines, _ = run(fmt.Sprintf("the twin: %d LCS LEN of two strings of 64 bytes", lcsN), strings.Repeat(respCmd("LCS", "lcs:x", "lcs:y", "LEN"), lcsN), lcsN)
	if !strings.HasPrefix(lines[0], ":") {
		t.Fatalf("LCS of short strings: %q", lines[0])
	}

	// BITOP naming one value of 256 KiB 1,000 times reads 256 MB; its
	// twin, MGET naming it 1,000 times, copies as much into its reply. A
	// value of 1 MiB named 1,025 times is past the bound (1 GiB of
	// sources) and is refused, its destination untouched.
	set("bits:v", strings.Repeat("\x5a", 256<<10))
	set("bits:m", strings.Repeat("\x5a", 1<<20))
	set("bits:d", "before")
	bitop := []string{"BITOP", "XOR", "bits:o"}
	mget := []string{"MGET"}
	for range 1000 {
		bitop = append(bitop, "bits:v")
		mget = append(mget, "bits:v")
	}
	lines, attack := run("BITOP XOR of a value of 256 KiB named 1000 times", respCmd(bitop...), 1)
	expect("BITOP", lines, fmt.Sprint(":", 256<<10))
	lines, twin := run("the twin: MGET of it named 1000 times", respCmd(mget...), 1)
	expect("MGET", lines, "*1000")
	t.Logf("BITOP's CPU over its twin's: %.1f", float64(attack.cpu)/float64(max(twin.cpu, time.Millisecond)))
	over := []string{"BITOP", "OR", "bits:d"}
	for range 1025 {
		over = append(over, "bits:m")
	}
	lines, _ = run("BITOP OR of a value of 1 MiB named 1025 times", respCmd(over...), 1)
	expect("BITOP past the bound", lines, "-ERR BITOP is refused over more than 1073741824 bytes of sources: reading them would stall the server")
	if got := setup.do(time.Minute, "GET", "bits:d"); got != "$6" || setup.line() != "before" {
		t.Fatalf("a refused BITOP changed its destination")
	}

	// SETRANGE at 64 MiB makes a value of 64 MiB from a request of a few
	// bytes; its twin is the SET of a value that long. SETBIT past the
	// longest string (512 MiB) is refused and creates nothing.
	lines, attack = run("SETRANGE at 64 MiB", respCmd("SETRANGE", "grow:a", fmt.Sprint(64<<20-1), "x"), 1)
	expect("SETRANGE", lines, fmt.Sprint(":", 64<<20))
	lines, twin = run("the twin: SET of 64 MiB", respCmd("SET", "grow:b", strings.Repeat("x", 64<<20)), 1)
	expect("SET", lines, "+OK")
	t.Logf("SETRANGE's CPU over its twin's: %.1f", float64(attack.cpu)/float64(max(twin.cpu, time.Millisecond)))
	lines, _ = run("SETBIT past 512 MiB", respCmd("SETBIT", "grow:c", "4294967296", "1"), 1)
	expect("SETBIT past the bound", lines, "-ERR bit offset is not an integer or out of range")
	if got := setup.do(time.Minute, "EXISTS", "grow:c"); got != ":0" {
		t.Fatalf("a refused SETBIT created its key: EXISTS %q", got)
	}

	// 20,000 SETBITs into that value of 64 MiB write a byte each, in
	// place; their twin is as many GETBITs.
	const bitsN = 20_000
	var setbits, getbits strings.Builder
	for i := range bitsN {
		off := fmt.Sprint((i * 7919) % (64 << 23))
		setbits.WriteString(respCmd("SETBIT", "grow:a", off, "1"))
		getbits.WriteString(respCmd("GETBIT", "grow:a", off))
	}
	lines, attack = run(fmt.Sprintf("%d SETBITs into a value of 64 MiB", bitsN), setbits.String(), bitsN)
	if len(lines) != bitsN {
		t.Fatalf("%d SETBITs: %d replies", bitsN, len(lines))
	}
	lines, twin = run(fmt.Sprintf("the twin: %d GETBITs", bitsN), getbits.String(), bitsN)
	expect("GETBIT after SETBIT", lines, ":1")
	t.Logf("SETBIT's CPU over its twin's: %.1f", float64(attack.cpu)/float64(max(twin.cpu, time.Millisecond)))
}
