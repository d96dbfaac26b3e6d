package server

// Rewriting the append-only file from a snapshot: BGREWRITEAOF, and the
// automatic rewrites of -auto-aof-rewrite-percentage and -min-size. The
// snapshot (snapshot.go) writes each key as the commands that make it,
// to a temporary file, while the loop goes on logging every write to the
// old file as before. When the walk is done and the temporary file
// synced, the loop appends to it what the old file gained since the
// snapshot's instant, a stretch per turn (aofTail), while clients go on
// writing; once what is left fits in one stretch it copies that, syncs
// it, renames the file over the old one, syncs the directory, and points
// the log's descriptor at the new file (dup2: the fsync worker keeps its
// number), all in one turn, so that no write comes between. Until the
// rename the old file is whole and is the log; after it the new one has
// every write the old one had.

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/quicklist"
	"example.com/byor/ch38_blocking/zset"
)

// The rewrite's settings (Redis's names and defaults) and state.
var aofRW = struct {
	percentage int
	minSize    int64
	// baseSize is the log's size after the last rewrite (or at start):
	// the automatic rewrite compares the size with it.
	baseSize  int64
	scheduled bool
	running   bool
	lastOK    bool
	lastSecs  int64
	rewrites  int
	// failures counts the rewrites in a row that failed; from the
	// third on, the automatic ones wait until retryAt (unix seconds):
	// aofRewriteFailed.
	failures int
	retryAt  int64
}{percentage: 100, minSize: 64 << 20, lastOK: true, lastSecs: -1}

// After kRewriteFailLimit rewrites in a row have failed, the automatic
// ones wait a minute before the next try, then twice as long after each
// failure more, up to an hour (Redis 7.0's numbers): a full disk would
// otherwise have the loop walk the whole key space again and again.
// BGREWRITEAOF is not held back.
const (
	kRewriteFailLimit      = 3
	kRewriteFirstDelaySecs = 60
	kRewriteMaxDelaySecs   = 3600
)

// aofRewriteFlags adds the automatic rewrite's flags to fs.
func aofRewriteFlags(fs *flag.FlagSet) func() error {
	pct := fs.Int("auto-aof-rewrite-percentage", aofRW.percentage, "rewrite the append-only file once it has grown by this `percent` since the last rewrite; 0 for never")
	minMB := fs.Int64("auto-aof-rewrite-min-size", aofRW.minSize, "but not while it is smaller than this many `bytes`")
	return func() error {
		if *pct < 0 || *minMB < 0 {
			return fmt.Errorf("-auto-aof-rewrite-percentage and -auto-aof-rewrite-min-size must not be negative")
		}
		aofRW.percentage, aofRW.minSize = *pct, *minMB
		respConfigSet("auto-aof-rewrite-percentage", strconv.Itoa(*pct))
		respConfigSet("auto-aof-rewrite-min-size", strconv.FormatInt(*minMB, 10))
		return nil
	}
}

// aofRewriteDue reports whether a rewrite should start now: one is
// wanted, and failures in a row do not hold it back.
func aofRewriteDue() bool {
	return aofRewriteWanted() && time.Now().Unix() >= aofRW.retryAt
}

// aofRewriteWanted reports whether a rewrite is called for: one scheduled
// while a background save ran, or the log grown past the rule.
func aofRewriteWanted() bool {
	if gSnap != nil || !aofOn || aofFd < 0 {
		return false
	}
	if aofRW.scheduled {
		return true
	}
	size := aofWritten + int64(len(aofBuf))
	return aofRW.percentage > 0 && size >= aofRW.minSize &&
		size-aofRW.baseSize >= aofRW.baseSize*int64(aofRW.percentage)/100
}

// aofRewriteStart starts a rewrite of the log from a snapshot.
func aofRewriteStart() error {
	aofRW.scheduled = false
	aofWrite()
	if aofWriteErr != nil {
		aofRewriteFailed()
		return aofWriteErr
	}
	from := aofWritten // the old file's size at the instant: what it gains past it goes to the new one
	s, err := snapshotBegin(aofEncoder{}, aofPath(), aofRewriteDone)
	if err != nil {
		msg("Background append only file rewriting failed: %v", err)
		aofRewriteFailed()
		return err
	}
	s.path = "" // the loop renames it, once the tail is appended
	s.tail = &aofTail{tmp: s.tmp, at: from, synced: from}
	aofRW.running = true
	msg("Background append only file rewriting started")
	return nil
}

// aofRewriteDone ends a rewrite, on the loop, once the new file is the
// log (aofTail.finish) or the rewrite failed.
func aofRewriteDone(s *snapshot, err error) {
	aofRW.running = false
	aofRW.lastSecs = int64((getMonotonicUsec() - s.startUs) / 1e6)
	if err != nil {
		os.Remove(s.tmp)
		msg("Background append only file rewriting failed: %v", err)
		aofRewriteFailed()
		return
	}
	aofRW.lastOK = true
	aofRW.failures, aofRW.retryAt = 0, 0
	aofRW.rewrites++
	msg("Background AOF rewrite finished successfully")
}

// aofRewriteFailed records a rewrite that failed, and from the
// kRewriteFailLimit-th in a row on, how long the automatic ones wait.
func aofRewriteFailed() {
	aofRW.lastOK = false
	aofRW.failures++
	if aofRW.failures < kRewriteFailLimit {
		return
	}
	delay := aofRewriteRetryDelay(aofRW.failures)
	aofRW.retryAt = time.Now().Unix() + delay
	msg("Background AOF rewrite has failed %d times in a row; the automatic one waits %d minutes", aofRW.failures, delay/60)
}

// aofRewriteRetryDelay is how many seconds the automatic rewrite waits
// after failures in a row: a minute after kRewriteFailLimit, twice as
// long after each one more, at most an hour.
func aofRewriteRetryDelay(failures int) int64 {
	d := int64(kRewriteFirstDelaySecs)
	for i := kRewriteFailLimit; i < failures && d < kRewriteMaxDelaySecs; i++ {
		d *= 2
	}
	return min(d, kRewriteMaxDelaySecs)
}

// aofSyncDir syncs the log's directory after the rewrite's rename; a
// test makes it fail.
var aofSyncDir = syncDirErr

// aofCloseOld closes the old log's descriptor after a rewrite; a test
// makes it wait.
var aofCloseOld = (*os.File).Close

// kTailStretch is the least a turn of the rewrite's catch-up copies: the
// bytes a step of the walk's work copies (kSnapStepWork units of
// kWorkBytes, 1 MiB), so that a turn of the copy weighs what a turn of
// the walk does.
const kTailStretch = kSnapStepWork * kWorkBytes

// aofTail is a rewrite's catch-up (snapTail): what the old log gained
// since the instant, appended to the synced temporary file a stretch per
// turn, read back from the old file (no rewrite buffer in memory). The
// stretches copied are fsynced off the loop, by a goroutine per fsync,
// one at a time, as the walk's part was (syncAndRename): an fsync waits
// for the disk, which no turn should, and the last stretch waits until
// the others are synced, so that the fsync on the loop at the switch
// covers it alone. (The everysec worker of aof_fsync.go syncs the log's
// descriptor, not this file.)
type aofTail struct {
	tmp    string
	old, f *os.File // the old log, read; the temporary file, appended to (opened at the first step)
	buf    []byte
	// at is the old log's offset copied up to; mark its size when the
	// last stretch was taken (or the catch-up began); synced the offset
	// up to which the temporary file is on the disk.
	at, mark, synced int64
	// syncing receives the outcome of the fsync in flight (nil for none),
	// which covers up to syncTo.
	syncing chan error
	syncTo  int64
}

// stretch is how much the next turn copies at most: kTailStretch, or
// twice what the log gained since the last stretch if that is more, so
// that the copy outruns the writes however fast they come: each stretch
// copies at least half of kTailStretch more than was written since the
// one before.
func (t *aofTail) stretch() int64 { return max(kTailStretch, 2*(aofWritten-t.mark)) }

// last reports whether what is left fits in one stretch.
func (t *aofTail) last() bool { return aofWritten-t.at <= t.stretch() }

// waits reports whether the next turn can only wait for the fsync in
// flight: the last stretch waits until the others are on the disk.
func (t *aofTail) waits() bool { return t.syncing != nil && t.last() }

// step does one turn of the catch-up: it copies one stretch, or once what
// is left fits in one and the stretches before are on the disk, the last
// and makes the file the log. With all it waits for the fsync in flight
// and copies the rest at once. On the way out it closes what it opened.
func (t *aofTail) step(all bool) (bool, error) {
	done, err := t.turn(all)
	if done {
		inputHeld -= len(t.buf) // the buffer leaves the budget (copy)
		t.buf = nil
		if t.old != nil {
			// After the switch this is the old log's last descriptor,
			// and closing it frees the file, in time that grows with
			// its size (a second for a log of a few GB): not on the loop.
			go aofCloseOld(t.old)
		}
		if t.f != nil {
			t.f.Close() // an fsync in flight keeps the descriptor until it returns
		}
	}
	return done, err
}

// turn is step, but for the closing.
func (t *aofTail) turn(all bool) (bool, error) {
	if t.f == nil {
		var err error
		if t.old, err = os.Open(aofPath()); err != nil {
			return true, err
		}
		if t.f, err = os.OpenFile(t.tmp, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			return true, err
		}
		t.mark = aofWritten // what the walk's time added is to copy, but it does not size the first stretch
	}
	if err := t.pollSync(all); err != nil {
		return true, err
	}
	switch {
	case all || t.last() && t.syncing == nil && t.synced == t.at:
		return true, t.finish()
	case t.last():
		// Copying on would move the end the fsync chases: the last
		// stretch waits for it, and grows meanwhile by what is written.
	default:
		err := t.copy(t.stretch())
		t.mark = aofWritten
		if err != nil {
			return true, err
		}
	}
	if t.syncing == nil && t.synced < t.at {
		ch, f := make(chan error, 1), t.f
		t.syncing, t.syncTo = ch, t.at
		go func() { ch <- f.Sync() }()
	}
	return false, nil
}

// pollSync takes the outcome of the fsync in flight, if it is done, or
// with wait once it is.
func (t *aofTail) pollSync(wait bool) error {
	if t.syncing == nil {
		return nil
	}
	var err error
	if wait {
		err = <-t.syncing
	} else {
		select {
		case err = <-t.syncing:
		default:
			return nil
		}
	}
	t.syncing = nil
	if err != nil {
		return fmt.Errorf("syncing the rewritten log: %w", err)
	}
	t.synced = t.syncTo
	return nil
}

// copy appends at most n bytes of the old log from at on to the
// temporary file, through one buffer of at most 1 MiB.
func (t *aofTail) copy(n int64) error {
	end := min(t.at+n, aofWritten)
	if want := int(min(end-t.at, kSnapFlushBytes)); len(t.buf) < want {
		// Counted in the clients' budget until the end, past it if it
		// must be, as the walk's buffers are (snapshot.account).
		inputHeld += want - len(t.buf)
		t.buf = make([]byte, want)
	}
	for t.at < end {
		b := t.buf[:min(int64(len(t.buf)), end-t.at)]
		if _, err := t.old.ReadAt(b, t.at); err != nil {
			return fmt.Errorf("reading what the log gained meanwhile: %w", err)
		}
		if _, err := t.f.Write(b); err != nil {
			return err
		}
		t.at += int64(len(b))
	}
	return nil
}

// finish copies the rest of what the log gained, syncs it (only it: the
// stretches before are on the disk, unless all hurried), and makes the
// temporary file the log.
func (t *aofTail) finish() error {
	aofBeforeSleep() // everything logged is in the old file (and, under always, synced and answered)
	if aofWriteErr != nil {
		return aofWriteErr
	}
	err := t.copy(aofWritten - t.at)
	if err == nil {
		err = t.f.Sync()
	}
	var st os.FileInfo
	if err == nil {
		st, err = t.f.Stat()
	}
	if err == nil {
		err = os.Rename(t.tmp, aofPath())
	}
	if err != nil {
		return err
	}
	// From the rename on the new file is the log, and nothing that can
	// fail may come before the log's descriptor points at it: writes
	// would go to the old file, which has no name now. So the descriptor
	// is the temporary file's own, opened before (O_WRONLY|O_APPEND, as
	// the log's), and the directory is synced after the switch.
	if err := unix.Dup2(int(t.f.Fd()), aofFd); err != nil {
		msg("pointing the append-only file's descriptor at the rewritten log failed: %v; exiting", err)
		logFlush(0)
		os.Exit(1)
	}
	size := st.Size()
	aofWritten = size
	aofWrittenShared.Store(size)
	aofSynced.Store(size)
	aofRW.baseSize = size
	if err := aofSyncDir(aofDir); err != nil {
		return fmt.Errorf("the rewritten log is in use, but its name may not survive a crash of the machine: %w", err)
	}
	return nil
}

// aofRewriteInfo writes INFO persistence's aof_rewrite fields.
func aofRewriteInfo(field func(k string, v any)) {
	cur := int64(-1)
	if aofRW.running && gSnap != nil {
		cur = int64((getMonotonicUsec() - gSnap.startUs) / 1e6)
	}
	status := "ok"
	if !aofRW.lastOK {
		status = "err"
	}
	field("aof_rewrite_in_progress", b2i(aofRW.running))
	field("aof_rewrite_scheduled", b2i(aofRW.scheduled))
	field("aof_last_rewrite_time_sec", aofRW.lastSecs)
	field("aof_current_rewrite_time_sec", cur)
	field("aof_last_bgrewrite_status", status)
	field("aof_rewrites", aofRW.rewrites)
	field("aof_rewrites_consecutive_failures", aofRW.failures)
}

// aofRewriteRows is BGREWRITEAOF's row.
func aofRewriteRows() []*command {
	return []*command{
		{name: "bgrewriteaof", arity: 1, flags: flagAdmin | flagNoScript | flagNoAsyncLoading, resp: respBgrewriteaof},
	}
}

// respBgrewriteaof: BGREWRITEAOF starts a rewrite of the log, or
// schedules one after the background save running.
func respBgrewriteaof(st *respState, w *respWriter, args [][]byte) {
	switch {
	case !aofOn:
		w.err("ERR the append-only file is off (start the server with -appendonly yes)")
	case aofRW.running:
		w.err("ERR Background append only file rewriting already in progress")
	case gSnap != nil || aofNested():
		// After the background save running; or, inside a transaction,
		// once it ends, as Redis does: the new file would begin in the
		// middle of it, without its MULTI.
		aofRW.scheduled = true
		w.simple("Background append only file rewriting scheduled")
	default:
		if err := aofRewriteStart(); err != nil {
			w.err("ERR Can't rewrite append only file in background: " + err.Error())
			return
		}
		w.simple("Background append only file rewriting started")
	}
}

// aofEncoder writes a snapshot as the commands that rebuild it.
type aofEncoder struct{}

func (aofEncoder) begin(b []byte, keys, expires int) []byte { return b }
func (aofEncoder) end(b []byte) []byte                      { return b }

// entry writes the commands of one key: SET, HSET, ZADD or RPUSH (in
// batches), the fields' expiry times, and the key's.
func (aofEncoder) entry(b []byte, ent *entry, expireMs, nowMs int64) ([]byte, int) {
	// exercise: ch36-rewrite-entry
	start := len(b)
	work := 1
	key := ent.key()
	switch ent.typ() {
	case tStr:
		b = appendCommand(b, "SET", key, ent.val())
	case tZSet:
		var w int
		b, _, w = aofEncoder{}.zsetMembers(b, ent, ent.obj.zset.SeekGE(negInf, ""), math.MaxInt, nil)
		work += w
	case tList:
		var w int
		b, _, w = aofEncoder{}.listItems(b, ent, ent.obj.list.First(), math.MaxInt, nil)
		work += w
	case tHash:
		h := ent.obj.hash
		pairs := h.GetAll(uint64(nowMs))
		args := []string{"HSET", key}
		for i, p := range pairs {
			args = append(args, p.Name, p.Value)
			if len(args) == 2+2*kRewriteBatch || i == len(pairs)-1 {
				b = appendCommand(b, args...)
				args = args[:2]
			}
			work += kVisitWork
		}
		for _, p := range pairs {
			if at := h.ExpireTime(uint64(nowMs), p.Name); at >= 0 {
				b = appendCommand(b, "HPEXPIREAT", key, strconv.FormatInt(at, 10), "FIELDS", "1", p.Name)
			}
		}
	}
	if expireMs >= 0 {
		b = appendCommand(b, "PEXPIREAT", key, strconv.FormatInt(expireMs, 10))
	}
	return b, work + (len(b)-start)/kWorkBytes
	// end exercise: ch36-rewrite-entry
}

// stringHead appends what comes before a string's value of n bytes: a
// SET of its key, up to the value's length (stringSplitter, snapshot.go).
func (aofEncoder) stringHead(b []byte, ent *entry, n int, expireMs int64) []byte {
	b = appendBulk(appendBulk(appendHeader(b, '*', 3), "SET"), ent.key())
	return appendHeader(b, '$', n)
}

// stringTail ends the value's bulk string, and appends the key's
// expiry, as entry does.
func (aofEncoder) stringTail(b []byte, ent *entry, expireMs int64) []byte {
	b = append(b, '\r', '\n')
	if expireMs >= 0 {
		b = appendCommand(b, "PEXPIREAT", ent.key(), strconv.FormatInt(expireMs, 10))
	}
	return b
}

// splitStart appends what comes before a sorted set's members or a
// hash's fields: nothing (valueSplitter, snapshot.go).
func (aofEncoder) splitStart(b []byte, ent *entry, expireMs, nowMs int64) []byte { return b }

// hashFields appends at most count places of the hash ent's order from
// i on, the fields live at nowMs, as one HSET and then an HPEXPIREAT
// for each field with a TTL, and returns the place after the last (-1 at
// the end) and the work. A count of more than kRewriteBatch comes in
// batches of that many. With straight, it stops once the fields hold
// kSnapFlushBytes, and long names and values go to straight.
func (enc aofEncoder) hashFields(b []byte, ent *entry, i, count int, nowMs int64, straight straightFn) ([]byte, int, int) {
	start, work, h, size := len(b), 0, ent.obj.hash, 0
	for count > kRewriteBatch && i >= 0 && straight == nil {
		var w int
		b, i, w = enc.hashFields(b, ent, i, kRewriteBatch, nowMs, nil)
		count, work = count-kRewriteBatch, work+w
	}
	if i < 0 {
		return b, i, work
	}
	args := []string{"HSET", ent.key()}
	var ttls []string
	for ; i < h.StoredLen() && count > 0 && (straight == nil || size < kSnapFlushBytes); i, count = i+1, count-1 {
		work += kVisitWork
		p, live := h.At(uint64(nowMs), i)
		if !live {
			continue
		}
		args = append(args, p.Name, p.Value)
		size += len(p.Name) + len(p.Value)
		if at := h.ExpireAt(i); at >= 0 {
			ttls = append(ttls, p.Name, strconv.FormatInt(at, 10))
		}
	}
	if len(args) > 2 {
		b = appendCommandStraight(b, straight, args...)
	}
	for k := 0; k < len(ttls); k += 2 {
		b = appendCommand(b, "HPEXPIREAT", ent.key(), ttls[k+1], "FIELDS", "1", ttls[k])
	}
	if i == h.StoredLen() {
		i = -1
	}
	return b, i, work + (len(b)-start)/kWorkBytes
}

// zsetMembers appends at most count members of the sorted set ent from n
// on, as ZADDs of kRewriteBatch members, and returns the member after the
// last written (nil at the end) and the work. With straight, as
// hashFields.
func (aofEncoder) zsetMembers(b []byte, ent *entry, n *zset.ZNode, count int, straight straightFn) ([]byte, *zset.ZNode, int) {
	// exercise: ch36-rewrite-entry
	start, work, size := len(b), 0, 0
	args := []string{"ZADD", ent.key()}
	for ; n != nil && count > 0 && (straight == nil || size < kSnapFlushBytes); n, count = ent.obj.zset.Offset(n, +1), count-1 {
		args = append(args, formatScore(n.Score()), n.Name())
		size += len(n.Name())
		if len(args) == 2+2*kRewriteBatch {
			b = appendCommandStraight(b, straight, args...)
			args = args[:2]
		}
		work += kVisitWork
	}
	if len(args) > 2 {
		b = appendCommandStraight(b, straight, args...)
	}
	return b, n, work + (len(b)-start)/kWorkBytes
	// end exercise: ch36-rewrite-entry
}

// listItems appends at most count elements of the list ent from at on,
// as RPUSHes of kRewriteBatch elements, and returns the place of the
// next (not Valid at the end) and the work. With straight, as
// hashFields.
func (aofEncoder) listItems(b []byte, ent *entry, at quicklist.Iter, count int, straight straightFn) ([]byte, quicklist.Iter, int) {
	start, work, size := len(b), 0, 0
	args := []string{"RPUSH", ent.key()}
	for ; at.Valid() && count > 0 && (straight == nil || size < kSnapFlushBytes); at.Next() {
		// The element's bytes are the list's own, and stay as they are
		// until the stretch is written (straight) or copied.
		v := at.Value()
		args = append(args, unsafe.String(unsafe.SliceData(v), len(v)))
		size += len(v)
		count--
		if len(args) == 2+kRewriteBatch {
			b = appendCommandStraight(b, straight, args...)
			args = args[:2]
		}
		work += kVisitWork
	}
	if len(args) > 2 {
		b = appendCommandStraight(b, straight, args...)
	}
	return b, at, work + (len(b)-start)/kWorkBytes
}

// splitEnd appends what comes after the members or fields: the key's
// expiry.
func (aofEncoder) splitEnd(b []byte, ent *entry, expireMs int64) []byte {
	if expireMs >= 0 {
		b = appendCommand(b, "PEXPIREAT", ent.key(), strconv.FormatInt(expireMs, 10))
	}
	return b
}

// appendCommand appends one command in RESP.
func appendCommand(b []byte, args ...string) []byte {
	b = appendHeader(b, '*', len(args))
	for _, a := range args {
		b = appendBulk(b, a)
	}
	return b
}

// appendCommandStraight is appendCommand, but long arguments go to
// straight if it is set (appendStraight).
func appendCommandStraight(b []byte, straight straightFn, args ...string) []byte {
	b = appendHeader(b, '*', len(args))
	for _, a := range args {
		b = append(appendStraight(appendHeader(b, '$', len(a)), a, straight), '\r', '\n')
	}
	return b
}

// appendBulk appends a as a RESP bulk string.
func appendBulk(b []byte, a string) []byte {
	b = append(appendHeader(b, '$', len(a)), a...)
	return append(b, '\r', '\n')
}

// appendHeader appends a RESP header: kind (* or $), n and CRLF.
func appendHeader(b []byte, kind byte, n int) []byte {
	b = strconv.AppendInt(append(b, kind), int64(n), 10)
	return append(b, '\r', '\n')
}
