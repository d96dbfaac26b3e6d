package server

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The append-only file. Every command that changed the key space is
// appended to a buffer in RESP, as Redis propagates it (aofEnd, with the
// rules of aof_rules.go); the buffer is written to the file before any
// reply that depends on it is sent (aofBeforeReply), and the file is
// fsynced as -appendfsync says (aofBeforeSleep for always, a worker for
// everysec: aof_fsync.go). At start the file is replayed through the
// command table (aof_load.go).

// The settings, with Redis's names and defaults.
var (
	aofOn       bool
	aofDir      = "."
	aofFilename = "appendonly.aof"
	aofPolicy   = fsyncEverysec
)

// The -appendfsync policies.
const (
	fsyncAlways   = "always"
	fsyncEverysec = "everysec"
	fsyncNo       = "no"
)

// The log's state. Offsets count the file's bytes from its start: what
// is in the file (aofWritten), what the kernel was told to keep
// (aofSynced, which the everysec worker moves), and aofBuf, the commands
// appended and not yet written.
var (
	aofFd  = -1
	aofBuf []byte
	// aofRefs are the long arguments of the records in aofBuf, held by
	// reference, not copied (aofAppend); aofRefBytes is their length.
	aofRefs     []aofRef
	aofRefBytes int
	// aofCounted is what the buffer and aofRefs count in the memory
	// budget (inputHeld): their capacities (aofAccount).
	aofCounted int
	aofWritten int64
	aofSynced  atomic.Int64
	// aofCmds counts the commands appended, so that a command that
	// appends more than one is wrapped in MULTI/EXEC (aofEnd).
	aofCmds int
	// aofDirty is bumped by every change to the key space (touchKey):
	// a command that left it alone is not logged.
	aofDirty uint64
	// aofDepth is how many commands are running: 2 while EXEC runs its
	// commands, which are wrapped once, around all of them.
	aofDepth int
	// aofOuter is the mark of the command running at depth 1 (EXEC, for
	// one), and aofTxOpen says its MULTI is in the log already: when the
	// buffer is written while it runs (a transaction that logged more
	// than kAOFTxPiece, see aofEnd), its records go with a MULTI first.
	aofOuter  aofMark
	aofTxOpen bool
	// aofErrInCmd says the write error came while a command ran: a
	// transaction runs whole, and writes are refused once it has ended.
	aofErrInCmd bool
	// aofLoading is set while the file is replayed: nothing is appended,
	// and an expiry time already past sets a timer instead of deleting
	// (the timers, which do not run until the loop does, delete the key
	// and log that).
	aofLoading bool
	// aofWriteErr is the last write's error, nil once a write succeeds:
	// while it is set, writes are refused (aofRefusal).
	aofWriteErr error
	// aofHeld are the connections whose replies wait for the log up to
	// the offset given: for its fsync under always; under everysec and
	// no, for its write, when the write of their records failed.
	aofHeld = map[*conn]int64{}
)

// aofFlags adds the flags of the log to fs, with Redis's names; the
// function returned checks them once fs is parsed.
func aofFlags(fs *flag.FlagSet) func() error {
	on := fs.String("appendonly", "no", "`yes` to log every write to the append-only file and replay it at start")
	dir := fs.String("dir", aofDir, "the `directory` of the append-only file")
	name := fs.String("appendfilename", aofFilename, "the append-only file's `name`, in -dir")
	policy := fs.String("appendfsync", aofPolicy, "when the log reaches the disk: `always` (before the reply), everysec (a worker, each second) or no (when the kernel likes)")
	return func() error {
		switch *on {
		case "yes", "no":
			aofOn = *on == "yes"
		default:
			return fmt.Errorf("-appendonly must be yes or no, not %q", *on)
		}
		switch *policy {
		case fsyncAlways, fsyncEverysec, fsyncNo:
			aofPolicy = *policy
		default:
			return fmt.Errorf("-appendfsync must be always, everysec or no, not %q", *policy)
		}
		if *name == "" || strings.ContainsRune(*name, '/') {
			return fmt.Errorf("-appendfilename must be a file name, without a directory: %q", *name)
		}
		aofDir, aofFilename = *dir, *name
		respConfigSet("appendonly", *on)
		respConfigSet("appendfsync", aofPolicy)
		respConfigSet("appendfilename", aofFilename)
		respConfigSet("dir", aofDir)
		return nil
	}
}

// aofPath is the log's path.
func aofPath() string { return filepath.Join(aofDir, aofFilename) }

// aofStart replays the log, if the server keeps one, and opens it for
// appending. A log damaged before its last command stops the server: it
// must not start with less than the log holds.
func aofStart() error {
	if !aofOn {
		return nil
	}
	size, err := aofLoad(aofPath())
	if err != nil {
		return err
	}
	fd, err := unix.Open(aofPath(), unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("opening the append-only file: %w", err)
	}
	if size == 0 {
		// A new file's name is in the directory only once the directory
		// is synced too.
		syncDir(aofDir)
	}
	aofFd = fd
	aofWritten = size
	aofWrittenShared.Store(size)
	aofSynced.Store(size)
	if aofPolicy == fsyncEverysec {
		go aofFsyncWorker()
	}
	return nil
}

// syncDir fsyncs the directory dir, for a file just created in it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// An argument of kAOFRefMin bytes or more is not copied into the log's
// buffer: the buffer holds a reference to it (aofRef), and its bytes go
// from where they are to the file, with the buffer's around them, in one
// writev (aofWrite). The arguments of a request are already held, in the
// read buffer (counted in the budget); a copy would hold them twice, and
// a 200 MiB MSET with the log on held its values three times over while
// append grew the buffer. A reference lives no longer than the command
// that made it: aofEnd writes it, or copies it into the buffer if the
// write fails (aofOwn), before the arguments' memory is used again or a
// value taken from the key space (ent.val) changes.
const kAOFRefMin = 1024

// aofRef is a long argument of a record, whose bytes go before aofBuf[at].
type aofRef struct {
	at int
	b  []byte
}

// kAOFRefSize is what one aofRef takes in aofRefs.
const kAOFRefSize = int(unsafe.Sizeof(aofRef{}))

// aofLen is the length of what the log holds and has not written: the
// buffer's bytes and its references'.
func aofLen() int { return len(aofBuf) + aofRefBytes }

// aofAccount brings the budget's count of the log's memory up to date
// with the capacities of aofBuf and aofRefs. The log belongs to no
// connection, so no one is closed for it; the room for a record is made
// before its command runs (aofRoom), and what still grows past it is
// counted as it grows.
func aofAccount() {
	now := cap(aofBuf) + cap(aofRefs)*kAOFRefSize
	inputHeld += now - aofCounted
	aofCounted = now
}

// aofGrow makes room in aofBuf for n more bytes: at least doubling, so
// that a buffer grown a record at a time is copied a constant number of
// times over, and counted in the budget (aofAccount).
func aofGrow(n int) {
	if cap(aofBuf)-len(aofBuf) >= n {
		return
	}
	grown := make([]byte, len(aofBuf), max(2*cap(aofBuf), len(aofBuf)+n, 4096))
	chargeBytes(copy(grown, aofBuf))
	aofBuf = grown
	aofAccount()
}

// aofOwnedSize is how many bytes of aofBuf the record of args takes:
// all but the long arguments' own.
func aofOwnedSize(args [][]byte) int {
	n := 1 + 20 + 2
	for _, a := range args {
		n += 1 + 20 + 2 + 2
		if len(a) < kAOFRefMin {
			n += len(a)
		}
	}
	return n
}

// aofCost is what logging the write c with args may cost in work, for
// EXEC's estimate: its record's bytes, as given; twice that for a row
// logged by a rule, which may name the key and the fields again (a TTL
// beside the values: aof_rules.go); and a record's room more, for a
// PEXPIREAT and a MULTI and EXEC around them.
func aofCost(c *command, args [][]byte) int {
	if aofFd < 0 || c.flags&flagWrite == 0 {
		return 0
	}
	n := len("*\r\n") + 20 + argBytes(args) + len(args)*(len("$\r\n\r\n")+20)
	if _, ruled := aofRules[c.name]; ruled {
		n *= 2
	}
	if len(args) > 1 {
		n += len(args[1])
	}
	return (n + 256) / kWorkBytes
}

// aofAppend appends one command to the log's buffer, in RESP, its long
// arguments by reference. The bytes are charged as work: the buffer's as
// they are copied, the references' for the kernel's copy when written.
func aofAppend(args ...[]byte) {
	aofGrow(aofOwnedSize(args))
	start := len(aofBuf)
	aofBuf = append(aofBuf, '*')
	aofBuf = strconv.AppendInt(aofBuf, int64(len(args)), 10)
	aofBuf = append(aofBuf, '\r', '\n')
	refs := 0
	for _, a := range args {
		aofBuf = append(aofBuf, '$')
		aofBuf = strconv.AppendInt(aofBuf, int64(len(a)), 10)
		aofBuf = append(aofBuf, '\r', '\n')
		if len(a) >= kAOFRefMin {
			aofRefs = append(aofRefs, aofRef{at: len(aofBuf), b: a})
			aofRefBytes += len(a)
			refs += len(a)
		} else {
			aofBuf = append(aofBuf, a...)
		}
		aofBuf = append(aofBuf, '\r', '\n')
	}
	if refs > 0 {
		aofAccount() // aofRefs may have grown
	}
	chargeBytes(len(aofBuf) - start + refs)
	aofCmds++
}

// aofView is the bytes of s, not copied, for a rule to log a value of the
// key space as it is: the log only reads them, and not after the command
// ends (kAOFRefMin), when the value may change (writeAt).
func aofView(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// aofAppendStrings is aofAppend for arguments held as strings.
func aofAppendStrings(args ...string) {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = aofView(a)
	}
	aofAppend(b...)
}

// aofMark is what aofBegin notes before a command runs, for aofEnd.
type aofMark struct {
	dirty uint64
	buf   int
	cmds  int
	// before is what the command's rule noted before it ran (aofRule's
	// before), for the rule to log only what changed.
	before []int64
}

// aofBegin notes the log's state before the command c runs with args.
func aofBegin(c *command, args [][]byte) aofMark {
	aofDepth++
	m := aofMark{dirty: aofDirty, buf: len(aofBuf), cmds: aofCmds}
	if aofFd >= 0 && !aofLoading && c.flags&flagWrite != 0 {
		if rule := aofRules[c.name]; rule.before != nil {
			m.before = rule.before(args)
		}
	}
	if aofDepth == 1 {
		aofOuter = m
	}
	return m
}

// kAOFTxPiece is how much of a running transaction the log's buffer
// holds before it is written: EXEC's commands may log up to its work
// bound (hundreds of MiB), which would take that much of the memory
// budget, and put in front of them at the end, a MULTI would move them
// all. (So EXEC makes room for a piece and its largest record: aofRoom.)
const kAOFTxPiece = 1 << 20

// aofEnd logs the command c with args, which has just run, if it changed
// the key space: as its rule in aofRules says, or as it was given.
// book says it came through the book's protocol. A command logged as
// more than one, and those of EXEC (a command that runs commands), are
// wrapped in MULTI/EXEC, so a replay applies all or none of them.
func aofEnd(c *command, args [][]byte, m aofMark, book bool) {
	aofDepth--
	if aofDepth == 0 {
		aofErrInCmd = false
	}
	if aofFd < 0 || aofLoading {
		return
	}
	if rule := aofRules[c.name]; c.flags&flagWrite != 0 && (aofDirty != m.dirty || rule.always) {
		fn := rule.resp
		if book {
			fn = rule.book
		}
		if fn != nil {
			aofNoted = m.before
			fn(args)
			aofNoted = nil
		} else {
			aofAppend(args...)
		}
	}
	switch {
	case aofDepth > 0 && aofLen() > kAOFTxPiece && aofWriteErr == nil:
		aofWrite() // a big transaction goes to the file as it runs
	case aofDepth == 0 && aofTxOpen:
		aofAppendStrings("EXEC")
		aofTxOpen = false
	case aofDepth == 0 && aofCmds-m.cmds > 1:
		// MULTI ... EXEC around them: all or none on replay. (Its mark
		// is aofOuter, whose place a write meanwhile moved.)
		aofMulti(aofOuter.buf)
		aofAppendStrings("EXEC")
	}
	if len(aofRefs) > 0 {
		// The references go no further than the command that made them:
		// to the file now (inside EXEC, its MULTI first: aofWrite), or,
		// if the write fails, into the buffer.
		if aofWriteErr == nil {
			aofWrite()
		}
		aofOwn()
	}
}

// aofMulti puts MULTI before the commands appended from aofBuf[at:]:
// the bytes after it move along within the buffer, and the references
// after it with them.
func aofMulti(at int) {
	const multi = "*1\r\n$5\r\nMULTI\r\n"
	aofGrow(len(multi))
	end := len(aofBuf)
	aofBuf = aofBuf[:end+len(multi)]
	chargeBytes(copy(aofBuf[at+len(multi):], aofBuf[at:end]))
	copy(aofBuf[at:], multi)
	for i := range aofRefs {
		if aofRefs[i].at >= at {
			aofRefs[i].at += len(multi)
		}
	}
	aofCmds++
}

// aofOwn copies the references' bytes into the buffer, for a write that
// failed: the arguments they point into are gone once the command ends.
// The copy is counted in the budget (aofAccount), past it if it must:
// the command has run, and its record must stay until it is written.
func aofOwn() {
	if len(aofRefs) == 0 {
		return
	}
	own := make([]byte, 0, aofLen())
	prev := 0
	for _, r := range aofRefs {
		own = append(append(own, aofBuf[prev:r.at]...), r.b...)
		prev = r.at
	}
	own = append(own, aofBuf[prev:]...)
	chargeBytes(len(own))
	aofBuf, aofRefs, aofRefBytes = own, nil, 0
	aofAccount()
}

// kAOFRecordMin is the room a write is sure to find in the log's buffer
// without asking the budget: that of its small records (a DEL, a
// PEXPIREAT), which the budget need not weigh one at a time.
const kAOFRecordMin = 256

// aofRoom makes room in the log's buffer, before the write c runs with
// args (or EXEC with the writes queued, cmds), for the records it logs,
// as given, within the memory budget; and returns the error that refuses
// it if the budget cannot hold them, as Redis refuses a client past its
// limits: nothing has run. conn is the connection asking (see budgetMake).
// A rule that logs more than the command as given grows the buffer past
// the room made, counted as it grows.
func aofRoom(conn *conn, cmds ...[][]byte) string {
	if aofFd < 0 || aofLoading {
		return ""
	}
	need, most := 0, 0
	for _, args := range cmds {
		n := aofOwnedSize(args)
		need, most = need+n, max(most, n)
	}
	if len(cmds) > 1 {
		// MULTI and EXEC; and the buffer is written once it passes
		// kAOFTxPiece, so it holds at most a piece and a record more.
		need = min(need, kAOFTxPiece+most) + 64
	}
	if cap(aofBuf)-len(aofBuf) >= max(need, kAOFRecordMin) {
		return ""
	}
	// Doubling if the budget has room, else just what is needed. The old
	// buffer is held while it is copied: the budget must have room for
	// the new one whole.
	need = max(need, kAOFRecordMin)
	size := max(2*cap(aofBuf), len(aofBuf)+need)
	if !budgetMake(conn, size) {
		size = len(aofBuf) + need
		if !budgetMake(conn, size) {
			return errLogMemory
		}
	}
	grown := make([]byte, len(aofBuf), size)
	chargeBytes(copy(grown, aofBuf))
	aofBuf = grown
	aofAccount()
	return ""
}

// errLogMemory refuses a write whose record the log's buffer cannot
// hold within the memory budget.
const errLogMemory = "ERR the server's memory for clients is full (-max-output-mb): no room for the write's record in the append-only file's buffer; try again later"

// aofExpired logs the deletion of a key whose TTL came due, as Redis
// does: a command written to the key before its TTL came due must find
// it on replay, and one written after must not.
func aofExpired(key string) {
	if aofFd >= 0 && !aofLoading {
		aofAppendStrings("DEL", key)
	}
}

// aofRefusal returns the error that refuses a write while the log cannot
// be written, as Redis's, or "".
func aofRefusal(c *command) string {
	if aofWriteErr == nil || c.flags&flagWrite == 0 || aofErrInCmd {
		return ""
	}
	return "MISCONF Errors writing to the AOF file: " + strerror(aofWriteErr)
}

// strerror is C's strerror for err: Go's text, which is C's, lower-cased.
func strerror(err error) string {
	var errno unix.Errno
	s := err.Error()
	if errors.As(err, &errno) {
		s = errno.Error()
	}
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// aofWrite writes the buffer to the file. A write that fails, or writes
// only part of it, is undone (the file is cut back to what it held) and
// the buffer kept, to be written again; until then writes are refused.
func aofWrite() {
	if aofFd < 0 || aofLen() == 0 {
		return
	}
	if aofDepth > 0 && !aofTxOpen {
		if aofCmds > aofOuter.cmds {
			// The records of a command still running (EXEC, say) leave
			// the buffer: its MULTI goes first, and aofEnd adds its EXEC.
			// A crash before that leaves a MULTI without one, which the
			// replay drops whole (aof_load.go).
			aofMulti(aofOuter.buf)
			aofTxOpen = true
		} else {
			// It has logged nothing yet: its records will begin after
			// what the buffer still holds once written.
			defer func() { aofOuter.buf = len(aofBuf) }() // (references left sit after this offset)
		}
	}
	n, err := aofWritev()
	if err != nil {
		if n > 0 && unix.Ftruncate(aofFd, aofWritten) != nil {
			// The part written stays: go on after it.
			aofWritten += int64(n)
			aofWrittenShared.Store(aofWritten)
			aofDrop(n)
		}
		if aofWriteErr == nil {
			msg("error writing to the append-only file: %v", err)
		}
		aofWriteErr = err
		aofErrInCmd = aofErrInCmd || aofDepth > 0
		return
	}
	aofWritten += int64(n)
	aofWrittenShared.Store(aofWritten)
	aofBuf, aofRefs, aofRefBytes = aofBuf[:0], aofRefs[:0], 0
	if cap(aofBuf) > 1<<20 && aofDepth == 0 {
		aofBuf = nil // a large request's buffer is not kept
	}
	if cap(aofRefs) > 1<<10 {
		aofRefs = nil
	}
	aofAccount()
	if aofWriteErr != nil {
		msg("the append-only file can be written again")
		aofWriteErr = nil
	}
}

// kIOVMax is the most pieces one writev takes (Linux's IOV_MAX).
const kIOVMax = 1024

// aofWritev writes what the log holds, the buffer's bytes and the
// references' in their order, with as few writevs as IOV_MAX allows, and
// returns the bytes written; a short write is the disk full (ENOSPC).
func aofWritev() (int, error) {
	iov := make([][]byte, 0, min(2*len(aofRefs)+1, kIOVMax))
	written, prev := 0, 0
	flush := func() error {
		want := 0
		for _, b := range iov {
			want += len(b)
		}
		n, err := unix.Writev(aofFd, iov)
		if n > 0 {
			written += n
		}
		iov = iov[:0]
		if err == nil && n < want {
			err = unix.ENOSPC
		}
		return err
	}
	add := func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		iov = append(iov, b)
		if len(iov) == kIOVMax {
			return flush()
		}
		return nil
	}
	for _, r := range aofRefs {
		if err := add(aofBuf[prev:r.at]); err != nil {
			return written, err
		}
		if err := add(r.b); err != nil {
			return written, err
		}
		prev = r.at
	}
	if err := add(aofBuf[prev:]); err != nil || len(iov) == 0 {
		return written, err
	}
	return written, flush()
}

// aofDrop drops the first n bytes of what the log holds (written, and
// kept in the file after a failed write).
func aofDrop(n int) {
	// The references' bytes before the cut are bytes of the buffer's
	// order too: find the buffer's offset the cut falls at.
	skip, at := n, 0
	i := 0
	for ; i < len(aofRefs); i++ {
		r := &aofRefs[i]
		if skip <= r.at-at {
			break
		}
		skip -= r.at - at
		at = r.at
		if skip < len(r.b) {
			// The cut is inside this reference: keep its rest.
			aofRefBytes -= skip
			r.b = r.b[skip:]
			skip = 0
			break
		}
		skip -= len(r.b)
		aofRefBytes -= len(r.b)
	}
	cut := at + skip
	aofRefs = aofRefs[:copy(aofRefs, aofRefs[i:])]
	for j := range aofRefs {
		aofRefs[j].at -= cut
	}
	aofBuf = aofBuf[:copy(aofBuf, aofBuf[cut:])]
}

// aofTurnMark returns what aofHold compares with to tell whether a
// connection's turn appended to the log.
func aofTurnMark() int { return aofCmds }

// aofHold writes the log before conn's replies are sent, and reports
// whether they must wait (aofBeforeSleep sends them): under always, for
// its fsync, those of a turn that appended to the log, and any after
// them; under everysec and no, for its write, those of a turn whose
// records a failing write left in the buffer. mark is aofTurnMark from
// the start of the turn.
func aofHold(conn *conn, mark int) bool {
	if aofFd < 0 {
		return false
	}
	aofWrite() // write(2): from here a crash of the process loses nothing
	if aofPolicy != fsyncAlways {
		// A reply sent while the write is still to do (the disk is full)
		// would acknowledge what a crash loses.
		_, held := aofHeld[conn]
		if held || aofCmds != mark && aofLen() > 0 {
			aofHeld[conn] = aofWritten + int64(aofLen())
			return true
		}
		return false
	}
	// Its replies wait for the fsync if it wrote, or if they may show a
	// write in the file but not yet on the disk (another connection's,
	// earlier in this iteration): Redis too sends every reply after the
	// fsync. (What a failing write left in the buffer does not hold
	// them: reads go on while the disk is full.)
	need := aofWritten + int64(aofLen())
	if _, held := aofHeld[conn]; held || aofCmds != mark || aofSynced.Load() < aofWritten {
		aofHeld[conn] = need
		return true
	}
	return false
}

// aofWaits reports whether conn's replies wait for the log.
func aofWaits(conn *conn) bool {
	_, held := aofHeld[conn]
	return held
}

// aofBeforeSleep ends each loop iteration: it writes the log, fsyncs it
// under always, once for every connection whose replies wait, and sends
// those whose wait is over. A failed fsync under always ends the server,
// as in Redis: the kernel may have dropped the pages it could not write,
// and a second fsync would report them safe.
func aofBeforeSleep() {
	if aofFd < 0 {
		return
	}
	aofWrite()
	if len(aofHeld) == 0 {
		return
	}
	done := aofWritten // under everysec and no, a reply waits for write(2)
	if aofPolicy == fsyncAlways {
		if aofSynced.Load() < aofWritten {
			if err := fdatasync(aofFd); err != nil {
				msg("fsync of the append-only file failed under appendfsync always: %v; exiting", err)
				logFlush(0)
				os.Exit(1)
			}
			aofSynced.Store(aofWritten)
		}
		done = aofSynced.Load()
	}
	for conn, need := range aofHeld {
		if need > done {
			continue // its log is not written yet (a write error)
		}
		delete(aofHeld, conn)
		if gData.fd2conn[conn.fd] != conn {
			continue // closed meanwhile
		}
		tryFlushBuffer(conn)
		if conn.state == stateEnd {
			connHungUp(conn)
		} else {
			connWatch(conn)
		}
	}
}

// aofNextUs is when the loop must wake up for the log: soon while a
// write failed (it is tried again), else never (math.MaxUint64).
func aofNextUs(nowUs uint64) uint64 {
	if aofWriteErr != nil {
		return nowUs + 100_000
	}
	return ^uint64(0)
}

// aofInfo writes the fields of INFO's persistence section, with Redis's
// names: those redis-cli and client libraries read.
func aofInfo(field func(k string, v any)) {
	status := "ok"
	if aofWriteErr != nil || aofFsyncFailed.Load() {
		status = "err"
	}
	field("loading", b2i(aofLoading))
	field("async_loading", 0)
	field("rdb_changes_since_last_save", 0)
	field("aof_enabled", b2i(aofOn))
	field("aof_rewrite_in_progress", 0)
	field("aof_rewrite_scheduled", 0)
	field("aof_last_rewrite_time_sec", -1)
	field("aof_current_rewrite_time_sec", -1)
	field("aof_last_bgrewrite_status", "ok")
	field("aof_rewrites", 0)
	field("aof_last_write_status", status)
	if aofOn {
		field("aof_current_size", aofWritten+int64(aofLen()))
		field("aof_buffer_length", aofLen())
		field("aof_pending_bio_fsync", b2i(aofSynced.Load() < aofWritten))
	}
}

// b2i is 1 for true, 0 for false, as INFO writes flags.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// codeMisconf is the book's protocol's error code for a write refused
// while the log cannot be written: a code past the book's four.
const codeMisconf = 5
