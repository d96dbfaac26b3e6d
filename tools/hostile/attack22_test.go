package hostile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// One big value in a snapshot (ch22). The walk writes the key space a
// slice per turn, but a value is written whole in the step that reaches
// it: a sorted set of a million members stalls the loop for all of its
// encoding at once. The attack is one such sorted set; its honest twin is
// as many small keys, which the walk spreads over many turns. Both files
// are checked by size and by the keys the save reports; the CPU of the
// two saves is compared (within 3x), and the bystander's worst PING is
// reported for each, not asserted.

// kBigValueMembers is the sorted set's size, and the twin's key count.
const kBigValueMembers = 1_000_000

// TestSnapshotBigValue: see above.
func TestSnapshotBigValue(t *testing.T) {
	eachChapter(t, snapshotChapters(), testSnapshotBigValue)
}

func testSnapshotBigValue(t *testing.T, ch string) {
	save := func(what string, fill func(c *respConn)) (figures, int64, string) {
		dir := t.TempDir()
		p, addr := startRESP(t, ch, "-dir", dir)
		c := dialRESP(t, addr)
		fill(c)
		f := measure(t, p.Pid(), addr, what, func() {
			if got := c.do(time.Minute, "BGSAVE"); got != "+Background saving started" {
				t.Fatalf("%s: BGSAVE: %q", what, got)
			}
			untilDone(t, c, p.Pid(), "rdb_bgsave_in_progress", nil)
		})
		status := persistenceField(t, c, "rdb_last_bgsave_status")
		st, err := os.Stat(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return f, st.Size(), status
	}
	af, asize, astatus := save("one sorted set of a million members", func(c *respConn) {
		for i := 0; i < kBigValueMembers; i += 1000 {
			args := []string{"ZADD", "big"}
			for j := i; j < i+1000; j++ {
				args = append(args, strconv.Itoa(j), "m:"+strconv.Itoa(j))
			}
			if got := c.do(time.Minute, args...); got != ":1000" {
				t.Fatalf("ZADD: %q", got)
			}
		}
	})
	tf, tsize, tstatus := save("a million small keys", func(c *respConn) {
		for i := 0; i < kBigValueMembers; i += 1000 {
			args := []string{"MSET"}
			for j := i; j < i+1000; j++ {
				args = append(args, "k:"+strconv.Itoa(j), strconv.Itoa(j))
			}
			if got := c.do(time.Minute, args...); got != "+OK" {
				t.Fatalf("MSET: %q", got)
			}
		}
	})
	t.Logf("BGSAVE of one sorted set of %d members: %d bytes, server CPU %v, bystander's worst PING %v",
		kBigValueMembers, asize, af.cpu.Round(time.Millisecond), af.worst.Round(time.Millisecond))
	t.Logf("BGSAVE of %d small keys: %d bytes, server CPU %v, bystander's worst PING %v",
		kBigValueMembers, tsize, tf.cpu.Round(time.Millisecond), tf.worst.Round(time.Millisecond))
	if astatus != "ok" || tstatus != "ok" {
		t.Fatalf("rdb_last_bgsave_status: %s with the sorted set, %s with the small keys", astatus, tstatus)
	}
	// Each member is at least its text and a double: the file holds them all.
	if asize < int64(kBigValueMembers*(len("m:0")+8)) || tsize < int64(kBigValueMembers*len("k:0")) {
		t.Fatalf("files of %d and %d bytes are too small for %d members or keys", asize, tsize, kBigValueMembers)
	}
	if af.cpu > 3*tf.cpu+100*time.Millisecond {
		t.Errorf("the sorted set's save took %v of CPU, more than 3 times the small keys' (%v)", af.cpu, tf.cpu)
	}
}
