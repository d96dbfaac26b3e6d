package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
)

// The append-only file (ch21): a write is logged as what it did, and a
// rule that logged values the request did not carry would let a request
// of a few bytes append megabytes to the disk. The attack gives a TTL to
// the fields of a hash of large values; the honest twin does the same to
// small values. The verdict is bytes: the log grows by about the same for
// both (within 3x).
// The server's CPU and a bystander's worst PING are reported.

// aofChapters are the chapters with an append-only file.
func aofChapters() []string { return []string{"ch21_aof", "ch22_snapshot"} }

// TestAOFLogAmplification: see above.
func TestAOFLogAmplification(t *testing.T) {
	eachChapter(t, aofChapters(), testAOFLogAmplification)
}

func testAOFLogAmplification(t *testing.T, ch string) {
	srv := startAOF(t, ch)
	const fields, rounds = 200, 20
	names := fieldNames(fields)
	for _, h := range []struct{ key, val string }{{"big", strings.Repeat("v", 10_000)}, {"small", "v"}} {
		args := []string{"HSET", h.key}
		for _, n := range names {
			args = append(args, n, h.val)
		}
		if got := srv.c.do(time.Minute, args...); got != fmt.Sprintf(":%d", fields) {
			t.Fatalf("HSET %s: %q", h.key, got)
		}
	}
	// grow runs rounds HPEXPIREs of every field of key.
	grow := func(key string) growth {
		args := append([]string{"HPEXPIRE", key, "600000", "FIELDS", fmt.Sprint(fields)}, names...)
		return srv.logGrowth("HPEXPIRE "+key, rounds, [][]string{args}, func(got string) bool { return got == fmt.Sprintf("*%d", fields) })
	}
	attack := grow("big")
	twin := grow("small")
	reportGrowth(t, fmt.Sprintf("%d HPEXPIREs of %d fields of 10 KB", rounds, fields), attack, "of 1-byte fields", twin, "the values were logged")
}

// aofTarget is an attack's server that logs every write to an append-only
// file, in a directory of the test's, with the attack's client.
type aofTarget struct {
	t    *testing.T
	p    *serverproc.Process
	addr string
	c    *respConn
	dir  string
}

// startAOF starts chapter ch's server with an append-only file written
// under everysec: the log grows by what each write appends, not by what
// syncing it costs.
func startAOF(t *testing.T, ch string) *aofTarget {
	t.Helper()
	dir := t.TempDir()
	p, addr, c := startWithClient(t, ch, "-appendonly", "yes", "-dir", dir, "-appendfsync", "everysec")
	return &aofTarget{t: t, p: p, addr: addr, c: c, dir: dir}
}

// logSize returns the append-only file's size.
func (a *aofTarget) logSize() int64 {
	a.t.Helper()
	fi, err := os.Stat(filepath.Join(a.dir, "appendonly.aof"))
	if err != nil {
		a.t.Fatal(err)
	}
	return fi.Size()
}

// growth is how much a piece of work grew the log, and its figures.
type growth struct {
	bytes int64
	f     figures
}

// logGrowth sends the requests reqs in one write, rounds times, fails the
// test on a reply that ok refuses, and returns how much the log grew.
func (a *aofTarget) logGrowth(what string, rounds int, reqs [][]string, ok func(reply string) bool) growth {
	a.t.Helper()
	var batch strings.Builder
	for _, r := range reqs {
		batch.WriteString(respCmd(r...))
	}
	before := a.logSize()
	f := measure(a.t, a.p.Pid(), a.addr, what, func() {
		for range rounds {
			a.c.conn.SetDeadline(time.Now().Add(time.Minute))
			if _, err := a.c.conn.Write([]byte(batch.String())); err != nil {
				a.t.Fatal(err)
			}
			for range reqs {
				if got := skipReply(a.t, a.c.r); !ok(got) {
					a.t.Fatalf("%s: %q", what, got)
				}
			}
		}
	})
	// The log is written before the replies are sent: it is all there.
	return growth{a.logSize() - before, f}
}

// reportGrowth logs what an attack and its honest twin added to the log,
// with their figures, and fails the test if the attack added more than 3
// times what the twin did, which is why.
func reportGrowth(t *testing.T, what string, attack growth, twin string, tw growth, why string) {
	t.Helper()
	t.Logf("%s: log +%d bytes, server CPU %v, bystander's worst PING %v; %s: +%d bytes, %v, %v",
		what, attack.bytes, attack.f.cpu.Round(time.Millisecond), attack.f.worst.Round(time.Millisecond),
		twin, tw.bytes, tw.f.cpu.Round(time.Millisecond), tw.f.worst.Round(time.Millisecond))
	if attack.bytes > 3*tw.bytes {
		t.Errorf("%s grew the log by %d bytes, more than 3 times the twin's %d (%s): %s", what, attack.bytes, tw.bytes, twin, why)
	}
}

// fieldNames returns n field names: f0, f1, ...
func fieldNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
	}
	return names
}
