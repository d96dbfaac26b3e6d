package server

// The snapshot: the key space as it was at one instant, written out while
// the loop goes on serving. Redis forks, and the kernel's copy-on-write
// pages freeze the child's view; a Go program cannot fork with its
// threads. Here the loop itself walks the key space, a bounded step per
// turn (keytable's Scan, whose cursor survives resizes), and a write that
// is about to change a key the walk has not reached yet writes that key
// into the snapshot first, as it is: copy on write, by the key rather
// than by the page. One bit of each entry (snapMark, in klen's top bit)
// says whether the running snapshot has it already: at the start the
// mark to carry flips, so that every entry then in the key space lacks
// it, and an entry gets it when it is written; a new entry is born with
// it, for it was not there at the instant. FLUSHALL hands the whole old
// key space to the snapshot, which finishes it before it is torn down.
// So the file holds each key once, as of the instant the snapshot began.

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/heap"
	"example.com/byor/ch38_blocking/keytable"
	"example.com/byor/ch38_blocking/quicklist"
	"example.com/byor/ch38_blocking/zset"
)

// kSnapMark is the bit of klen that marks entries (see snapMark).
const kSnapMark = 1 << 31

// snapMark is the mark new entries carry, and the one the running
// snapshot gives the entries it has written. Between snapshots every
// entry carries it.
var snapMark uint32

// keyLen returns the length of the entry's key, without the mark.
func (ent *entry) keyLen() uint32 { return ent.klen &^ kSnapMark }

// snapEncoder turns entries into a file's bytes: an RDB file's records
// (rdb_write.go) or the commands of a rewritten log (aof_rewrite.go).
type snapEncoder interface {
	// begin appends what comes before the keys.
	begin(buf []byte, keys, expires int) []byte
	// entry appends ent, whose TTL (if any) ends at the unix time
	// expireMs (-1 for none), and returns the work it did.
	entry(buf []byte, ent *entry, expireMs int64, nowMs int64) ([]byte, int)
	// end appends what comes after them.
	end(buf []byte) []byte
}

// valueSplitter is what an encoder does to write a sorted set, a hash or
// a list over several turns, a stretch at a time (snapshot.writeSplit):
// its start, the members from n on, the fields from place i on or the
// elements from at on (at most count; each returns where the next
// stretch starts, nil, -1 or not Valid at the end, and the work), and
// its end. With straight set (the walk's stretches), a stretch also ends
// once its members' bytes reach kSnapFlushBytes, and a name or value of
// kSnapStraightBytes or more is not copied: straight takes it, to be
// written from the value itself (snapshot.straight), and the bytes are
// charged as they are written. The whole-entry encoders call them with
// straight nil.
type valueSplitter interface {
	splitStart(buf []byte, ent *entry, expireMs, nowMs int64) []byte
	zsetMembers(buf []byte, ent *entry, n *zset.ZNode, count int, straight straightFn) ([]byte, *zset.ZNode, int)
	hashFields(buf []byte, ent *entry, i, count int, nowMs int64, straight straightFn) ([]byte, int, int)
	listItems(buf []byte, ent *entry, at quicklist.Iter, count int, straight straightFn) ([]byte, quicklist.Iter, int)
	splitEnd(buf []byte, ent *entry, expireMs int64) []byte
}

// straightFn takes a string an encoder would have appended to buf, to be
// written at that place in the output from where it is (snapshot.straight).
type straightFn func(buf []byte, v string) []byte

// appendStraight appends v to b, or with straight set and v long, hands
// it to straight.
func appendStraight(b []byte, v string, straight straightFn) []byte {
	if straight != nil && len(v) >= kSnapStraightBytes {
		return straight(b, v)
	}
	return append(b, v...)
}

// snapSeg is a string the snapshot writes at offset at of buf, from the
// key space rather than from a copy (snapshot.straight).
type snapSeg struct {
	at int
	v  string
}

// stringSplitter is what an encoder does to write a big string without
// a copy of its value in the snapshot's buffer (snapshot.writeString):
// the bytes before the value, of n bytes, and those after it.
type stringSplitter interface {
	stringHead(buf []byte, ent *entry, n int, expireMs int64) []byte
	stringTail(buf []byte, ent *entry, expireMs int64) []byte
}

// snapshot is a snapshot being taken. At most one runs at a time: the
// mark has room for one.
type snapshot struct {
	enc   snapEncoder
	table *keytable.Table[entry] // the key space of the instant
	// cursor is the walk's place in table (keytable.Scan); walked is set
	// once the walk has covered the table.
	cursor  uint64
	scanned bool // the cursor has covered the table
	walked  bool
	// queue holds the entries the last stretch of the walk found, to be
	// written in order, over as many turns as their sizes need.
	queue []*entry
	// part is a sorted set, a hash or a list being written a stretch per
	// turn (writeSplit): partAt its next member, partIdx its next field's
	// place (-1 at the end), or partList its next element or node (valid
	// as long as the list does not change), partExp its expiry, partNow
	// the time at which its fields are live (its count is theirs). It
	// stays pending until its end is written, so that a change to it
	// finishes it first. side gathers the keys copied on write meanwhile,
	// whose records cannot go into the middle of part's: they follow it.
	part     *entry
	partAt   *zset.ZNode
	partIdx  int
	partList quicklist.Iter
	partNow  int64
	partExp  int64
	side     []byte
	// partStr is set when part is a big string: its value is the one
	// seg, written over as many turns as its size needs.
	partStr bool
	// buf holds the bytes not yet written to the temporary file fd,
	// from bufAt on; segs the long strings of part to write between them
	// (each at its offset of buf, in order), the first from segAt on.
	// While segs are left, part is not finished, so that nothing changes
	// what they point at.
	buf     []byte
	bufAt   int
	segs    []snapSeg
	segAt   int
	fd      int
	tmp     string // the temporary file, renamed to path when complete
	path    string
	written int64
	crc     uint64 // of the bytes written, for an encoder that is checksummed
	err     error  // the first error; the walk goes on to leave every mark right
	keys    int    // the keys written
	total   int    // the keys at the instant
	peak    int    // the most bytes buf held (INFO's current_cow_peak)
	counted int    // what buf and side count in the memory budget (account)
	kept    int    // of which written before a change (copied on write)
	adopted bool   // FLUSHALL handed table over: destroy it at the end
	// heap holds the TTL timers of an adopted table's entries (their
	// heapIdx points into it).
	heap    []heap.HeapItem[entry]
	startUs uint64
	// finished receives the outcome of the fsync and the rename, done by
	// a goroutine; filed is set once the loop has it. tail, if set, then
	// runs on the loop a turn at a time; onDone is called on the loop at
	// the end.
	finished chan error
	filed    bool
	tail     snapTail
	onDone   func(s *snapshot, err error)
}

// snapTail is what a snapshot does on the loop once its file is synced,
// before it ends: the log's rewrite copies what the log gained meanwhile,
// a stretch per turn (aof_rewrite.go).
type snapTail interface {
	// step does one turn's share, or with all the whole rest at once
	// (SAVE and SHUTDOWN hold the loop anyway), and reports whether it
	// is done, and the outcome.
	step(all bool) (bool, error)
	// waits reports whether the next turn has nothing to do but wait
	// for the disk.
	waits() bool
}

// gSnap is the snapshot running, or nil.
var gSnap *snapshot

// kSnapFlushBytes is how many bytes the snapshot gathers before it
// writes them to the file: about the memory it holds between writes (a
// string larger than this, or a long name or value in a value written in
// parts, goes to the file from the key space; a sorted set or hash is
// encoded whole only if it has fewer than kSnapSplitMembers and fewer
// bytes than this). It is also about the most one stretch of a value
// written in parts encodes.
const kSnapFlushBytes = 1 << 20

// kSnapStepWork is the work one loop turn gives the walk: a quarter of
// what one connection's turn may do (kMaxTurnWork), a millisecond or two,
// so that the loop stalls less for the snapshot than for a busy client.
const kSnapStepWork = kMaxTurnWork / 4

// kSnapSplitMembers is the size from which the walk writes a sorted set
// or a hash over several turns rather than in one step; one whose names
// and values pass kSnapFlushBytes is written so too, whatever its size
// (bigValue).
const kSnapSplitMembers = 1024

// kRewriteBatch is how many members or fields one stretch of a value
// written in parts holds at most (and, from chapter 36, one command of a
// rewritten log: Redis's AOF_REWRITE_ITEMS_PER_CMD).
const kRewriteBatch = 64

// kSnapStraightBytes is the length from which a name or value of a value
// written in parts is not copied into buf but written to the file from
// the key space, in slices, as many turns as it needs.
const kSnapStraightBytes = 64 << 10

// kSnapEntryWork is what writing one key costs the walk besides its
// bytes and members: finding it in the table, its expiry, its record;
// some 300-400 ns, measured (1M small keys in 0.4 s of CPU).
const kSnapEntryWork = 5

// snapshotTemp is the temporary file of a snapshot to path: its name
// depends only on the process and path.
func snapshotTemp(path string) string {
	return filepath.Join(filepath.Dir(path), "temp-"+strconv.Itoa(os.Getpid())+"-"+filepath.Base(path))
}

// snapshotTempsRemove removes the temporary file a snapshot still running
// when the process exits leaves behind (a save or a rewrite of the log is
// not renamed then), as Redis removes its child's. It reads only what is
// fixed at start, so the signal's goroutine may call it too.
func snapshotTempsRemove() {
	os.Remove(snapshotTemp(rdbPath()))
	os.Remove(snapshotTemp(aofPath()))
}

// snapshotTempsClean removes, at start, the temporary files that earlier
// processes' saves and rewrites left in -dir (a kill -9 leaves them):
// temp-PID-NAME for the RDB file's and the log's names, whose PID is no
// process now (or is this one, reused: nothing of ours is running yet).
// A live PID may be another server sharing the directory: its file stays.
func snapshotTempsClean() {
	ents, err := os.ReadDir(aofDir)
	if err != nil {
		return // the start's own open of the files says what is wrong
	}
	for _, e := range ents {
		pid, ok := snapshotTempPid(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		if pid != os.Getpid() && unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		if err := os.Remove(filepath.Join(aofDir, e.Name())); err == nil {
			msg("removed %s, left by an earlier process's save", e.Name())
		}
	}
}

// snapshotTempPid returns the PID in name if name is a temporary file of
// snapshotTemp's for the RDB file or the log. The RDB file and the log
// themselves are not, whatever they are named (-dbfilename
// temp-1-appendonly.aof names a dump like the log's temporary file).
func snapshotTempPid(name string) (int, bool) {
	if name == rdbState.filename || name == aofFilename {
		return 0, false
	}
	rest, ok := strings.CutPrefix(name, "temp-")
	digits, base, ok2 := strings.Cut(rest, "-")
	if !ok || !ok2 || base != rdbState.filename && base != aofFilename {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
		return 0, false
	}
	return pid, true
}

// snapshotBegin starts a snapshot of the key space to path, through a
// temporary file in the same directory. The instant is now: every entry
// in the key space is marked as not yet written.
func snapshotBegin(enc snapEncoder, path string, onDone func(*snapshot, error)) (*snapshot, error) {
	tmp := snapshotTemp(path)
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: tmp, Err: err}
	}
	snapMark ^= kSnapMark
	s := &snapshot{enc: enc, table: gData.db, fd: fd, tmp: tmp, path: path,
		startUs: getMonotonicUsec(), onDone: onDone}
	s.total = gData.db.Len()
	s.buf = enc.begin(make([]byte, 0, kSnapFlushBytes), s.total, len(gData.heap))
	s.account()
	gSnap = s
	return s, nil
}

// account counts what the snapshot's buffers hold now (buf, and side,
// its copies on write) in the clients' memory budget: they are the
// clients' writes kept for the disk, as the log's buffer is. The
// snapshot's ways in (snapshotBegin, the walk, the hooks before a change,
// finish) call it on their way out, for nothing reads the budget in
// between. A buffer grows past what the budget has left rather than fail
// the snapshot: a copy on write must be made before the change it comes
// before, the buffers stay about a stretch or two (kSnapFlushBytes), and
// a save that clients' memory could make fail would let them keep the
// server from ever saving. Counted, they leave the clients that much
// less: the next one to ask for memory makes room (budgetMake).
func (s *snapshot) account() {
	n := cap(s.buf) + cap(s.side)
	inputHeld += n - s.counted
	s.counted = n
}

// pending reports whether ent is in the snapshot's instant and not yet
// written.
func (s *snapshot) pending(ent *entry) bool { return ent.klen&kSnapMark != snapMark }

// write appends ent to the snapshot now and marks it written. While a
// sorted set or hash is written in parts, ent's record goes to side, to
// follow it; if ent is that value, or side is full, or ent is big enough
// to be written in parts itself, the value is finished first. A big one
// is written in parts too, all of them now (the change waits for it),
// and flushed as they come: its whole record is never held.
func (s *snapshot) write(ent *entry) int {
	work := 0
	split := s.splits(ent)
	ss, _ := s.enc.(stringSplitter)
	bigStr := s.bigString(ent)
	if s.part != nil && (ent == s.part || split || bigStr || len(s.side) >= kSnapFlushBytes) {
		work += s.writeMore(math.MaxInt)
	}
	if !s.pending(ent) {
		return work // it was the value in parts, now written
	}
	switch {
	case split:
		return work + s.writeSplit(ent, math.MaxInt)
	case bigStr:
		return work + s.writeString(ss, ent)
	}
	ent.klen = ent.keyLen() | snapMark
	var w int
	nowMs := int64(getUnixMs())
	if s.part != nil {
		s.side, w = s.enc.entry(s.side, ent, s.expireMs(ent, nowMs), nowMs)
	} else {
		s.buf, w = s.enc.entry(s.buf, ent, s.expireMs(ent, nowMs), nowMs)
	}
	s.keys++
	s.peak = max(s.peak, len(s.buf)+len(s.side))
	if len(s.buf) >= kSnapFlushBytes {
		s.flush()
	}
	return work + w + kSnapEntryWork
}

// writeSplit writes ent for the walk, within budget if it can: a big
// sorted set, hash or string is begun, and writeMore carries it on in
// the next turns. A hash's fields, expired ones included, keep their places in
// its order while nothing changes it: a write, a field's timer and the
// reclaiming a read does (snapshotKeepPart) finish it first.
func (s *snapshot) writeSplit(ent *entry, budget int) int {
	if !s.splits(ent) && !s.bigString(ent) {
		return s.write(ent)
	}
	s.part, s.partNow = ent, int64(getUnixMs())
	s.partExp = s.expireMs(ent, s.partNow)
	s.partAt, s.partIdx, s.partList, s.partStr = nil, -1, quicklist.Iter{}, false
	if ss, ok := s.enc.(stringSplitter); ok && ent.typ() == tStr {
		// A big string: its value is the part's one stretch, written
		// from the key space in slices.
		v := ent.val()
		s.partStr = true
		s.buf = s.straight(ss.stringHead(s.buf, ent, len(v), s.partExp), v)
		return s.writeMore(budget)
	}
	switch ent.typ() {
	case tZSet:
		s.partAt = ent.obj.zset.SeekGE(negInf, "")
	case tList:
		s.partList = ent.obj.list.First()
	default:
		s.partIdx = 0
	}
	sp := s.enc.(valueSplitter)
	s.buf = sp.splitStart(s.buf, ent, s.partExp, s.partNow)
	return s.writeMore(budget)
}

// straight is the walk's straightFn: v goes to the file at buf's end,
// from where it is, when the output is written (drain).
func (s *snapshot) straight(buf []byte, v string) []byte {
	s.segs = append(s.segs, snapSeg{len(buf), v})
	return buf
}

// writeString writes the big string ent and marks it written: what
// comes before its value goes through buf, the value straight from the
// key space to the file, then what follows it.
func (s *snapshot) writeString(ss stringSplitter, ent *entry) int {
	ent.klen = ent.keyLen() | snapMark
	expireMs := s.expireMs(ent, int64(getUnixMs()))
	v := ent.val()
	s.buf = ss.stringHead(s.buf, ent, len(v), expireMs)
	s.flush()
	s.out(unsafe.Slice(unsafe.StringData(v), len(v)))
	s.buf = ss.stringTail(s.buf, ent, expireMs)
	s.keys++
	if len(s.buf) >= kSnapFlushBytes {
		s.flush()
	}
	return kSnapEntryWork + len(v)/kWorkBytes
}

// bigString reports whether ent is a string longer than kSnapFlushBytes,
// with an encoder that can write it without a copy of its value.
func (s *snapshot) bigString(ent *entry) bool {
	_, ok := s.enc.(stringSplitter)
	return ok && ent.typ() == tStr && len(ent.val()) > kSnapFlushBytes
}

// splits reports whether ent is written in parts: a sorted set, a hash or
// a list of kSnapSplitMembers or more, or of more than kSnapFlushBytes,
// with an encoder that can.
func (s *snapshot) splits(ent *entry) bool {
	if _, ok := s.enc.(valueSplitter); !ok {
		return false
	}
	switch ent.typ() {
	case tZSet:
		return ent.obj.zset.Len() >= kSnapSplitMembers || bigValue(ent)
	case tHash:
		return ent.obj.hash.StoredLen() >= kSnapSplitMembers || bigValue(ent)
	case tList: // its bytes are counted as it changes: no walk (bigValue)
		return ent.obj.list.Len() >= kSnapSplitMembers || ent.obj.list.Bytes() > kSnapFlushBytes
	}
	return false
}

// bigValue reports whether the names and values of the sorted set or
// hash ent, of fewer than kSnapSplitMembers, pass kSnapFlushBytes: few
// big members weigh as much as many small ones, and encoded whole would
// be held whole. It reads only their lengths.
func bigValue(ent *entry) bool {
	n := 0
	if ent.typ() == tZSet {
		z := ent.obj.zset
		for m := z.SeekGE(negInf, ""); m != nil && n <= kSnapFlushBytes; m = z.Offset(m, +1) {
			n += len(m.Name()) + 8
		}
		return n > kSnapFlushBytes
	}
	h := ent.obj.hash
	for i := 0; i < h.StoredLen() && n <= kSnapFlushBytes; i++ {
		p, _ := h.At(0, i)
		n += len(p.Name) + len(p.Value)
	}
	return n > kSnapFlushBytes
}

// writeMore writes members or fields of the value in parts until work
// passes budget; at its end it marks the value written and appends side.
func (s *snapshot) writeMore(budget int) int {
	// exercise: ch35-snapshot-parts
	sp := s.enc.(valueSplitter)
	work := 0
	for s.partLeft() && work < budget {
		if len(s.segs) > 0 {
			// The last stretch's long strings first, a slice a turn:
			// the next stretch waits until they are written.
			n := math.MaxInt // all of it, when a change waits
			if left := budget - work; left < math.MaxInt/kWorkBytes {
				n = max(kSnapStraightBytes, left*kWorkBytes)
			}
			work += s.drain(n)
			continue
		}
		var w int
		switch {
		case s.partAt != nil:
			s.buf, s.partAt, w = sp.zsetMembers(s.buf, s.part, s.partAt, kRewriteBatch, s.straight)
		case s.partList.Valid():
			s.buf, s.partList, w = sp.listItems(s.buf, s.part, s.partList, kRewriteBatch, s.straight)
		default:
			s.buf, s.partIdx, w = sp.hashFields(s.buf, s.part, s.partIdx, kRewriteBatch, s.partNow, s.straight)
		}
		work += w
		s.peak = max(s.peak, len(s.buf)-s.bufAt+len(s.side))
		if len(s.buf) >= kSnapFlushBytes && len(s.segs) == 0 {
			s.flush()
		}
	}
	if s.partLeft() {
		return work
	}
	ent := s.part
	s.part = nil
	if s.partStr {
		s.partStr = false
		s.buf = s.enc.(stringSplitter).stringTail(s.buf, ent, s.partExp)
	} else {
		s.buf = sp.splitEnd(s.buf, ent, s.partExp)
	}
	ent.klen = ent.keyLen() | snapMark
	s.keys++
	work += kSnapEntryWork + len(s.side)/kWorkBytes
	s.buf = append(s.buf, s.side...)
	s.side = shrunk(s.side[:0])
	s.peak = max(s.peak, len(s.buf))
	if len(s.buf) >= kSnapFlushBytes {
		s.flush()
	}
	return work
	// end exercise: ch35-snapshot-parts
}

// partLeft reports whether the value in parts has members, fields,
// elements or long strings left to write.
func (s *snapshot) partLeft() bool {
	return s.partAt != nil || s.partIdx >= 0 || s.partList.Valid() || len(s.segs) > 0
}

// shrunk returns b, or a new buffer if b has grown past a few times the
// flush size (for a big value), so that the snapshot does not hold on to
// the most any one value needed.
func shrunk(b []byte) []byte {
	if cap(b) > 4*kSnapFlushBytes {
		return make([]byte, 0, kSnapFlushBytes)
	}
	return b
}

// expireMs returns the unix time at which ent's TTL ends, -1 for none:
// entryExpireMs, but from the adopted timers for an adopted entry.
func (s *snapshot) expireMs(ent *entry, nowMs int64) int64 {
	if !s.adopted || ent.heapIdx == -1 {
		return entryExpireMs(ent, nowMs)
	}
	return timerUnixMs(s.heap[ent.heapIdx].Val)
}

// flush writes the gathered bytes to the file. The kernel takes them into
// its page cache: the disk is reached only by the fsync at the end, which
// a goroutine does.
func (s *snapshot) flush() {
	s.drain(math.MaxInt)
}

// drain writes the output in order, buf's bytes and the long strings of
// segs between them, until limit bytes of segs are written or none is
// left; what buf holds after the last is left gathered, unless limit is
// math.MaxInt (a flush), which writes it all. It returns the work: the
// bytes of segs written, over kWorkBytes (buf's were charged as they
// were encoded).
func (s *snapshot) drain(limit int) int {
	done := 0
	for done < limit && len(s.segs) > 0 {
		seg := &s.segs[0]
		if s.bufAt < seg.at {
			s.out(s.buf[s.bufAt:seg.at])
			s.bufAt = seg.at
		}
		n := min(len(seg.v)-s.segAt, limit-done)
		s.out(unsafe.Slice(unsafe.StringData(seg.v[s.segAt:]), n))
		s.segAt += n
		done += n
		if s.segAt == len(seg.v) {
			s.segs[0] = snapSeg{} // keep no value alive
			s.segs, s.segAt = s.segs[1:], 0
		}
	}
	if len(s.segs) > 0 {
		return done / kWorkBytes
	}
	if limit == math.MaxInt {
		s.out(s.buf[s.bufAt:])
		s.buf = shrunk(s.buf[:0])
	} else {
		s.buf = append(s.buf[:0], s.buf[s.bufAt:]...)
	}
	s.bufAt, s.segs = 0, nil
	return done / kWorkBytes
}

// out writes b to the file, and counts it in the checksum.
func (s *snapshot) out(b []byte) {
	s.crc = crc64Jones(s.crc, b)
	for s.err == nil && len(b) > 0 {
		n, err := unix.Write(s.fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			s.err = &os.PathError{Op: "write", Path: s.tmp, Err: err}
			break
		}
		b = b[n:]
		s.written += int64(n)
	}
}

// snapshotBeforeWrite runs before the command c changes the key space:
// the keys it names that the running snapshot has not written yet are
// written now, as they are. A row that says where its keys are is taken
// at its word; any other write command may name keys anywhere, so each
// of its arguments that is a key counts (writing a key early is always
// right, as long as it has not changed since the instant).
func snapshotBeforeWrite(c *command, args [][]byte) {
	s := gSnap
	if s == nil || s.walked || c.flags&flagWrite == 0 || s.table != gData.db {
		return
	}
	first, last, step := c.first, c.last, c.step
	if first <= 0 || step <= 0 {
		first, last, step = 1, -1, 1
	}
	if last < 0 {
		last += len(args)
	}
	for i := first; i <= last && i < len(args); i += step {
		if ent := lookupEntry(args[i]); ent != nil && s.pending(ent) {
			workDone += s.write(ent)
			s.kept++
		}
	}
	s.account()
}

// snapshotKeep writes ent into the running snapshot, if it is due there,
// before it is deleted or changed by the loop itself (a TTL's timer).
func snapshotKeep(ent *entry) {
	if s := gSnap; s != nil && !s.walked && s.pending(ent) {
		workDone += s.write(ent)
		s.kept++
		s.account()
	}
}

// snapshotKeepPart finishes the value the running snapshot is writing in
// parts, if it is ent, before a read may change it: a hash's expired
// fields reclaimed (hashes' lazy expiry, HRANDFIELD's) move others in its
// order. Any other entry may lose its expired fields as they are: the
// snapshot leaves them out anyway.
func snapshotKeepPart(ent *entry) {
	if s := gSnap; s != nil && s.part == ent {
		workDone += s.writeMore(math.MaxInt)
		s.account()
	}
}

// snapshotAdopt takes the key space FLUSHALL just replaced, if the
// running snapshot still walks it: the snapshot finishes it, then tears
// it down. It reports whether it did.
func snapshotAdopt(old *keytable.Table[entry]) bool {
	s := gSnap
	if s == nil || s.walked || s.table != old {
		return false
	}
	s.adopted = true
	s.heap = gData.heap // the adopted entries' TTL timers
	return true
}

// snapshotStep walks the running snapshot on by one turn's work, and once
// the walk is done and the file complete, does a turn of its tail or
// finishes it. It also starts the saves the -save rules call for
// (rdb_write.go).
func snapshotStep() {
	s := gSnap
	if s == nil {
		rdbCron()
		return
	}
	if !s.walked {
		s.walk(kSnapStepWork)
		return
	}
	s.afterWalk(false)
}

// afterWalk does what follows the walk: it picks up the outcome of the
// file's sync, then runs the tail, if any, and at the end finishes the
// snapshot. It does one turn's share, or with all the whole of it,
// waiting for the disk where it must. It reports whether the snapshot
// ended, and the outcome.
func (s *snapshot) afterWalk(all bool) (bool, error) {
	if !s.filed {
		var err error
		if all {
			err = <-s.finished
		} else {
			select {
			case err = <-s.finished:
			default:
				return false, nil
			}
		}
		s.filed = true
		if err != nil || s.tail == nil {
			s.finish(err)
			return true, err
		}
	}
	done, err := s.tail.step(all)
	if done {
		s.finish(err)
	}
	return done, err
}

// complete takes the snapshot to its end at once, blocking the loop, and
// returns its outcome.
func (s *snapshot) complete() error {
	for !s.walked {
		s.walk(1 << 30)
	}
	_, err := s.afterWalk(true)
	return err
}

// walk writes the next entries of the walk, until work passes budget; at
// the end of the table it closes the file's content and hands the file to
// a goroutine to fsync and rename.
func (s *snapshot) walk(budget int) {
	work := 0
	for work < budget && !s.walked {
		switch {
		case s.part != nil:
			work += s.writeMore(budget - work)
			continue
		case len(s.queue) > 0:
			// An entry written early since the stretch was found (a
			// write copied it) is not pending any more: skipped.
			ent := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			if s.pending(ent) {
				work += s.writeSplit(ent, budget-work)
			}
			continue
		case s.scanned:
			s.walked = true
			continue
		}
		// A stretch of at most the budget left in slots: the entries
		// it holds are at most that many, plus those of its last run.
		count := max(1, min(256, budget-work))
		next, w := s.table.Scan(s.cursor, count, budget-work, func(ents []*entry) bool {
			for _, ent := range ents {
				if s.pending(ent) {
					s.queue = append(s.queue, ent)
				}
			}
			return true
		})
		work += w + 1
		s.cursor = next
		s.scanned = next == 0
	}
	if !s.walked {
		s.account()
		return
	}
	s.buf = s.enc.end(s.buf)
	if _, ok := s.enc.(interface{ checksummed() }); ok {
		s.buf = binary.LittleEndian.AppendUint64(s.buf, crc64Jones(s.crc, s.buf))
	}
	s.flush()
	s.buf, s.side = nil, nil
	s.account()
	if s.adopted {
		old := s.table
		gData.tp.Queue(func() { old.All(entryDestroy) })
	}
	s.table = nil
	s.finished = make(chan error, 1)
	fd, tmp, path, err := s.fd, s.tmp, s.path, s.err
	go func() { s.finished <- syncAndRename(fd, tmp, path, err) }()
}

// syncAndRename makes the complete temporary file the file at path:
// fsync it, rename it over path, fsync the directory so that the rename
// survives a crash. Until the rename the previous file stays whole. With
// no path it only syncs and closes (the log's rewrite renames on the
// loop). On an earlier error it closes and removes the temporary file.
func syncAndRename(fd int, tmp, path string, err error) error {
	if err == nil {
		if e := unix.Fsync(fd); e != nil {
			err = &os.PathError{Op: "fsync", Path: tmp, Err: e}
		}
	}
	if e := unix.Close(fd); e != nil && err == nil {
		err = &os.PathError{Op: "close", Path: tmp, Err: e}
	}
	if err == nil && path != "" {
		err = os.Rename(tmp, path)
		if err == nil {
			err = syncDirErr(filepath.Dir(path))
		}
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// syncDirErr fsyncs the directory dir, so that a rename in it is on disk,
// and returns the error.
func syncDirErr(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil && !errors.Is(err, unix.EINVAL) {
		return &os.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

// finish ends the snapshot, on the loop, with the goroutine's outcome.
func (s *snapshot) finish(err error) {
	gSnap = nil
	s.buf, s.side = nil, nil // given back to the budget, if the walk did not
	s.account()
	s.onDone(s, err)
}

// snapshotRun takes a snapshot to the end at once, blocking the loop (as
// SAVE and SHUTDOWN do in Redis), and returns its outcome.
func snapshotRun(enc snapEncoder, path string) error {
	s, err := snapshotBegin(enc, path, func(*snapshot, error) {})
	if err != nil {
		return err
	}
	return s.complete()
}

// snapNextUs returns when the loop must wake for the snapshot: at once
// while it walks or its tail has work, each millisecond while it waits
// for the disk, and each second while the -save rules may call for one.
func snapNextUs(nowUs uint64) uint64 {
	switch {
	case gSnap != nil && (!gSnap.walked || gSnap.filed && !gSnap.tail.waits()):
		return nowUs
	case gSnap != nil:
		return nowUs + 1000
	case rdbRulesMayFire():
		return nowUs + 1000_000
	}
	return ^uint64(0)
}

// snapshotInfo writes INFO persistence's fields of the snapshot running,
// with Redis's names: what it holds in memory (Redis's copy-on-write
// pages; here the bytes gathered before a write to the file, a value
// copied before its change included) and how far it is.
func snapshotInfo(field func(k string, v any)) {
	held, peak, done, total := 0, 0, 0, 0
	if s := gSnap; s != nil {
		held, peak, done, total = len(s.buf)+len(s.side), s.peak, s.keys, s.total
	}
	field("current_cow_peak", peak)
	field("current_cow_size", held)
	field("current_save_keys_processed", done)
	field("current_save_keys_total", total)
}

// snapshotRows are the rows of the command table this chapter adds.
func snapshotRows() []*command {
	return append(rdbRows(), aofRewriteRows()...)
}
