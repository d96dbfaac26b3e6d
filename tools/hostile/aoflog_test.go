package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	dir := t.TempDir()
	p, addr := startRESP(t, ch, "-appendonly", "yes", "-dir", dir, "-appendfsync", "everysec")
	c := dialRESP(t, addr)
	logSize := func() int64 {
		fi, err := os.Stat(filepath.Join(dir, "appendonly.aof"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	const fields, rounds = 200, 20
	names := make([]string, fields)
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
	}
	for _, h := range []struct{ key, val string }{{"big", strings.Repeat("v", 10_000)}, {"small", "v"}} {
		args := []string{"HSET", h.key}
		for _, n := range names {
			args = append(args, n, h.val)
		}
		if got := c.do(time.Minute, args...); got != fmt.Sprintf(":%d", fields) {
			t.Fatalf("HSET %s: %q", h.key, got)
		}
	}
	// grow runs rounds HPEXPIREs of every field of key and returns how
	// much the log grew and the figures.
	grow := func(key string) (int64, figures) {
		before := logSize()
		args := append([]string{"HPEXPIRE", key, "600000", "FIELDS", fmt.Sprint(fields)}, names...)
		f := measure(t, p.Pid(), addr, "HPEXPIRE", func() {
			for range rounds {
				c.conn.SetDeadline(time.Now().Add(time.Minute))
				if _, err := c.conn.Write([]byte(respCmd(args...))); err != nil {
					t.Fatal(err)
				}
				if got := skipReply(t, c.r); got != fmt.Sprintf("*%d", fields) {
					t.Fatalf("HPEXPIRE %s: %q", key, got)
				}
			}
		})
		return logSize() - before, f
	}
	attack, af := grow("big")
	twin, tf := grow("small")
	t.Logf("%d HPEXPIREs of %d fields of 10 KB: log +%d bytes, server CPU %v, bystander's worst PING %v; of 1-byte fields: +%d bytes, %v, %v",
		rounds, fields, attack, af.cpu.Round(time.Millisecond), af.worst.Round(time.Millisecond), twin, tf.cpu.Round(time.Millisecond), tf.worst.Round(time.Millisecond))
	if attack > 3*twin {
		t.Errorf("HPEXPIRE on fields of 10 KB grew the log by %d bytes, more than 3 times what it did on fields of 1 byte (%d): the values were logged", attack, twin)
	}
}
