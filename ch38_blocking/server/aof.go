package server

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	aofFd      = -1
	aofBuf     []byte
	aofCounted int // what aofBuf counts in the memory budget (aofAccount)
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
	// aofOuter is the mark of the command running at depth 1 (EXEC, say),
	// and aofTxOpen says its MULTI is in the log already, the buffer
	// written while it ran (past kAOFTxPiece, see aofEnd).
	aofOuter  aofMark
	aofTxOpen bool
	// aofErrInCmd says the write error came while a command ran: a
	// transaction runs whole, and writes are refused once it has ended.
	aofErrInCmd bool
	// aofLoading is set while the file is replayed: nothing is appended,
	// and an expiry time already past sets a timer, which deletes the key
	// (and logs that) once the loop runs.
	aofLoading bool
	// aofWriteErr is the last write's error, nil once a write succeeds:
	// while it is set, writes are refused (aofRefusal).
	aofWriteErr error
	// aofHeld are the connections whose replies wait for the log up to
	// the offset given: its fsync under always, its failed write else.
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
		syncDir(aofDir) // a new file's name lasts once its directory is synced
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

// aofAccount counts the log's buffer in the clients' memory budget
// (inputHeld), where aofRoom makes a write's room before it runs.
func aofAccount() {
	inputHeld += cap(aofBuf) - aofCounted
	aofCounted = cap(aofBuf)
}

// aofGrow makes room in aofBuf for n more bytes, at least doubling it.
func aofGrow(n int) {
	if cap(aofBuf)-len(aofBuf) < n {
		aofResize(max(2*cap(aofBuf), len(aofBuf)+n, 4096))
	}
}

// aofResize moves aofBuf to a buffer of size bytes.
func aofResize(size int) {
	grown := make([]byte, len(aofBuf), size)
	chargeBytes(copy(grown, aofBuf))
	aofBuf = grown
	aofAccount()
}

// aofSize is at most how many bytes the record of args takes.
func aofSize(args [][]byte) int {
	return len("*\r\n") + 20 + argBytes(args) + len(args)*(len("$\r\n\r\n")+20)
}

// aofCost is what logging the write c with args may cost in work, for
// EXEC's estimate: twice its record for a rule, which may name the key
// and fields again (aof_rules.go), and a small record's room more.
func aofCost(c *command, args [][]byte) int {
	if aofFd < 0 || c.flags&flagWrite == 0 {
		return 0
	}
	n := aofSize(args)
	if c.aof != nil {
		n *= 2
	}
	return (n + 256) / kWorkBytes
}

// aofAppend appends one command to the log's buffer, in RESP, and
// charges its bytes as work.
func aofAppend(args ...[]byte) {
	// exercise: ch33-aof-records
	aofGrow(aofSize(args))
	start := len(aofBuf)
	aofBuf = append(aofBuf, '*')
	aofBuf = strconv.AppendInt(aofBuf, int64(len(args)), 10)
	aofBuf = append(aofBuf, '\r', '\n')
	for _, a := range args {
		aofBuf = append(aofBuf, '$')
		aofBuf = strconv.AppendInt(aofBuf, int64(len(a)), 10)
		aofBuf = append(aofBuf, '\r', '\n')
		aofBuf = aofBuf[:len(aofBuf)+copyInSteps(aofBuf[len(aofBuf):cap(aofBuf)], a)]
		aofBuf = append(aofBuf, '\r', '\n')
	}
	chargeBytes(len(aofBuf) - start)
	aofCmds++
	// end exercise: ch33-aof-records
}

// aofView is the bytes of s, not copied, for a rule to log a value of the
// key space: aofAppend only reads them, into the buffer.
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
		if rule := c.rule(); rule.before != nil {
			m.before = rule.before(args)
		}
	}
	if aofDepth == 1 {
		aofOuter = m
	}
	return m
}

// aofNested reports whether the command running runs inside another, as
// EXEC's commands do.
func aofNested() bool { return aofDepth > 1 }

// kAOFTxPiece is how much of a running transaction the log's buffer
// holds before it is written: EXEC's commands may log up to its work
// bound (hundreds of MiB), all in the memory budget, and put in front
// of them at the end, a MULTI would copy them all again.
const kAOFTxPiece = 1 << 20

// aofEnd logs the command c with args, which has just run, if it changed
// the key space: as its row's rule says, or as it was given.
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
	if rule := c.rule(); c.flags&flagWrite != 0 && (aofDirty != m.dirty || rule.always) {
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
	case aofDepth > 0 && len(aofBuf) > kAOFTxPiece && aofWriteErr == nil:
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
}

// aofMulti puts MULTI before the commands appended from aofBuf[at:].
func aofMulti(at int) {
	const multi = "*1\r\n$5\r\nMULTI\r\n"
	aofGrow(len(multi)) // so the tail moves within the buffer
	chargeBytes(len(aofBuf) - at)
	aofBuf = slices.Insert(aofBuf, at, []byte(multi)...)
	aofCmds++
}

// aofRoom makes room in the log's buffer, within the memory budget, for
// the records of a write (or EXEC's, cmds) before it runs, or refuses it
// (conn asks: budgetMake); a rule logging more grows the buffer, counted.
func aofRoom(conn *conn, cmds ...[][]byte) string {
	if aofFd < 0 || aofLoading {
		return ""
	}
	need, most := 256, 0 // 256: a small record's room, a PEXPIREAT's
	for _, args := range cmds {
		if c, _ := respResolve(args); c == nil || c.flags&flagWrite == 0 {
			continue // not logged
		}
		n := aofSize(args)
		need, most = need+n, max(most, n)
	}
	if len(cmds) > 1 {
		need = min(need, 256+kAOFTxPiece+most) // written past kAOFTxPiece
	}
	if cap(aofBuf)-len(aofBuf) >= need {
		return ""
	}
	// Doubled if the budget holds it (the old is copied), else what's needed.
	size := max(2*cap(aofBuf), len(aofBuf)+need)
	if !budgetMake(conn, size) {
		size = len(aofBuf) + need
		if !budgetMake(conn, size) {
			return errLogMemory
		}
	}
	aofResize(size)
	return ""
}

// errLogMemory refuses a write whose record the budget cannot hold.
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
	if refusal := rdbRefusal(c); refusal != "" {
		return refusal // the last background save failed (rdb_write.go)
	}
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
	if aofFd < 0 || len(aofBuf) == 0 {
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
			defer func() { aofOuter.buf = len(aofBuf) }()
		}
	}
	n, err := unix.Write(aofFd, aofBuf)
	if n < 0 {
		n = 0
	}
	if err == nil && n < len(aofBuf) {
		err = unix.ENOSPC // a short write: the disk is full
	}
	if err != nil {
		if n > 0 && unix.Ftruncate(aofFd, aofWritten) != nil {
			// The part written stays: go on after it.
			aofWritten += int64(n)
			aofWrittenShared.Store(aofWritten)
			aofBuf = aofBuf[:copy(aofBuf, aofBuf[n:])]
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
	aofBuf = aofBuf[:0]
	if cap(aofBuf) > 1<<20 && aofDepth == 0 {
		aofBuf = nil // a large request's buffer is not kept
	}
	aofAccount()
	if aofWriteErr != nil {
		msg("the append-only file can be written again")
		aofWriteErr = nil
	}
}

// aofHold writes the log before conn's replies are sent, and reports
// whether they must wait (aofBeforeSleep sends them): under always, for
// its fsync, those of a turn that appended to the log, and any after
// them; under everysec and no, for its write, those of a turn whose
// records a failing write left in the buffer. mark is aofCmds from
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
		if held || aofCmds != mark && len(aofBuf) > 0 {
			aofHeld[conn] = aofWritten + int64(len(aofBuf))
			return true
		}
		return false
	}
	// Its replies wait for the fsync if it wrote, or if they may show a
	// write in the file but not yet on the disk (another connection's,
	// earlier in this iteration): Redis too sends every reply after the
	// fsync. (What a failing write left in the buffer does not hold
	// them: reads go on while the disk is full.)
	need := aofWritten + int64(len(aofBuf))
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
// under always, once for all the replies waiting, and sends those whose
// wait is over. A failed fsync under always ends the server, as Redis's:
// the kernel may drop unwritten pages, which a second fsync calls safe.
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
	rdbInfo(field) // the snapshots' fields (rdb_write.go)
	field("aof_enabled", b2i(aofOn))
	aofRewriteInfo(field) // the rewrite's (aof_rewrite.go)
	field("aof_last_write_status", status)
	if aofOn {
		field("aof_current_size", aofWritten+int64(len(aofBuf)))
		field("aof_buffer_length", len(aofBuf))
		field("aof_pending_bio_fsync", b2i(aofSynced.Load() != aofWritten))
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
