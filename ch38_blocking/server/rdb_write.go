package server

// RDB files as Redis 7.0 writes them (version 10): the snapshot's encoder,
// SAVE, BGSAVE, LASTSAVE, SHUTDOWN, the -save rules, and INFO's rdb_*
// fields. The format's facts (opcodes, types, the length encoding, the
// CRC-64 after the EOF byte) are Redis's; the code is this server's.

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"example.com/byor/ch38_blocking/quicklist"
	"example.com/byor/ch38_blocking/zset"
)

// The RDB format's constants (Redis's rdb.h).
const (
	rdbVersion = 10 // what Redis 7.0 writes
	// rdbVersionFieldTTL is Redis 7.4's, whose hashes may have fields
	// with their own TTLs: written only when such a hash exists, so that
	// every other file loads in Redis 7.0.
	rdbVersionFieldTTL = 12

	rdbTypeString      = 0
	rdbTypeList        = 1 // a count and the elements; only read
	rdbTypeZSet        = 3 // scores as text; only read
	rdbTypeHash        = 4
	rdbTypeZSet2       = 5 // scores as binary doubles
	rdbTypeHashZiplist = 13
	rdbTypeZSetZiplist = 12
	rdbTypeHashLP      = 16 // a listpack of field, value, ...
	rdbTypeZSetLP      = 17 // a listpack of member, score, ...
	rdbTypeHashMeta    = 24 // Redis 7.4: a hash whose fields have TTLs
	// A list as Redis 7.0 writes it: its nodes, each a container (1, one
	// element as a string; 2, a listpack) and its bytes.
	rdbTypeListQuicklist2 = 18
	rdbContainerPlain     = 1
	rdbContainerPacked    = 2

	rdbOpFunction2    = 245
	rdbOpModuleAux    = 247
	rdbOpIdle         = 248
	rdbOpFreq         = 249
	rdbOpAux          = 250
	rdbOpResizeDB     = 251
	rdbOpExpireTimeMs = 252
	rdbOpExpireTime   = 253
	rdbOpSelectDB     = 254
	rdbOpEOF          = 255

	// A length's first two bits: 6 bits, 14 bits, 32 or 64 bits, or an
	// encoded string.
	rdb6Bit   = 0
	rdb14Bit  = 1
	rdb32Bit  = 0x80
	rdb64Bit  = 0x81
	rdbEncVal = 3
	// The encodings of a string after rdbEncVal.
	rdbEncInt8  = 0
	rdbEncInt16 = 1
	rdbEncInt32 = 2
	rdbEncLZF   = 3
)

// rdbState is what the snapshots to the RDB file remember.
var rdbState = struct {
	filename string
	rules    []saveRule
	rulesArg string
	// lastSave is the unix time of the last save that succeeded, and
	// dirtyAtSave the change counter (aofDirty) as of its instant.
	lastSave    int64
	dirtyAtSave uint64
	// lastOK is the last background save's outcome; lastTry when it began.
	lastOK  bool
	lastTry int64
	// lastSecs is how long the last background save took, -1 for none.
	lastSecs int64
	saves    int
	// scheduled: BGSAVE SCHEDULE asked for one while the log was rewritten.
	scheduled bool
}{filename: "dump.rdb", lastOK: true, lastSecs: -1}

// kDefaultSave is -save's default, Redis's when it runs without a
// configuration file.
const kDefaultSave = "3600 1 300 100 60 10000"

// saveRule is one of -save's pairs: save after secs seconds if at least
// changes writes happened.
type saveRule struct{ secs, changes int64 }

// rdbFlags adds -dbfilename and -save to fs; the function returned checks
// them once fs is parsed.
func rdbFlags(fs *flag.FlagSet) func() error {
	name := fs.String("dbfilename", rdbState.filename, "the RDB file's `name`, in -dir: written by SAVE and BGSAVE, read at start when there is no append-only file")
	rwCheck := aofRewriteFlags(fs) // aof_rewrite.go
	save := fs.String("save", kDefaultSave, "`rules` of background saves, as Redis's save: the default saves after 3600 s if 1 key changed, after 300 s if 100 did, after 60 s if 10000 did; with rules, SIGTERM, SIGINT and SHUTDOWN save too; \"\" for none")
	return func() error {
		if *name == "" || strings.ContainsRune(*name, '/') {
			return fmt.Errorf("-dbfilename must be a file name, without a directory: %q", *name)
		}
		rules, err := parseSaveRules(*save)
		if err != nil {
			return err
		}
		if err := rwCheck(); err != nil {
			return err
		}
		rdbState.filename, rdbState.rules, rdbState.rulesArg = *name, rules, *save
		rdbState.lastSave = time.Now().Unix()
		respConfigSet("dbfilename", *name)
		respConfigSet("save", *save)
		respConfigSet("stop-writes-on-bgsave-error", "yes")
		return nil
	}
}

// parseSaveRules parses -save's pairs of seconds and changes.
func parseSaveRules(s string) ([]saveRule, error) {
	f := strings.Fields(s)
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("-save takes pairs of seconds and changes: %q", s)
	}
	var rules []saveRule
	for i := 0; i < len(f); i += 2 {
		secs, err1 := strconv.ParseInt(f[i], 10, 64)
		changes, err2 := strconv.ParseInt(f[i+1], 10, 64)
		if err1 != nil || err2 != nil || secs < 1 || changes < 0 {
			return nil, fmt.Errorf("-save: %q %q is not a rule of seconds (at least 1) and changes", f[i], f[i+1])
		}
		rules = append(rules, saveRule{secs, changes})
	}
	return rules, nil
}

// rdbPath is the RDB file's path.
func rdbPath() string { return filepath.Join(aofDir, rdbState.filename) }

// rdbChanges is how many changes the key space saw since the last save's
// instant.
func rdbChanges() uint64 { return aofDirty - rdbState.dirtyAtSave }

// rdbRulesMayFire reports whether a -save rule may call for a save later,
// so that the loop wakes to check.
func rdbRulesMayFire() bool {
	return len(rdbState.rules) > 0 && rdbChanges() > 0 || rdbState.scheduled || aofRewriteWanted()
}

// kBgsaveRetrySecs is how long after a failed background save the rules
// wait before they try again (Redis's CONFIG_BGSAVE_RETRY_DELAY).
const kBgsaveRetrySecs = 5

// rdbCron starts the background save the rules call for, one that was
// scheduled, or a rewrite of the log that is due; the loop calls it
// between snapshots.
func rdbCron() {
	if rdbState.scheduled {
		rdbState.scheduled = false
		rdbBgsave()
		return
	}
	if aofRewriteDue() {
		aofRewriteStart()
		return
	}
	now := time.Now().Unix()
	for _, r := range rdbState.rules {
		if int64(rdbChanges()) >= r.changes && now-rdbState.lastSave >= r.secs &&
			(rdbState.lastOK || now-rdbState.lastTry >= kBgsaveRetrySecs) {
			msg("%d changes in %d seconds. Saving...", r.changes, r.secs)
			rdbBgsave()
			return
		}
	}
}

// rdbBgsave starts a background save. Its instant's change count is
// remembered, and becomes the last save's once the file is renamed.
func rdbBgsave() error {
	dirty := aofDirty
	rdbState.lastTry = time.Now().Unix()
	_, err := snapshotBegin(&rdbEncoder{}, rdbPath(), func(s *snapshot, err error) {
		rdbState.lastSecs = int64((getMonotonicUsec() - s.startUs) / 1e6)
		rdbSaved(err, dirty, "Background saving", true)
	})
	if err != nil {
		rdbSaved(err, dirty, "Background saving", true)
	}
	return err
}

// rdbSaved records a save's outcome: a success, of either kind, clears
// the failure MISCONF reports; a failed SAVE leaves the last background
// save's status as it was, as in Redis.
func rdbSaved(err error, dirty uint64, what string, background bool) {
	if err == nil || background {
		rdbState.lastOK = err == nil
	}
	if err != nil {
		msg("%s failed: %v", what, err)
		return
	}
	rdbState.lastSave = time.Now().Unix()
	rdbState.dirtyAtSave = dirty
	rdbState.saves++
	msg("%s terminated with success", what)
}

// rdbSave saves at once, blocking the loop (SAVE, SHUTDOWN). A background
// snapshot running is finished first: the mark has room for one.
func rdbSave() error {
	if s := gSnap; s != nil {
		s.complete()
	}
	dirty := aofDirty
	err := snapshotRun(&rdbEncoder{}, rdbPath())
	rdbSaved(err, dirty, "DB saved on disk", false)
	return err
}

// rdbRefusal returns Redis's MISCONF error for a write while the last
// background save failed (as stop-writes-on-bgsave-error yes), or "".
// It applies only with -save rules, as in Redis: without them the saves
// are the operator's business.
func rdbRefusal(c *command) string {
	if rdbState.lastOK || len(rdbState.rules) == 0 || c.flags&flagWrite == 0 {
		return ""
	}
	return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
}

// rdbInfo writes INFO persistence's rdb_* fields.
func rdbInfo(field func(k string, v any)) {
	bg := gSnap != nil && gSnap.isRDB()
	cur := int64(-1)
	if bg {
		cur = int64((getMonotonicUsec() - gSnap.startUs) / 1e6)
	}
	status := "ok"
	if !rdbState.lastOK {
		status = "err"
	}
	snapshotInfo(field) // snapshot.go
	field("rdb_changes_since_last_save", rdbChanges())
	field("rdb_bgsave_in_progress", b2i(bg))
	field("rdb_last_save_time", rdbState.lastSave)
	field("rdb_last_bgsave_status", status)
	field("rdb_last_bgsave_time_sec", rdbState.lastSecs)
	field("rdb_current_bgsave_time_sec", cur)
	field("rdb_saves", rdbState.saves)
}

// isRDB reports whether the snapshot writes the RDB file.
func (s *snapshot) isRDB() bool { _, ok := s.enc.(*rdbEncoder); return ok }

// rdbRows are the rows of SAVE, BGSAVE, LASTSAVE and SHUTDOWN.
func rdbRows() []*command {
	return []*command{
		{name: "save", arity: 1, flags: flagAdmin | flagNoScript | flagNoAsyncLoading | flagNoMulti, resp: respSave},
		{name: "bgsave", arity: -1, flags: flagAdmin | flagNoScript | flagNoAsyncLoading, resp: respBgsave},
		{name: "lastsave", arity: 1, flags: flagLoading | flagStale | flagFast, resp: respLastsave},
		{name: "shutdown", arity: -1, flags: flagAdmin | flagNoScript | flagLoading | flagStale | flagAllowBusy | flagNoMulti, resp: respShutdown},
	}
}

// respSave: SAVE writes the RDB file now, blocking every client.
func respSave(st *respState, w *respWriter, args [][]byte) {
	if gSnap != nil && gSnap.isRDB() {
		w.err("ERR Background save already in progress")
		return
	}
	workDone += gData.db.Len() // the loop stops for the whole key space
	if err := rdbSave(); err != nil {
		w.err("ERR " + err.Error())
		return
	}
	w.simple("OK")
}

// respBgsave: BGSAVE [SCHEDULE] starts a snapshot to the RDB file.
func respBgsave(st *respState, w *respWriter, args [][]byte) {
	if len(args) > 2 || len(args) == 2 && !cmdIs(args[1], "schedule") {
		w.err(errSyntax)
		return
	}
	schedule := len(args) == 2
	switch {
	case gSnap != nil && gSnap.isRDB():
		w.err("ERR Background save already in progress")
	case gSnap != nil && schedule || aofNested():
		// After the rewrite running; or, inside a transaction, once it
		// ends, as Redis does: a snapshot of its middle would hold part
		// of it.
		rdbState.scheduled = true
		w.simple("Background saving scheduled")
	case gSnap != nil:
		w.err("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
	default:
		if err := rdbBgsave(); err != nil {
			w.err("ERR " + err.Error())
			return
		}
		w.simple("Background saving started")
	}
}

// respLastsave: LASTSAVE, the unix time of the last save that succeeded.
func respLastsave(st *respState, w *respWriter, args [][]byte) {
	w.outInt(rdbState.lastSave)
}

// respShutdown: SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] saves (with -save
// rules, or when told to) and exits. A save that fails keeps the server
// up, unless FORCE.
func respShutdown(st *respState, w *respWriter, args [][]byte) {
	if len(args) == 2 && cmdIs(args[1], "abort") {
		// A shutdown here never waits (for replicas, as Redis's may), so
		// there is never one in progress to abort.
		w.err("ERR No shutdown in progress.")
		return
	}
	save, nosave, force := false, false, false
	for _, a := range args[1:] {
		switch {
		case cmdIs(a, "save"):
			save = true
		case cmdIs(a, "nosave"):
			nosave = true
		case cmdIs(a, "now"):
		case cmdIs(a, "force"):
			force = true
		default:
			w.err(errSyntax)
			return
		}
	}
	if save && nosave {
		w.err(errSyntax)
		return
	}
	if !shutdown(save || !nosave && len(rdbState.rules) > 0, force) {
		w.err("ERR Errors trying to SHUTDOWN. Check logs.")
		return
	}
	w.simple("OK") // only where shutdownExit returns: the package's tests
}

// shutdown saves if save, writes what the log holds and exits, for
// SHUTDOWN and for SIGTERM and SIGINT (server.go). A save that fails
// keeps the server up, unless force: it returns false then.
func shutdown(save, force bool) bool {
	msg("User requested shutdown...")
	if save {
		msg("Saving the final RDB snapshot before exiting.")
		if err := rdbSave(); err != nil {
			if !force {
				msg("Error trying to save the DB, can't exit.")
				msg("Errors trying to shut down the server. Check the logs for more information.")
				return false
			}
			msg("Error trying to save the DB. Exit anyway.")
		}
	}
	aofBeforeSleep() // what the log holds, written
	if aofFd >= 0 {
		fdatasync(aofFd) // and on the disk, whatever -appendfsync says
	}
	shutdownHook()
	msg("Redis is now ready to exit, bye bye...")
	logFlush(time.Second)
	shutdownExit(0)
	return true
}

// shutdownHook is what the process does last before it exits: remove
// the temporary file of a snapshot running, and write the CPU profile of
// -cpuprofile (server.go sets it).
var shutdownHook = snapshotTempsRemove

// shutdownExit ends the process for SHUTDOWN; the tests, which run every
// command in the test binary's process, keep it alive.
var shutdownExit = os.Exit

// negInf is where a walk of a sorted set starts.
var negInf = math.Inf(-1)

// rdbEncoder writes a snapshot as an RDB file.
type rdbEncoder struct {
	version int // 10, or 12 if a hash had fields with TTLs at the instant
}

// begin writes the header, the AUX fields Redis writes, and the database.
// A hash has fields with TTLs exactly when it has a timer in fieldHeap.
func (e *rdbEncoder) begin(b []byte, keys, expires int) []byte {
	e.version = rdbVersion
	if len(gData.fieldHeap) > 0 {
		e.version = rdbVersionFieldTTL
	}
	b = fmt.Appendf(b, "REDIS%04d", e.version)
	for _, kv := range [][2]string{{"redis-ver", "7.0.15"}, {"redis-bits", "64"},
		{"ctime", strconv.FormatInt(time.Now().Unix(), 10)},
		{"used-mem", strconv.FormatUint(heapBytes(), 10)}, {"aof-base", "0"}} {
		b = append(b, rdbOpAux)
		b = rdbAppendString(b, kv[0])
		b = rdbAppendString(b, kv[1])
	}
	b = append(b, rdbOpSelectDB)
	b = rdbAppendLen(b, 0)
	b = append(b, rdbOpResizeDB)
	b = rdbAppendLen(b, uint64(keys))
	b = rdbAppendLen(b, uint64(expires))
	return b
}

// entry writes one key: its expiry, its type, its name and its value.
// Hash fields past their time at nowMs are left out.
func (e *rdbEncoder) entry(b []byte, ent *entry, expireMs, nowMs int64) ([]byte, int) {
	if ent.typ() == tZSet {
		b = e.splitStart(b, ent, expireMs, nowMs)
		b, _, work := e.zsetMembers(b, ent, ent.obj.zset.SeekGE(negInf, ""), math.MaxInt, nil)
		return b, 1 + work
	}
	if ent.typ() == tList {
		b = e.splitStart(b, ent, expireMs, nowMs)
		b, _, work := e.listItems(b, ent, ent.obj.list.First(), math.MaxInt, nil)
		return b, 1 + work
	}
	start := len(b)
	work := 1
	b = rdbAppendExpire(b, expireMs)
	switch ent.typ() {
	case tStr:
		b = append(b, rdbTypeString)
		b = rdbAppendString(b, ent.key())
		b = rdbAppendString(b, ent.val())
	case tHash:
		if _, ttls := ent.obj.hash.NextExpiry(); ttls && e.version >= rdbVersionFieldTTL {
			b, work = rdbAppendFieldTTLs(b, ent, nowMs)
			break
		}
		pairs := ent.obj.hash.GetAll(uint64(nowMs))
		b = append(b, rdbTypeHash)
		b = rdbAppendString(b, ent.key())
		b = rdbAppendLen(b, uint64(len(pairs)))
		for _, p := range pairs {
			b = rdbAppendString(b, p.Name)
			b = rdbAppendString(b, p.Value)
			work += kVisitWork
		}
	}
	return b, work + (len(b)-start)/kWorkBytes
}

// splitStart appends what comes before a sorted set's members, a
// hash's fields or a list's nodes: its expiry, type, name and count, the
// fields live at nowMs (valueSplitter, snapshot.go). A hash whose fields have TTLs
// takes RDB_TYPE_HASH_METADATA, as entry writes it, with the earliest
// expiry of its timers (which may be a field already past: any time
// no later than every field's will do).
func (e *rdbEncoder) splitStart(b []byte, ent *entry, expireMs, nowMs int64) []byte {
	b = rdbAppendExpire(b, expireMs)
	var n int
	switch minAt, ttls := rdbFieldTTLs(ent, e.version); {
	case ent.typ() == tZSet:
		b, n = append(b, rdbTypeZSet2), ent.obj.zset.Len()
		b = rdbAppendString(b, ent.key())
	case ent.typ() == tList:
		b, n = append(b, rdbTypeListQuicklist2), ent.obj.list.Nodes()
		b = rdbAppendString(b, ent.key())
	case ttls:
		b, n = append(b, rdbTypeHashMeta), ent.obj.hash.Len(uint64(nowMs))
		b = rdbAppendString(b, ent.key())
		b = binary.LittleEndian.AppendUint64(b, minAt)
	default:
		b, n = append(b, rdbTypeHash), ent.obj.hash.Len(uint64(nowMs))
		b = rdbAppendString(b, ent.key())
	}
	return rdbAppendLen(b, uint64(n))
}

// rdbFieldTTLs reports whether the hash ent is written with its fields'
// TTLs in a file of version, and the earliest expiry of its timers.
func rdbFieldTTLs(ent *entry, version int) (minAt uint64, ttls bool) {
	if ent.typ() != tHash {
		return 0, false
	}
	minAt, ttls = ent.obj.hash.NextExpiry()
	return minAt, ttls && version >= rdbVersionFieldTTL
}

// hashFields appends at most count places of the hash ent's order from
// i on, each field live at nowMs as its TTL (in RDB_TYPE_HASH_METADATA),
// name and value, and returns the place after the last (-1 at the end)
// and the work. With straight, it stops once the fields hold
// kSnapFlushBytes, and long names and values go to straight.
func (e *rdbEncoder) hashFields(b []byte, ent *entry, i, count int, nowMs int64, straight straightFn) ([]byte, int, int) {
	start, work, h, size := len(b), 0, ent.obj.hash, 0
	minAt, ttls := rdbFieldTTLs(ent, e.version)
	for ; i < h.StoredLen() && count > 0 && (straight == nil || size < kSnapFlushBytes); i, count = i+1, count-1 {
		work += kVisitWork
		p, live := h.At(uint64(nowMs), i)
		if !live {
			continue
		}
		if ttls {
			ttl := uint64(0)
			if at := h.ExpireAt(i); at >= 0 {
				ttl = uint64(at) - minAt + 1
			}
			b = rdbAppendLen(b, ttl)
		}
		b = rdbAppendStraight(b, p.Name, straight)
		b = rdbAppendStraight(b, p.Value, straight)
		size += len(p.Name) + len(p.Value)
	}
	if i == h.StoredLen() {
		i = -1
	}
	return b, i, work + (len(b)-start)/kWorkBytes
}

// zsetMembers appends at most count members of the sorted set ent from n
// on, each its name and its score as a binary double, and returns the
// member after the last written (nil at the end) and the work. With
// straight, as hashFields.
func (e *rdbEncoder) zsetMembers(b []byte, ent *entry, n *zset.ZNode, count int, straight straightFn) ([]byte, *zset.ZNode, int) {
	start, work, size := len(b), 0, 0
	for ; n != nil && count > 0 && (straight == nil || size < kSnapFlushBytes); n, count = ent.obj.zset.Offset(n, +1), count-1 {
		b = rdbAppendStraight(b, n.Name(), straight)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(n.Score()))
		work += kVisitWork
		size += len(n.Name()) + 8
	}
	return b, n, work + (len(b)-start)/kWorkBytes
}

// listItems appends the nodes of the list ent from the one at on, each
// as Redis 7.0 writes it, PACKED and its listpack's bytes as they are,
// until they hold count elements or more, and returns the place of the
// next node (not Valid at the end) and the work: a node is copied, not
// walked, so it costs a visit and its bytes. With straight, it stops once
// the nodes hold kSnapFlushBytes, and a long listpack (one big element)
// goes to straight: the list does not change until its end is written.
func (e *rdbEncoder) listItems(b []byte, ent *entry, at quicklist.Iter, count int, straight straightFn) ([]byte, quicklist.Iter, int) {
	start, work, size := len(b), 0, 0
	for at.Valid() && count > 0 && (straight == nil || size < kSnapFlushBytes) {
		var lp []byte
		lp, at = at.Listpack()
		b = rdbAppendLen(b, rdbContainerPacked)
		b = rdbAppendStraight(b, unsafe.String(unsafe.SliceData(lp), len(lp)), straight)
		count -= int(binary.LittleEndian.Uint16(lp[4:])) // the node's count
		size += len(lp)
		work += kVisitWork
	}
	return b, at, work + (len(b)-start)/kWorkBytes
}

// splitEnd appends what comes after the members or fields: nothing.
func (e *rdbEncoder) splitEnd(b []byte, ent *entry, expireMs int64) []byte { return b }

// stringHead appends what comes before a string's value of n bytes: its
// expiry, type, name and length (stringSplitter, snapshot.go).
func (e *rdbEncoder) stringHead(b []byte, ent *entry, n int, expireMs int64) []byte {
	b = append(rdbAppendExpire(b, expireMs), rdbTypeString)
	return rdbAppendLen(rdbAppendString(b, ent.key()), uint64(n))
}

// stringTail appends what comes after a string's value: nothing.
func (e *rdbEncoder) stringTail(b []byte, ent *entry, expireMs int64) []byte { return b }

// rdbAppendExpire appends a key's expiry, if it has one (expireMs >= 0).
func rdbAppendExpire(b []byte, expireMs int64) []byte {
	if expireMs < 0 {
		return b
	}
	b = append(b, rdbOpExpireTimeMs)
	return binary.LittleEndian.AppendUint64(b, uint64(expireMs))
}

// end writes the EOF opcode. The checksum of the whole file follows it:
// the snapshot keeps it running over the bytes it writes (checksummed).
func (e *rdbEncoder) end(b []byte) []byte { return append(b, rdbOpEOF) }

// checksummed tells the snapshot to end the file with its CRC-64.
func (e *rdbEncoder) checksummed() {}

// rdbAppendFieldTTLs appends a hash whose fields have TTLs in Redis
// 7.4's RDB_TYPE_HASH_METADATA: the earliest expiry (8 bytes), the count,
// then per field its expiry (0 for none, else its distance from the
// earliest plus 1, as a length), its name and its value.
func rdbAppendFieldTTLs(b []byte, ent *entry, nowMs int64) ([]byte, int) {
	h := ent.obj.hash
	pairs := h.GetAll(uint64(nowMs))
	ats := make([]int64, len(pairs))
	minAt := int64(math.MaxInt64)
	for i, p := range pairs {
		ats[i] = h.ExpireTime(uint64(nowMs), p.Name)
		if ats[i] >= 0 {
			minAt = min(minAt, ats[i])
		}
	}
	if minAt == math.MaxInt64 {
		minAt = 0 // none left live: the count of fields tells the rest
	}
	b = append(b, rdbTypeHashMeta)
	b = rdbAppendString(b, ent.key())
	b = binary.LittleEndian.AppendUint64(b, uint64(minAt))
	b = rdbAppendLen(b, uint64(len(pairs)))
	work := 1
	for i, p := range pairs {
		ttl := uint64(0)
		if ats[i] >= 0 {
			ttl = uint64(ats[i]-minAt) + 1
		}
		b = rdbAppendLen(b, ttl)
		b = rdbAppendString(b, p.Name)
		b = rdbAppendString(b, p.Value)
		work += kVisitWork
	}
	return b, work
}

// rdbAppendLen appends n in RDB's length encoding.
func rdbAppendLen(b []byte, n uint64) []byte {
	// exercise: ch34-rdb-entry
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|rdb14Bit<<6, byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, rdb32Bit), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, rdb64Bit), n)
	// end exercise: ch34-rdb-entry
}

// rdbAppendStraight appends s as a length and its bytes, which go to
// straight if it is set and s long (appendStraight).
func rdbAppendStraight(b []byte, s string, straight straightFn) []byte {
	return appendStraight(rdbAppendLen(b, uint64(len(s))), s, straight)
}

// rdbAppendString appends s as a length and its bytes.
func rdbAppendString(b []byte, s string) []byte {
	// exercise: ch34-rdb-entry
	return append(rdbAppendLen(b, uint64(len(s))), s...)
	// end exercise: ch34-rdb-entry
}
