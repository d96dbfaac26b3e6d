package server

// RDB files as Redis 7.0 writes them (version 10): the snapshot's encoder,
// SAVE, LASTSAVE, SHUTDOWN, and INFO's rdb_* fields. The format's facts (opcodes, types, the length encoding, the
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
)

// The RDB format's constants (Redis's rdb.h).
const (
	rdbVersion = 10 // what Redis 7.0 writes
	// rdbVersionFieldTTL is Redis 7.4's, whose hashes may have fields
	// with their own TTLs: written only when such a hash exists, so that
	// every other file loads in Redis 7.0.
	rdbVersionFieldTTL = 12

	rdbTypeString      = 0
	rdbTypeZSet        = 3 // scores as text; only read
	rdbTypeHash        = 4
	rdbTypeZSet2       = 5 // scores as binary doubles
	rdbTypeHashZiplist = 13
	rdbTypeZSetZiplist = 12
	rdbTypeHashLP      = 16 // a listpack of field, value, ...
	rdbTypeZSetLP      = 17 // a listpack of member, score, ...
	rdbTypeHashMeta    = 24 // Redis 7.4: a hash whose fields have TTLs

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

// rdbState is what the saves to the RDB file remember.
var rdbState = struct {
	filename string
	// lastSave is the unix time of the last save that succeeded, and
	// dirtyAtSave the change counter (aofDirty) as of its instant.
	lastSave    int64
	dirtyAtSave uint64
	saves       int
}{filename: "dump.rdb"}

// rdbFlags adds -dbfilename to fs; the function returned checks it once
// fs is parsed.
func rdbFlags(fs *flag.FlagSet) func() error {
	name := fs.String("dbfilename", rdbState.filename, "the RDB file's `name`, in -dir: written by SAVE, read at start when there is no append-only file")
	return func() error {
		if *name == "" || strings.ContainsRune(*name, '/') {
			return fmt.Errorf("-dbfilename must be a file name, without a directory: %q", *name)
		}
		rdbState.filename = *name
		rdbState.lastSave = time.Now().Unix()
		respConfigSet("dbfilename", *name)
		respConfigSet("save", "") // no rules: nothing saves but SAVE
		return nil
	}
}

// rdbPath is the RDB file's path.
func rdbPath() string { return filepath.Join(aofDir, rdbState.filename) }

// rdbChanges is how many changes the key space saw since the last save's
// instant.
func rdbChanges() uint64 { return aofDirty - rdbState.dirtyAtSave }

// rdbSaved records a save's outcome.
func rdbSaved(err error, dirty uint64, what string) {
	if err != nil {
		msg("%s failed: %v", what, err)
		return
	}
	rdbState.lastSave = time.Now().Unix()
	rdbState.dirtyAtSave = dirty
	rdbState.saves++
	msg("%s terminated with success", what)
}

// rdbSave saves at once, blocking the loop (SAVE, SHUTDOWN).
func rdbSave() error {
	dirty := aofDirty
	err := snapshotRun(&rdbEncoder{}, rdbPath())
	rdbSaved(err, dirty, "DB saved on disk")
	return err
}

// rdbInfo writes INFO persistence's rdb_* fields.
func rdbInfo(field func(k string, v any)) {
	field("rdb_changes_since_last_save", rdbChanges())
	field("rdb_last_save_time", rdbState.lastSave)
	field("rdb_saves", rdbState.saves)
}

// rdbRows are the rows of SAVE, LASTSAVE and SHUTDOWN.
func rdbRows() []*command {
	return []*command{
		{name: "save", arity: 1, flags: flagAdmin | flagNoScript | flagNoAsyncLoading | flagNoMulti, resp: respSave},
		{name: "lastsave", arity: 1, flags: flagLoading | flagStale | flagFast, resp: respLastsave},
		{name: "shutdown", arity: -1, flags: flagAdmin | flagNoScript | flagLoading | flagStale | flagAllowBusy | flagNoMulti, resp: respShutdown},
	}
}

// respSave: SAVE writes the RDB file now, blocking every client.
func respSave(st *respState, w *respWriter, args [][]byte) {
	workDone += gData.db.Len() // the loop stops for the whole key space
	if err := rdbSave(); err != nil {
		w.err("ERR " + err.Error())
		return
	}
	w.simple("OK")
}

// respLastsave: LASTSAVE, the unix time of the last save that succeeded.
func respLastsave(st *respState, w *respWriter, args [][]byte) {
	w.outInt(rdbState.lastSave)
}

// respShutdown: SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] saves when told to
// (SAVE: with no save rules, Redis's SHUTDOWN saves only then) and exits.
// A save that fails keeps the server up, unless FORCE.
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
	if !shutdown(save, force) {
		w.err("ERR Errors trying to SHUTDOWN. Check logs.")
		return
	}
	w.simple("OK") // only where shutdownExit returns: the package's tests
}

// shutdown saves if save, writes what the log holds and exits, for
// SHUTDOWN. A save that fails keeps the server up, unless force: it
// returns false then.
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
// the temporary file a failed save may leave, and write the CPU profile
// of -cpuprofile (server.go sets it).
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
	// exercise: ch34-rdb-entry
	start := len(b)
	work := 1
	b = rdbAppendExpire(b, expireMs)
	switch ent.typ() {
	case tStr:
		b = append(b, rdbTypeString)
		b = rdbAppendString(b, ent.key())
		b = rdbAppendString(b, ent.val())
	case tZSet:
		// Its members in order, each a name and a binary double.
		z := ent.obj.zset
		b = append(b, rdbTypeZSet2)
		b = rdbAppendString(b, ent.key())
		b = rdbAppendLen(b, uint64(z.Len()))
		for n := z.SeekGE(negInf, ""); n != nil; n = z.Offset(n, +1) {
			b = rdbAppendString(b, n.Name())
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(n.Score()))
			work += kVisitWork
		}
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
	// end exercise: ch34-rdb-entry
}

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

// rdbAppendString appends s as a length and its bytes.
func rdbAppendString(b []byte, s string) []byte {
	// exercise: ch34-rdb-entry
	return append(rdbAppendLen(b, uint64(len(s))), s...)
	// end exercise: ch34-rdb-entry
}
