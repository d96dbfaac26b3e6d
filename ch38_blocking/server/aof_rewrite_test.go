package server

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rewriteOn makes the server keep a log in a file of the test's own
// (logOn) that BGREWRITEAOF may rewrite, and returns its path.
func rewriteOn(t *testing.T) string {
	t.Helper()
	path := logOn(t)
	dir, name, on, rw, rdb := aofDir, aofFilename, aofOn, aofRW, rdbState
	aofDir, aofFilename, aofOn = filepath.Dir(path), filepath.Base(path), true
	t.Cleanup(func() {
		if gSnap != nil {
			os.Remove(gSnap.tmp)
			gSnap = nil
		}
		aofDir, aofFilename, aofOn, aofRW, rdbState = dir, name, on, rw, rdb
	})
	return path
}

// fileSize returns the size of the file at path, -1 if there is none.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return st.Size()
}

// kStretch is the least a turn of the catch-up copies: a step of the
// walk's work, in bytes.
const kStretch = int64(kSnapStepWork) * kWorkBytes

// rewriteWithTail starts a rewrite of a log of a few hundred keys, writes
// stretches times kStretch to the log over the instant, and walks the
// snapshot to its end, its file synced: what is left is the catch-up. It
// returns the client, the log's path and its size at the instant.
func rewriteWithTail(t *testing.T, stretches int) (*txClient, string, int64) {
	t.Helper()
	resetTx(t)
	path := rewriteOn(t)
	tc := newTxClient(t)
	fillKeys(tc, 300)
	aofBeforeSleep()
	if got := tc.do("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", got)
	}
	s, from := gSnap, aofWritten
	for i := range 4 * stretches {
		tc.do("SET", "big:"+strconv.Itoa(i%8), strings.Repeat("x", int(kStretch/4)))
	}
	aofBeforeSleep()
	for !s.walked {
		snapshotStep()
	}
	err := <-s.finished // the walk's part synced; put back for the loop to take
	s.finished <- err
	return tc, path, from
}

// checkReplay checks that the log at path, which the server counts as
// aofWritten bytes, replays to the key space: the same keys, values and
// TTLs (describe), as many and as many bytes.
func checkReplay(t *testing.T, path string) {
	t.Helper()
	if aofWriteErr != nil || aofWritten != fileSize(path) {
		t.Fatalf("the log is %d bytes, the server counts %d (%v)", fileSize(path), aofWritten, aofWriteErr)
	}
	want := keySpaceLines()
	resetTx(t)
	if _, err := aofLoad(path); err != nil {
		t.Fatal(err)
	}
	got := keySpaceLines()
	size := func(lines []string) (n int) {
		for _, l := range lines {
			n += len(l)
		}
		return n
	}
	if !slices.Equal(got, want) {
		t.Errorf("the log replays to %d keys (%d bytes described), the key space had %d (%d)", len(got), size(got), len(want), size(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("first difference: got %.100s, want %.100s", got[i], want[i])
			}
		}
	}
}

// TestSnapshotsQueuedInTransaction: BGREWRITEAOF and BGSAVE inside a
// transaction are scheduled, to start once EXEC ends, as in Redis: a
// snapshot taken in its middle would hold part of it. The rewrite's start
// also wrote the log's buffer out, under the place where EXEC's end puts
// the MULTI: after a SET pipelined in the same turn, a longer record than
// the transaction made after that write, the place was past the buffer's
// end and the server crashed (a slice out of range).
func TestSnapshotsQueuedInTransaction(t *testing.T) {
	resetTx(t)
	rewriteOn(t)
	tc := newTxClient(t)
	long := strings.Repeat("x", 60)
	tc.do("SET", long, "1")
	for _, cmd := range [][]string{{"MULTI"}, {"SET", "a", "1"}, {"BGREWRITEAOF"}, {"BGSAVE"}, {"SET", "b", "2"}} {
		tc.do(cmd...)
	}
	want := "*4\r\n+OK\r\n+Background append only file rewriting scheduled\r\n+Background saving scheduled\r\n+OK\r\n"
	if got := tc.do("EXEC"); got != want {
		t.Fatalf("EXEC: %q, want %q", got, want)
	}
	expectLog(t, "SET "+long+" 1", "MULTI", "SET a 1", "SET b 2", "EXEC")
	if gSnap != nil || !aofRW.scheduled || !rdbState.scheduled {
		t.Fatalf("inside EXEC, a snapshot started (%v), or the rewrite (%v) or the save (%v) was not scheduled", gSnap != nil, aofRW.scheduled, rdbState.scheduled)
	}
	rdbCron()
	if gSnap == nil {
		t.Fatal("the loop's check did not start what was scheduled")
	}
}

// TestRewriteTailInTurns: what the log gained during a rewrite's walk,
// several stretches of it, is copied to the new file over several turns
// of the loop while clients go on writing between them, each turn at
// most a stretch: a step of the walk's work in bytes, or twice what the
// log gained since the last stretch. The rewrite stays in progress until
// it ends, and the new log replays to the key space as it is after it,
// a write made after the switch included.
func TestRewriteTailInTurns(t *testing.T) {
	tc, path, from := rewriteWithTail(t, 8)
	s := gSnap
	big := func(n int) string { return strings.Repeat("x", n) }
	deadline := time.Now().Add(time.Minute) // against a hang only
	mark, copies, written, tail := aofWritten, 0, 0, aofWritten-from
	var turns []string
	for turn := 0; gSnap != nil; turn++ {
		if time.Now().After(deadline) || turn > 100_000 {
			t.Fatalf("the rewrite has not ended after %d turns: %s", turn, strings.Join(turns, " "))
		}
		if !strings.Contains(tc.do("INFO", "persistence"), "aof_rewrite_in_progress:1\r\n") {
			t.Fatalf("turn %d: INFO says no rewrite is in progress before the switch", turn)
		}
		before, size := fileSize(s.tmp), aofWritten
		snapshotStep()
		after := fileSize(s.tmp)
		if gSnap == nil {
			after = fileSize(path) // renamed: the log
		}
		copied := after - before
		if limit := max(kStretch, 2*(size-mark)); copied > limit {
			t.Fatalf("turn %d copied %d bytes of the tail, more than %d (the log gained %d since the last stretch): %s",
				turn, copied, limit, size-mark, strings.Join(turns, " "))
		}
		if copied > 0 {
			copies++
			mark = size
			turns = append(turns, strconv.FormatInt(copied>>10, 10)+"K")
		}
		// Clients write between the turns: mostly less than a stretch,
		// now and then more, which the next stretch must outrun.
		n := 4 << 10
		switch {
		case copied > 0 && copies%4 == 0:
			n = int(kStretch * 3 / 2)
		case copied > 0:
			n = int(kStretch / 3)
		default:
			time.Sleep(time.Millisecond) // waiting for the disk: no hurry
		}
		tc.do("SET", "w:"+strconv.Itoa(turn%50), big(n))
		written += n
		aofBeforeSleep()
	}
	if !aofRW.lastOK || aofRW.rewrites != 1 || aofRW.running {
		t.Fatalf("after the rewrite: lastOK %v, rewrites %d, running %v", aofRW.lastOK, aofRW.rewrites, aofRW.running)
	}
	if copies < 4 {
		t.Fatalf("the tail went across in %d turns, not several: %s", copies, strings.Join(turns, " "))
	}
	if _, err := os.Stat(s.tmp); !os.IsNotExist(err) {
		t.Fatalf("the temporary file is still there: %v", err)
	}
	tc.do("SET", "after", "the switch") // written to the new file
	aofBeforeSleep()
	checkReplay(t, path)
	t.Logf("a tail of %d KiB at the walk's end, %d KiB written during the catch-up; copied in %d turns: %s",
		tail>>10, written>>10, copies, strings.Join(turns, " "))
}

// TestRewriteTailSyncedAsItGoes: the stretches copied are synced off the
// loop while the catch-up goes on, and the turn that makes the file the
// log has at most its own stretch not yet on the disk, for its fsync.
func TestRewriteTailSyncedAsItGoes(t *testing.T) {
	tc, path, from := rewriteWithTail(t, 6)
	tl, walkPart := gSnap.tail.(*aofTail), fileSize(gSnap.tmp)
	deadline := time.Now().Add(time.Minute) // against a hang only
	offLoop := 0
	for turn := 0; gSnap != nil; turn++ {
		if time.Now().After(deadline) {
			t.Fatalf("the rewrite has not ended after %d turns", turn)
		}
		synced := tl.synced
		snapshotStep()
		if tl.synced > synced && gSnap != nil {
			offLoop++
		}
		if tl.waits() {
			time.Sleep(time.Millisecond)
		}
		tc.do("SET", "w:"+strconv.Itoa(turn%10), strings.Repeat("y", int(kStretch/5)))
		aofBeforeSleep()
	}
	// The new file is the walk's part and the old log past from; of it,
	// the part up to synced was on the disk before the switch's turn.
	last := fileSize(path) - walkPart - (tl.synced - from)
	if stretch := max(kStretch, 2*(tl.at-tl.mark)); last > stretch || tl.syncing != nil {
		t.Fatalf("the switch's fsync had %d bytes to sync, a stretch is %d (an fsync in flight: %v)", last, stretch, tl.syncing != nil)
	}
	if !aofRW.lastOK || offLoop == 0 {
		t.Fatalf("lastOK %v; %d fsyncs done off the loop", aofRW.lastOK, offLoop)
	}
	t.Logf("%d fsyncs off the loop; the switch's covered %d bytes", offLoop, last)
	checkReplay(t, path)
}

// TestRewriteTailInterrupted: a rewrite in its catch-up is still a rewrite
// in progress, as during its walk: BGSAVE is refused (or with SCHEDULE
// queued for after it), BGREWRITEAOF refused; SAVE and SHUTDOWN SAVE
// finish it first, in their turn; FLUSHALL is logged and copied like any
// write. A log that cannot be written at the switch (MISCONF) fails it,
// and so does a temporary file that cannot be written: the temporary file
// is removed and the old log, whole, stays the log.
func TestRewriteTailInterrupted(t *testing.T) {
	for _, c := range []struct {
		name   string
		during func(t *testing.T, tc *txClient)
		ok     bool
	}{
		{"BGSAVE", func(t *testing.T, tc *txClient) {
			tc.expect("-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n", "BGSAVE")
			tc.expect("+Background saving scheduled\r\n", "BGSAVE", "SCHEDULE")
			tc.expect("-ERR Background append only file rewriting already in progress\r\n", "BGREWRITEAOF")
		}, true},
		{"SAVE", func(t *testing.T, tc *txClient) {
			tc.expect(okReply, "SAVE")
			if gSnap != nil || fileSize(rdbPath()) <= 0 {
				t.Fatalf("after SAVE: a snapshot running %v, dump.rdb %d bytes", gSnap != nil, fileSize(rdbPath()))
			}
		}, true},
		{"SHUTDOWN SAVE", func(t *testing.T, tc *txClient) {
			tc.expect(okReply, "SHUTDOWN", "SAVE") // the test's shutdownExit returns
			if gSnap != nil {
				t.Fatal("SHUTDOWN SAVE left the rewrite running")
			}
		}, true},
		{"FLUSHALL", func(t *testing.T, tc *txClient) {
			tc.expect(okReply, "FLUSHALL")
			tc.expect(okReply, "SET", "after", "the flush")
		}, true},
		{"MISCONF", func(t *testing.T, tc *txClient) {
			aofWriteErr = unix.ENOSPC // the log's last write failed
			t.Cleanup(func() { aofWriteErr = nil })
			tc.expect("-MISCONF Errors writing to the AOF file: No space left on device\r\n", "SET", "k", "v")
		}, false},
		{"the temporary file fails", func(t *testing.T, tc *txClient) {
			gSnap.tail.(*aofTail).f.Close() // its next write or fsync fails
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc, path, _ := rewriteWithTail(t, 4)
			tmp, walkPart := gSnap.tmp, fileSize(gSnap.tmp)
			for fileSize(tmp) == walkPart { // the catch-up's first stretch
				snapshotStep()
			}
			c.during(t, tc)
			aofBeforeSleep()
			before := fileSize(path)
			deadline := time.Now().Add(time.Minute) // against a hang only
			for gSnap != nil {
				if time.Now().After(deadline) {
					t.Fatal("the rewrite has not ended")
				}
				snapshotStep()
			}
			if aofRW.lastOK != c.ok || aofRW.running || fileSize(tmp) != -1 {
				t.Fatalf("after the rewrite: lastOK %v, running %v, the temporary file %d bytes", aofRW.lastOK, aofRW.running, fileSize(tmp))
			}
			if !c.ok {
				if fileSize(path) != before {
					t.Fatalf("the old log went from %d to %d bytes", before, fileSize(path))
				}
				aofWriteErr = nil
			}
			checkReplay(t, path)
		})
	}
}

// TestRewriteDirSyncFails: once the rewritten file has the log's name,
// the log's descriptor points at it before anything that can fail, here
// the directory's fsync. The rewrite is reported failed, yet a write made
// after it is in the file the name leads to, and the log replays whole.
// (Before, the failure left the descriptor on the old file, which had no
// name any more: every later write was lost to a restart.)
func TestRewriteDirSyncFails(t *testing.T) {
	tc, path, _ := rewriteWithTail(t, 1)
	aofSyncDir = func(string) error { return unix.EIO }
	t.Cleanup(func() { aofSyncDir = syncDirErr })
	deadline := time.Now().Add(time.Minute) // against a hang only
	for gSnap != nil {
		if time.Now().After(deadline) {
			t.Fatal("the rewrite has not ended")
		}
		snapshotStep()
		time.Sleep(time.Millisecond)
	}
	if aofRW.lastOK {
		t.Fatal("the rewrite is reported ok although the directory's fsync failed")
	}
	if !strings.Contains(tc.do("INFO", "persistence"), "aof_last_bgrewrite_status:err\r\n") {
		t.Fatal("INFO does not say the last rewrite failed")
	}
	tc.do("SET", "after", "the failed sync")
	aofBeforeSleep()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "the failed sync") {
		t.Fatal("a write after the rewrite is not in the file named as the log")
	}
	checkReplay(t, path)
}

// TestRewriteFailuresBackOff: rewrites that fail in a row (here the log
// cannot be written) are tried at once twice more by the automatic rule,
// then only after a minute, then after two; BGREWRITEAOF is not held
// back, and INFO counts the failures in a row until a rewrite succeeds.
// (Before, the rule started a new walk of the key space every turn.)
func TestRewriteFailuresBackOff(t *testing.T) {
	resetTx(t)
	rewriteOn(t)
	tc := newTxClient(t)
	fillKeys(tc, 20)
	aofBeforeSleep()
	aofRW.percentage, aofRW.minSize, aofRW.baseSize = 100, 1, 1 // the rule calls for a rewrite
	aofWriteErr = unix.ENOSPC
	t.Cleanup(func() { aofWriteErr = nil })
	failures := func() string {
		info := tc.do("INFO", "persistence")
		i := strings.Index(info, "aof_rewrites_consecutive_failures:")
		if i < 0 {
			t.Fatalf("INFO has no aof_rewrites_consecutive_failures:\n%s", info)
		}
		return strings.TrimSpace(strings.SplitN(info[i:], "\r\n", 2)[0])
	}
	for range 50 {
		rdbCron()
	}
	wait := aofRW.retryAt - time.Now().Unix()
	if aofRW.failures != kRewriteFailLimit || wait < kRewriteFirstDelaySecs-5 || wait > kRewriteFirstDelaySecs {
		t.Fatalf("after 50 turns: %d rewrites failed, the next automatic one in %d s; want %d, about %d",
			aofRW.failures, wait, kRewriteFailLimit, kRewriteFirstDelaySecs)
	}
	if got := tc.do("BGREWRITEAOF"); !strings.HasPrefix(got, "-ERR Can't rewrite append only file in background") {
		t.Fatalf("BGREWRITEAOF during the wait: %q, want it tried (and failed)", got)
	}
	if got := failures(); got != "aof_rewrites_consecutive_failures:4" {
		t.Fatalf("INFO: %s", got)
	}
	if wait := aofRW.retryAt - time.Now().Unix(); wait < 2*kRewriteFirstDelaySecs-5 || wait > 2*kRewriteFirstDelaySecs {
		t.Fatalf("after a fourth failure the wait is %d s, want about %d", wait, 2*kRewriteFirstDelaySecs)
	}
	for n, want := range map[int]int64{3: 60, 4: 120, 8: 1920, 9: 3600, 1000: 3600} {
		if got := aofRewriteRetryDelay(n); got != want {
			t.Errorf("the wait after %d failures: %d s, want %d", n, got, want)
		}
	}
	aofWriteErr = nil
	aofRW.retryAt = 0 // the wait is over
	rdbCron()
	if gSnap == nil {
		t.Fatal("the automatic rewrite did not start once the wait was over")
	}
	if err := gSnap.complete(); err != nil {
		t.Fatal(err)
	}
	if got := failures(); got != "aof_rewrites_consecutive_failures:0" || aofRW.retryAt != 0 {
		t.Fatalf("after a rewrite that succeeded: %s, retry at %d", got, aofRW.retryAt)
	}
}

// TestRewriteClosesOldLogOffLoop: the rewrite ends, and the loop goes on,
// while the old log's last descriptor is still being closed: that close
// frees the old file, which takes time in proportion to its size. Here
// the close waits until the test lets it go; done on the loop, it would
// hold the rewrite (and every client) until then.
func TestRewriteClosesOldLogOffLoop(t *testing.T) {
	tc, path, _ := rewriteWithTail(t, 1)
	called, release := make(chan *os.File, 1), make(chan struct{})
	aofCloseOld = func(f *os.File) error {
		called <- f
		<-release
		return f.Close()
	}
	t.Cleanup(func() { aofCloseOld = (*os.File).Close })
	ended := make(chan struct{})
	go func() { // the loop's part, run here so that a hold shows as a wait
		defer close(ended)
		for gSnap != nil {
			snapshotStep()
			time.Sleep(time.Millisecond)
		}
	}()
	guard := time.After(time.Minute) // against a hang only
	select {
	case <-ended:
	case <-guard:
		close(release)
		t.Fatal("the rewrite did not end while the old log's close waited: the close is on the loop")
	}
	select {
	case <-called:
	case <-guard:
		t.Fatal("the old log was never closed")
	}
	tc.do("SET", "after", "the switch")
	aofBeforeSleep()
	close(release)
	checkReplay(t, path)
}

// TestFsyncAfterSwitchRace: under everysec, a tick of the fsync worker
// whose fdatasync straddles a rewrite's switch stores the old log's size
// as synced, larger than anything the new log has. The next tick must
// still sync what is written (before, it compared with "exceeds" and did
// not, until the log grew past the old size: no fsync for a whole cycle
// of rewrites), and INFO must say an fsync is pending meanwhile.
func TestFsyncAfterSwitchRace(t *testing.T) {
	rewriteOn(t)
	tc := newTxClient(t)
	tc.do("SET", "k", "v")
	aofBeforeSleep()
	synced := aofSynced.Load()
	t.Cleanup(func() { aofSynced.Store(synced) })
	aofSynced.Store(aofWritten + 1<<30) // the straddling tick's store
	if !strings.Contains(tc.do("INFO", "persistence"), "aof_pending_bio_fsync:1\r\n") {
		t.Fatal("INFO says no fsync is pending")
	}
	aofFsyncTick()
	if got := aofSynced.Load(); got != aofWritten {
		t.Fatalf("after a tick the log is synced up to %d; it has %d bytes", got, aofWritten)
	}
	if !strings.Contains(tc.do("INFO", "persistence"), "aof_pending_bio_fsync:0\r\n") {
		t.Fatal("INFO says an fsync is pending after the tick")
	}
}

// TestShutdownRemovesTemp: SHUTDOWN NOSAVE while a rewrite of the log is
// under way removes its temporary file, which the exit would otherwise
// leave in the directory, a file as large as the key space, under a name
// no later process uses.
func TestShutdownRemovesTemp(t *testing.T) {
	tc, _, _ := rewriteWithTail(t, 1)
	tmp := gSnap.tmp
	if fileSize(tmp) <= 0 {
		t.Fatalf("no temporary file %s during the rewrite", tmp)
	}
	tc.expect(okReply, "SHUTDOWN", "NOSAVE") // the test's shutdownExit returns
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("after SHUTDOWN the temporary file is still there: %v", err)
	}
}

// TestRewriteSmallValues: a rewrite writes each value the walk takes whole
// (fewer than kSnapSplitMembers members or fields) as commands that
// rebuild it: a hash's fields with their own expiry times, a hash and a
// sorted set of more than one batch, keys with TTLs. The new log replays
// to the same key space, every expiry time to the millisecond.
func TestRewriteSmallValues(t *testing.T) {
	resetTx(t)
	path := rewriteOn(t)
	tc := newTxClient(t)
	tc.do("SET", "s", "v", "PX", "3600000")
	tc.do("HSET", "h", "a", "1", "b", "2", "c", "3")
	tc.do("HPEXPIRE", "h", "100000", "FIELDS", "2", "a", "b")
	tc.do("HPEXPIRE", "h", "200000", "FIELDS", "1", "b")
	wide := []string{"HSET", "wide"}
	zadd := []string{"ZADD", "wz"}
	for i := range 3*kRewriteBatch + 5 {
		wide = append(wide, "f"+strconv.Itoa(i), strconv.Itoa(i))
		zadd = append(zadd, strconv.Itoa(i%7)+".5", "m"+strconv.Itoa(i))
	}
	tc.do(wide...)
	tc.do(zadd...)
	tc.do("HPEXPIRE", "wide", "300000", "FIELDS", "1", "f70")
	tc.do("PEXPIRE", "wz", "7200000")
	times := func() []string {
		return []string{
			tc.do("PEXPIRETIME", "s"), tc.do("PEXPIRETIME", "wz"),
			tc.do("HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "c"),
			tc.do("HPEXPIRETIME", "wide", "FIELDS", "2", "f69", "f70"),
		}
	}
	want := times()
	aofBeforeSleep()
	if got := tc.do("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", got)
	}
	deadline := time.Now().Add(time.Minute) // against a hang only
	for gSnap != nil {
		if time.Now().After(deadline) {
			t.Fatal("the rewrite has not ended after a minute")
		}
		snapshotStep()
		time.Sleep(100 * time.Microsecond) // the disk's fsync, off the loop
	}
	if !aofRW.lastOK || aofRW.rewrites != 1 {
		t.Fatalf("after the rewrite: lastOK %v, rewrites %d", aofRW.lastOK, aofRW.rewrites)
	}
	checkReplay(t, path)
	tc = newTxClient(t)
	if got := times(); !slices.Equal(got, want) {
		t.Fatalf("expiry times after the replay: %q, want %q", got, want)
	}
}
