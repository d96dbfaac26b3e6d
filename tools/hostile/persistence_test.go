package hostile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/chapters"
)

// Attacks on persistence (chapters 33, 35 and 36): writes that make the
// append-only file grow by more than the request carried, and big values
// or many writes during a snapshot or a rewrite of the log. The verdicts
// are the files' bytes and the replies; CPU and a bystander's worst PING
// are reported, or compared with an honest twin's.

// The append-only file (ch33): a write is logged as what it did, and a
// rule that logged values the request did not carry would let a request
// of a few bytes append megabytes to the disk. The attack gives a TTL to
// the fields of a hash of large values; the honest twin does the same to
// small values. The verdict is bytes: the log grows by about the same for
// both (within 3x).
// The server's CPU and a bystander's worst PING are reported.

// TestAOFLogAmplification: see above.
func TestAOFLogAmplification(t *testing.T) {
	eachChapter(t, aofChapters, testAOFLogAmplification)
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
		srv.c.expectReply(time.Minute, fmt.Sprintf(":%d", fields), args...)
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

// The append-only file against a client who read its rules (ch33): a
// command logged as its effect writes one record for each expiry time it
// leaves, each record carrying the key. Under a long key, a request
// naming many fields must not log a record a field. The attacks: HSETEX
// with a TTL (a record a field, before), and HPEXPIRE NX on fields that
// keep TTLs of their own, a millisecond apart (a record for each, before:
// only the field the command changed must be logged), and HSETEX KEEPTTL
// on those fields (a record for each, before). Each honest twin
// is HSET, or HPEXPIRE, of the same fields under a key of the same
// length, logged as about its own size. The verdict is the log's bytes:
// the attack grows it at most 3x what the twin does. The server's CPU and
// a bystander's worst PING are reported.

// TestAOFFieldRecords: see above.
func TestAOFFieldRecords(t *testing.T) {
	eachChapter(t, aofChapters, testAOFFieldRecords)
}

func testAOFFieldRecords(t *testing.T, ch string) {
	srv := startAOF(t, ch)
	c := srv.c
	const fields, rounds, keyLen = 1000, 10, 1000
	names := fieldNames(fields)
	key := func(prefix string) string { return prefix + strings.Repeat("k", keyLen-len(prefix)) }
	pairs := func() []string {
		var a []string
		for _, n := range names {
			a = append(a, n, "")
		}
		return a
	}
	// grow sends rounds of the requests reqs, each answered with one reply.
	grow := func(what string, reqs [][]string) growth {
		return srv.logGrowth(what, rounds, reqs, func(got string) bool { return !strings.HasPrefix(got, "-") })
	}
	report := func(what string, attack, twin growth) {
		t.Helper()
		reportGrowth(t, fmt.Sprintf("%s, %d rounds of %d fields under a %d-byte key", what, rounds, fields, keyLen), attack,
			"twin", twin, "a record a field")
	}

	// HSETEX PX against HSET of the same fields.
	hsetex := append([]string{"HSETEX", key("a"), "PX", "600000", "FIELDS", fmt.Sprint(fields)}, pairs()...)
	attack := grow("HSETEX PX", [][]string{hsetex})
	twin := grow("HSET", [][]string{append([]string{"HSET", key("b")}, pairs()...)})
	report("HSETEX PX", attack, twin)

	// HPEXPIRE NX on fields with TTLs of their own but f0, against
	// HPEXPIRE giving all the fields one. Each round first takes f0's
	// TTL.
	at := time.Now().Add(time.Hour).UnixMilli()
	var setup strings.Builder
	for i, n := range names {
		setup.WriteString(respCmd("HPEXPIREAT", key("a"), fmt.Sprint(at+int64(i)), "FIELDS", "1", n))
	}
	c.conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := c.conn.Write([]byte(setup.String())); err != nil {
		t.Fatal(err)
	}
	for range names {
		if got := skipReply(t, c.r); got != "*1" {
			t.Fatalf("HPEXPIREAT: %q", got)
		}
	}
	fieldsArgs := append([]string{"FIELDS", fmt.Sprint(fields)}, names...)
	attack = grow("HPEXPIRE NX", [][]string{
		{"HPERSIST", key("a"), "FIELDS", "1", "f0"},
		append([]string{"HPEXPIRE", key("a"), "600000", "NX"}, fieldsArgs...),
	})
	twin = grow("HPEXPIRE", [][]string{
		{"HPERSIST", key("b"), "FIELDS", "1", "f0"},
		append([]string{"HPEXPIRE", key("b"), "600000"}, fieldsArgs...),
	})
	report("HPEXPIRE NX", attack, twin)

	// HSETEX KEEPTTL on those fields, which keep their TTLs, against
	// HSETEX KEEPTTL of fields without.
	keep := func(k string) []string {
		return append([]string{"HSETEX", k, "KEEPTTL", "FIELDS", fmt.Sprint(fields)}, pairs()...)
	}
	attack = grow("HSETEX KEEPTTL", [][]string{keep(key("a"))})
	twin = grow("HSETEX KEEPTTL", [][]string{keep(key("c"))})
	report("HSETEX KEEPTTL", attack, twin)
}

// One big value in a snapshot (ch35 on). The walk writes the key space a
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
	eachChapter(t, snapshotChapters, testSnapshotBigValue)
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
		c.expectReply(time.Minute, "*1", "HEXPIRE", "big", "3600", "FIELDS", "1", "f:0")
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
	eachChapter(t, snapshotChapters, testSnapshotCopyBigValue)
}

func testSnapshotCopyBigValue(t *testing.T, ch string) {
	dir := t.TempDir()
	p, addr, c := startWithClient(t, ch, "-dir", dir)
	fillBigZSet(c)
	w := dialRESP(t, addr)
	write := func(what string, save bool) figures {
		return measure(t, p.Pid(), addr, what, func() {
			if save {
				c.expectReply(time.Minute, "+Background saving started", "BGSAVE")
			}
			w.expectReply(time.Minute, ":1", "ZADD", "big", "-1", what)
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
	c.expectReply(time.Minute, ":"+strconv.Itoa(kBigValueMembers+2), "ZCARD", "big")
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
	eachChapter(t, rewriteChapters, testRewriteTail)
}

func testRewriteTail(t *testing.T, ch string) {
	dir := t.TempDir()
	p, addr, c := startWithClient(t, ch, "-dir", dir, "-appendonly", "yes", "-appendfsync", "no", "-auto-aof-rewrite-percentage", "0")
	fillKeys(c, "v")
	w := dialRESP(t, addr)
	val := strings.Repeat("x", 256<<10)
	writes := 0
	attack := measure(t, p.Pid(), addr, "writes during BGREWRITEAOF", func() {
		c.expectReply(time.Minute, "+Background append only file rewriting started", "BGREWRITEAOF")
		untilDone(t, c, p.Pid(), "aof_rewrite_in_progress", func(int) bool {
			for range 16 {
				w.expectReply(time.Minute, "+OK", "SET", "big:"+strconv.Itoa(writes%64), val)
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
			w.expectReply(time.Minute, "+OK", "SET", "big:"+strconv.Itoa(i%64), val)
		}
	})
	t.Logf("%d writes of 256 KiB (%d MB) during a rewrite of %d keys: server CPU %v, bystander's worst PING %v; with no rewrite: %v, %v",
		writes, writes>>2, kSnapshotKeys, attack.cpu.Round(time.Millisecond), attack.worst.Round(time.Millisecond), twin.cpu.Round(time.Millisecond), twin.worst.Round(time.Millisecond))
	c.expectReply(time.Minute, ":"+strconv.Itoa(len(val)), "STRLEN", "big:0")
}

// TestBgsaveLoop: a client that asks for BGSAVE again and again keeps a
// snapshot running all the time; each is refused while one runs, and
// each walks a slice per turn, so that a bystander waits no longer than
// during one save. The attack: BGSAVE sent in a loop until five saves
// have run; the twin: one BGSAVE. The saves counted (rdb_saves) and the
// refusals are asserted; CPU per save and the worst PING are reported.
func TestBgsaveLoop(t *testing.T) {
	eachChapter(t, snapshotChapters, testBgsaveLoop)
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
		c.expectReply(time.Minute, "+Background saving started", "BGSAVE")
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

// Snapshots without fork (ch35 on). The loop walks the key space a slice per
// turn, and a write to a key the walk has not reached copies that key into
// the snapshot first. The attack writes key after key while a BGSAVE runs,
// so that as many keys as it can reach are copied on write rather than by
// the walk; its honest twin reads the same keys during the same save. A
// copy is work the walk would have done anyway, so the verdict is that the
// attack's server CPU stays within 3x its twin's, and that the file holds
// every key once (redis-check-rdb counts them). The figures the issue asks
// for (BGSAVE and BGREWRITEAOF of 1M keys: duration, memory added at the
// peak, the bystander's worst PING) are reported, not asserted.

// kSnapshotKeys is the key space's size: the million.
const kSnapshotKeys = 1_000_000

// fillKeys makes the key space kSnapshotKeys keys, key:0 on, holding val.
func fillKeys(c *respConn, val string) {
	c.fillBatches(kSnapshotKeys, "+OK", []string{"MSET"}, func(j int) []string {
		return []string{"key:" + strconv.Itoa(j), val}
	})
}

// TestSnapshotCopyOnWrite: see above.
func TestSnapshotCopyOnWrite(t *testing.T) {
	eachChapter(t, snapshotChapters, testSnapshotCopyOnWrite)
}

// persistenceField reads one field of INFO persistence.
func persistenceField(t *testing.T, c *respConn, name string) string {
	t.Helper()
	first := c.do(time.Minute, "INFO", "persistence")
	n, _ := strconv.Atoi(strings.TrimPrefix(first, "$"))
	buf := make([]byte, n+2)
	if _, err := ioReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(buf), "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO persistence has no %s", name)
	return ""
}

// ioReadFull reads len(buf) bytes of c's reply.
func ioReadFull(c *respConn, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := c.r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// untilDone runs during (if any) until INFO persistence's field is 0, and
// returns the peak RSS the server reached meanwhile.
func untilDone(t *testing.T, c *respConn, pid int, field string, during func(i int) bool) int64 {
	t.Helper()
	peak := procStatus(t, pid, "VmRSS")
	deadline := time.Now().Add(5 * time.Minute)
	for i := 0; persistenceField(t, c, field) != "0"; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("%s still 1 after 5 minutes", field)
		}
		peak = max(peak, procStatus(t, pid, "VmRSS"))
		if during == nil || !during(i) {
			time.Sleep(time.Millisecond)
		}
	}
	return peak
}

func testSnapshotCopyOnWrite(t *testing.T, ch string) {
	dir := t.TempDir()
	args := []string{"-dir", dir, "-appendonly", "yes", "-appendfsync", "no"}
	jobs := []struct{ cmd, field string }{{"BGSAVE", "rdb_bgsave_in_progress"}}
	if chapters.ByDir(ch).Has(chapters.AOFRewrite) {
		args = append(args, "-auto-aof-rewrite-percentage", "0")
		jobs = append(jobs, struct{ cmd, field string }{"BGREWRITEAOF", "aof_rewrite_in_progress"})
	}
	p, addr, c := startWithClient(t, ch, args...)
	val := strings.Repeat("v", 32)
	fillKeys(c, val)
	rss := procStatus(t, p.Pid(), "VmRSS")

	// The report: BGSAVE and (from ch36 on) BGREWRITEAOF with no other
	// client.
	for _, job := range jobs {
		var peak int64
		f := measure(t, p.Pid(), addr, job.cmd, func() {
			c.do(time.Minute, job.cmd)
			peak = untilDone(t, c, p.Pid(), job.field, nil)
		})
		t.Logf("%s of %d keys: %v, server CPU %v, RSS %d MB at the peak (+%d MB), bystander's worst PING %v",
			job.cmd, kSnapshotKeys, f.took.Round(time.Millisecond), f.cpu.Round(time.Millisecond), peak>>20, (peak-rss)>>20, f.worst.Round(time.Millisecond))
	}

	// The attack and its twin: a BGSAVE each, with writes or reads of
	// the keys, one request of 100 keys at a time, from the first on.
	run := func(what string, cmd string) (figures, int) {
		w := dialRESP(t, addr)
		sent := 0
		f := measure(t, p.Pid(), addr, what, func() {
			c.expectReply(time.Minute, "+Background saving started", "BGSAVE")
			untilDone(t, c, p.Pid(), "rdb_bgsave_in_progress", func(i int) bool {
				if sent >= kSnapshotKeys {
					return false
				}
				args := []string{cmd}
				for j := sent; j < sent+100; j++ {
					args = append(args, "key:"+strconv.Itoa(j))
					if cmd == "MSET" {
						args = append(args, "w")
					}
				}
				sent += 100
				w.do(time.Minute, args...)
				if cmd == "MGET" {
					for range 100 {
						w.line()
						w.line()
					}
				}
				return true
			})
		})
		return f, sent
	}
	af, asent := run("writes during BGSAVE", "MSET")
	if out, err := exec.Command("redis-check-rdb", filepath.Join(dir, "dump.rdb")).CombinedOutput(); err == nil {
		if !strings.Contains(string(out), fmt.Sprintf("[info] %d keys read", kSnapshotKeys)) {
			t.Errorf("redis-check-rdb on the save with writes meanwhile:\n%s", out)
		}
	}
	tf, tsent := run("reads during BGSAVE", "MGET")
	t.Logf("BGSAVE with %d keys written meanwhile: server CPU %v, bystander's worst PING %v; with %d read: %v, %v",
		asent, af.cpu.Round(time.Millisecond), af.worst.Round(time.Millisecond), tsent, tf.cpu.Round(time.Millisecond), tf.worst.Round(time.Millisecond))
	if af.cpu > 3*tf.cpu+100*time.Millisecond {
		t.Errorf("a BGSAVE with writes meanwhile took %v of CPU, more than 3 times one with reads (%v): copying on write costs more than the walk it replaces", af.cpu, tf.cpu)
	}
}
