package hostile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// One big value in a snapshot (ch22). The walk writes the key space a
// slice per turn; a value used to be written whole in the step that
// reached it, so that a sorted set of a million members stalled the loop
// for all of its encoding at once (the bystander's worst PING 1.27 s,
// against 4 ms for as many small keys). Now a big sorted set is written
// a stretch of members per turn. The attack is one such sorted set; its
// honest twin is as many small keys. Both files are checked by size and
// the save's status; the CPU of the two saves is compared (within 3x), and
// the bystander's worst PING is reported for each, not asserted.
//
// TestSnapshotCopyBigValue: a write to a big value the walk has not
// reached copies it whole into the snapshot, in the writer's turn (Redis's
// fork copies only the pages the write touches). The attack: BGSAVE, then
// at once one ZADD to a sorted set of a million members; its twin: the
// same ZADD with no save running. The copy is charged to the writer's
// turn and happens once per key per snapshot; figures are reported.

// kBigValueMembers is the sorted set's size, and the twin's key count.
const kBigValueMembers = 1_000_000

// fillBigZSet makes big a sorted set of kBigValueMembers members.
func fillBigZSet(c *respConn) {
	c.fillBatches(kBigValueMembers, ":1000", []string{"ZADD", "big"}, func(j int) []string {
		return []string{strconv.Itoa(j), "m:" + strconv.Itoa(j)}
	})
}

// TestSnapshotBigValue: see above.
func TestSnapshotBigValue(t *testing.T) {
	eachChapter(t, snapshotChapters(), testSnapshotBigValue)
}

func testSnapshotBigValue(t *testing.T, ch string) {
	save := func(what string, fill func(c *respConn)) (figures, int64, string) {
		dir := t.TempDir()
		p, addr, c := startWithClient(t, ch, "-dir", dir)
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
	af, asize, astatus := save("one sorted set of a million members", fillBigZSet)
	tf, tsize, tstatus := save("a million small keys", func(c *respConn) {
		c.fillBatches(kBigValueMembers, "+OK", []string{"MSET"}, func(j int) []string {
			return []string{"k:" + strconv.Itoa(j), strconv.Itoa(j)}
		})
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
	hf, hsize, hstatus := save("one hash of a million fields", func(c *respConn) {
		c.fillBatches(kBigValueMembers, ":1000", []string{"HSET", "big"}, func(j int) []string {
			return []string{"f:" + strconv.Itoa(j), strconv.Itoa(j)}
		})
		// One field with a TTL: such hashes were once written whole.
		if got := c.do(time.Minute, "HEXPIRE", "big", "3600", "FIELDS", "1", "f:0"); got != "*1" {
			t.Fatalf("HEXPIRE: %q", got)
		}
		c.line()
	})
	t.Logf("BGSAVE of one hash of %d fields, one with a TTL: %d bytes, server CPU %v, bystander's worst PING %v",
		kBigValueMembers, hsize, hf.cpu.Round(time.Millisecond), hf.worst.Round(time.Millisecond))
	if hstatus != "ok" || hsize < int64(kBigValueMembers*len("f:00")) {
		t.Fatalf("the hash's save: %s, %d bytes", hstatus, hsize)
	}
	if hf.cpu > 3*tf.cpu+100*time.Millisecond {
		t.Errorf("the hash's save took %v of CPU, more than 3 times the small keys' (%v)", hf.cpu, tf.cpu)
	}
	if af.cpu > 3*tf.cpu+100*time.Millisecond {
		t.Errorf("the sorted set's save took %v of CPU, more than 3 times the small keys' (%v)", af.cpu, tf.cpu)
	}
}

// TestSnapshotCopyBigValue: see above.
func TestSnapshotCopyBigValue(t *testing.T) {
	eachChapter(t, snapshotChapters(), testSnapshotCopyBigValue)
}

func testSnapshotCopyBigValue(t *testing.T, ch string) {
	dir := t.TempDir()
	p, addr, c := startWithClient(t, ch, "-dir", dir)
	fillBigZSet(c)
	w := dialRESP(t, addr)
	write := func(what string, save bool) figures {
		return measure(t, p.Pid(), addr, what, func() {
			if save {
				if got := c.do(time.Minute, "BGSAVE"); got != "+Background saving started" {
					t.Fatalf("BGSAVE: %q", got)
				}
			}
			if got := w.do(time.Minute, "ZADD", "big", "-1", what); got != ":1" {
				t.Fatalf("ZADD: %q", got)
			}
			if save {
				untilDone(t, c, p.Pid(), "rdb_bgsave_in_progress", nil)
			}
		})
	}
	tf := write("a write with no save", false)
	af := write("a write as a save begins", true)
	if got := persistenceField(t, c, "rdb_last_bgsave_status"); got != "ok" {
		t.Fatalf("rdb_last_bgsave_status: %s", got)
	}
	if got := c.do(time.Minute, "ZCARD", "big"); got != ":"+strconv.Itoa(kBigValueMembers+2) {
		t.Fatalf("ZCARD: %s", got)
	}
	t.Logf("one ZADD to a sorted set of %d members as a BGSAVE begins (the save included): server CPU %v, bystander's worst PING %v; with no save: %v, %v",
		kBigValueMembers, af.cpu.Round(time.Millisecond), af.worst.Round(time.Millisecond), tf.cpu.Round(time.Millisecond), tf.worst.Round(time.Millisecond))
}

// TestRewriteTail: the writes made while the log is rewritten are copied
// from the old file to the new one when the snapshot is done. The attack
// writes values of 256 KiB as fast as the server takes them while a
// rewrite of a million keys runs; its honest twin makes as many of the
// same writes with no rewrite running. Both report the server's CPU and
// the bystander's worst PING; the bytes logged are asserted.
func TestRewriteTail(t *testing.T) {
	eachChapter(t, snapshotChapters(), testRewriteTail)
}

func testRewriteTail(t *testing.T, ch string) {
	dir := t.TempDir()
	p, addr, c := startWithClient(t, ch, "-dir", dir, "-appendonly", "yes", "-appendfsync", "no", "-auto-aof-rewrite-percentage", "0")
	fillKeys(c, "v")
	w := dialRESP(t, addr)
	val := strings.Repeat("x", 256<<10)
	writes := 0
	attack := measure(t, p.Pid(), addr, "writes during BGREWRITEAOF", func() {
		if got := c.do(time.Minute, "BGREWRITEAOF"); got != "+Background append only file rewriting started" {
			t.Fatalf("BGREWRITEAOF: %q", got)
		}
		untilDone(t, c, p.Pid(), "aof_rewrite_in_progress", func(int) bool {
			for range 16 {
				if got := w.do(time.Minute, "SET", "big:"+strconv.Itoa(writes%64), val); got != "+OK" {
					t.Fatalf("SET: %q", got)
				}
				writes++
			}
			return true
		})
	})
	if got := persistenceField(t, c, "aof_last_bgrewrite_status"); got != "ok" {
		t.Fatalf("aof_last_bgrewrite_status: %s", got)
	}
	twin := measure(t, p.Pid(), addr, "the same writes with no rewrite", func() {
		for i := range writes {
			if got := w.do(time.Minute, "SET", "big:"+strconv.Itoa(i%64), val); got != "+OK" {
				t.Fatalf("SET: %q", got)
			}
		}
	})
	t.Logf("%d writes of 256 KiB (%d MB) during a rewrite of %d keys: server CPU %v, bystander's worst PING %v; with no rewrite: %v, %v",
		writes, writes>>2, kSnapshotKeys, attack.cpu.Round(time.Millisecond), attack.worst.Round(time.Millisecond), twin.cpu.Round(time.Millisecond), twin.worst.Round(time.Millisecond))
	if got := c.do(time.Minute, "STRLEN", "big:0"); got != ":"+strconv.Itoa(len(val)) {
		t.Fatalf("STRLEN: %s", got)
	}
}

// TestBgsaveLoop: a client that asks for BGSAVE again and again keeps a
// snapshot running all the time; each is refused while one runs, and
// each walks a slice per turn, so that a bystander waits no longer than
// during one save. The attack: BGSAVE sent in a loop until five saves
// have run; the twin: one BGSAVE. The saves counted (rdb_saves) and the
// refusals are asserted; CPU per save and the worst PING are reported.
func TestBgsaveLoop(t *testing.T) {
	eachChapter(t, snapshotChapters(), testBgsaveLoop)
}

func testBgsaveLoop(t *testing.T, ch string) {
	dir := t.TempDir()
	p, addr, c := startWithClient(t, ch, "-dir", dir)
	fillKeys(c, "v")
	saves := func() int {
		n, _ := strconv.Atoi(persistenceField(t, c, "rdb_saves"))
		return n
	}
	base := saves()
	twin := measure(t, p.Pid(), addr, "one BGSAVE", func() {
		if got := c.do(time.Minute, "BGSAVE"); got != "+Background saving started" {
			t.Fatalf("BGSAVE: %q", got)
		}
		untilDone(t, c, p.Pid(), "rdb_bgsave_in_progress", nil)
	})
	refused := 0
	deadline := time.Now().Add(5 * time.Minute)
	attack := measure(t, p.Pid(), addr, "BGSAVE in a loop", func() {
		for saves() < base+6 {
			if time.Now().After(deadline) {
				t.Fatal("five saves did not run in 5 minutes")
			}
			switch got := c.do(time.Minute, "BGSAVE"); got {
			case "+Background saving started":
			case "-ERR Background save already in progress":
				refused++
			default:
				t.Fatalf("BGSAVE: %q", got)
			}
		}
		untilDone(t, c, p.Pid(), "rdb_bgsave_in_progress", nil)
	})
	if refused == 0 {
		t.Fatal("no BGSAVE was refused while one ran")
	}
	t.Logf("one BGSAVE of %d keys: server CPU %v, bystander's worst PING %v; BGSAVE in a loop (5 saves, %d refused meanwhile): CPU %v (%v a save), worst PING %v",
		kSnapshotKeys, twin.cpu.Round(time.Millisecond), twin.worst.Round(time.Millisecond), refused,
		attack.cpu.Round(time.Millisecond), (attack.cpu / 5).Round(time.Millisecond), attack.worst.Round(time.Millisecond))
	if attack.cpu/5 > 3*twin.cpu+100*time.Millisecond {
		t.Errorf("a save in the loop took %v of CPU, more than 3 times a save alone (%v)", attack.cpu/5, twin.cpu)
	}
}
