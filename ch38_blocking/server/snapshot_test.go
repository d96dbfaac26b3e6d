package server

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests run every command in this process: SHUTDOWN must not end it,
// and SAVE and BGSAVE, which the fuzzer and the cost tests may send, must
// write nowhere (a directory that does not exist makes them fail).
func init() {
	shutdownExit = func(int) {}
	aofDir = filepath.Join(os.TempDir(), "no-such-directory-"+strconv.Itoa(os.Getpid()))
}

// describe is one line for ent: its key, type, value and whether it has
// a TTL (the time itself moves with the clock the two sides read).
func describe(ent *entry) string {
	var val string
	switch ent.typ() {
	case tStr:
		val = strconv.Quote(ent.val())
	case tZSet:
		z := ent.obj.zset
		var parts []string
		for n := z.SeekGE(math.Inf(-1), ""); n != nil; n = z.Offset(n, +1) {
			parts = append(parts, n.Name()+"="+strconv.FormatFloat(n.Score(), 'g', -1, 64))
		}
		val = strings.Join(parts, ",")
	case tHash:
		var parts []string
		for _, p := range ent.obj.hash.GetAll(getUnixMs()) {
			parts = append(parts, p.Name+"="+p.Value)
		}
		slices.Sort(parts)
		val = strings.Join(parts, ",")
	case tList:
		var parts []string
		for it := ent.obj.list.First(); it.Valid(); it.Next() {
			parts = append(parts, strconv.Quote(string(it.Value())))
		}
		val = "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%q %s %s ttl=%v", ent.key(), typeName(ent), val, ent.heapIdx != -1)
}

// keySpaceLines describes every key of the key space, sorted.
func keySpaceLines() []string {
	var lines []string
	gData.db.All(func(ent *entry) { lines = append(lines, describe(ent)) })
	slices.Sort(lines)
	return lines
}

// lineEncoder writes a snapshot as describe's lines: what the snapshot
// saw, without the RDB format in the way.
type lineEncoder struct{}

func (lineEncoder) begin(b []byte, keys, expires int) []byte { return b }
func (lineEncoder) end(b []byte) []byte                      { return b }
func (lineEncoder) entry(b []byte, ent *entry, expireMs, nowMs int64) ([]byte, int) {
	return append(append(b, describe(ent)...), '\n'), 1
}

// readLines reads a lineEncoder's file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// fillKeys adds n keys of each type, every third with a TTL.
func fillKeys(tc *txClient, n int) {
	for i := range n {
		s := strconv.Itoa(i)
		tc.do("SET", "s:"+s, "v"+s)
		tc.do("HSET", "h:"+s, "a", s, "b", "x"+s)
		tc.do("ZADD", "z:"+s, s, "m", "-inf", "low")
		if i%3 == 0 {
			tc.do("EXPIRE", "s:"+s, "3600")
			tc.do("EXPIRE", "z:"+s, "3600")
		}
	}
}

// finishSnapshot walks s to its end in small steps, running between them
// the writes step returns, and waits for its file.
func finishSnapshot(t *testing.T, s *snapshot, budget int, step func(i int)) (steps int) {
	t.Helper()
	for !s.walked {
		before := s.keys
		s.walk(budget)
		if s.keys-before > 2*budget {
			t.Fatalf("one step wrote %d keys on a budget of %d", s.keys-before, budget)
		}
		step(steps)
		steps++
	}
	s.finish(<-s.finished)
	return steps
}

// TestSnapshotOneInstant: a snapshot walked in small steps, with writes
// of every kind between them (keys changed before and after the walk
// reached them, deleted, created, given TTLs, and a FLUSHALL), holds each
// key once, as it was when the snapshot began; and after it every entry
// carries the mark again.
func TestSnapshotOneInstant(t *testing.T) {
	for _, flush := range []bool{false, true} {
		t.Run(fmt.Sprint("flushall=", flush), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			const n = 400
			fillKeys(tc, n)
			for i := range 50 { // due during the walk: the timers delete them
				tc.do("SET", "t:"+strconv.Itoa(i), "short", "PX", "30")
			}
			want := keySpaceLines()
			path := filepath.Join(t.TempDir(), "snap")
			var done error = os.ErrClosed
			s, err := snapshotBegin(lineEncoder{}, path, func(_ *snapshot, err error) { done = err })
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			steps := finishSnapshot(t, s, 20, func(i int) {
				k := strconv.Itoa(rng.IntN(n))
				switch i % 9 {
				case 0:
					tc.do("SET", "s:"+k, "changed")
				case 1:
					tc.do("DEL", "h:"+k, "s:"+strconv.Itoa(rng.IntN(n)))
				case 2:
					tc.do("HSET", "h:"+k, "a", "changed", "c", "new")
				case 3:
					tc.do("ZADD", "z:"+k, "99", "m", "1", "new")
				case 4:
					tc.do("SET", "new:"+k, "born during the snapshot")
				case 5:
					tc.do("EXPIRE", "s:"+k, "100")
					tc.do("PERSIST", "z:"+k)
				case 6:
					tc.do("APPEND", "s:"+k, "+more")
					tc.do("INCR", "n:"+k)
				case 7:
					tc.do("MULTI")
					tc.do("ZREM", "z:"+k, "m", "low")
					tc.do("HDEL", "h:"+k, "a", "b")
					tc.do("EXEC")
				case 8:
					if flush && i > 30 && i < 40 {
						tc.do("FLUSHALL")
					}
					run("set", "s:"+k, "the book's protocol") // bookRequest
				}
				if i == 4 {
					time.Sleep(40 * time.Millisecond) // the t: keys are due
					processTimers()
					if lookupEntry("t:0") != nil {
						t.Fatal("the timers did not delete t:0")
					}
				}
			})
			if done != nil {
				t.Fatalf("the snapshot ended with %v", done)
			}
			got := readLines(t, path)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("the snapshot holds %d keys, the instant had %d", len(got), len(want))
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("first difference: got %s, want %s", got[i], want[i])
					}
				}
			}
			if s.kept == 0 {
				t.Errorf("no key was copied before a change: the test did not test that")
			}
			gData.db.All(func(ent *entry) {
				if ent.klen&kSnapMark != snapMark {
					t.Fatalf("%q lacks the mark after the snapshot", ent.key())
				}
			})
			t.Logf("%d keys in %d steps, %d of them copied before a change", s.keys, steps, s.kept)
		})
	}
}

// TestRDBRoundTrip: what SAVE writes loads back as the same key space,
// TTLs included, and a file of no keys loads as none.
func TestRDBRoundTrip(t *testing.T) {
	resetTx(t)
	tc := newTxClient(t)
	fillKeys(tc, 50)
	tc.do("SET", "long", strings.Repeat("abc", 10000))
	tc.do("SET", "int", "-12345")
	tc.do("SET", "empty", "")
	tc.do("ZADD", "inf", "+inf", "top", "-0", "zero", "1e-300", "tiny")
	big := []string{"HSET", "bighash"}
	for i := range 20000 {
		big = append(big, "f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	tc.do(big...)
	want := keySpaceLines()
	path := filepath.Join(t.TempDir(), "dump.rdb")
	if err := snapshotRun(&rdbEncoder{}, path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	resetTx(t)
	n, err := rdbLoad(data, int64(getUnixMs()))
	if err != nil {
		t.Fatal(err)
	}
	if got := keySpaceLines(); !slices.Equal(got, want) || n != len(want) {
		t.Fatalf("loaded %d keys, not the %d saved", n, len(want))
	}
	if ent := lookupEntry("s:3"); ent == nil || entryExpireMs(ent, 0) < 3500_000 {
		t.Fatalf("s:3 lost its TTL of an hour")
	}
}

// TestCRC64: Redis's CRC-64 of "123456789", its own test's figure.
func TestCRC64(t *testing.T) {
	if got := crc64Jones(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %016x", got)
	}
}

// TestLZF: a literal run, a back reference that overlaps itself (the
// extended length), and damaged inputs, which fail rather than read or
// write out of bounds.
func TestLZF(t *testing.T) {
	in := []byte{2, 'a', 'b', 'c', 0xe0, 0, 2} // "abc", then 9 bytes from 3 back
	out, err := lzfDecompress(in, 12)
	if err != nil || string(out) != "abcabcabcabc" {
		t.Fatalf("got %q, %v", out, err)
	}
	for _, bad := range [][]byte{
		{2, 'a', 'b'},            // the run passes the end
		{0, 'a', 0x20, 5},        // a reference before the start
		{2, 'a', 'b', 'c', 0xe0}, // cut in a reference
	} {
		if _, err := lzfDecompress(bad, 12); err == nil {
			t.Errorf("%v decompressed", bad)
		}
	}
	if _, err := lzfDecompress(in, 11); err == nil {
		t.Error("a string longer than it claims decompressed")
	}
}

// TestListpack: each of the listpack's encodings, as Redis 7.0 writes
// them, read back.
func TestListpack(t *testing.T) {
	var body []byte
	add := func(enc ...byte) {
		body = append(body, enc...)
		n := len(enc)
		switch {
		case n < 128:
			body = append(body, byte(n))
		default:
			body = append(body, byte(n>>7), byte(n&127)|128)
		}
	}
	add(0x05)                         // 7-bit: 5
	add(0x82, 'h', 'i')               // 6-bit string
	add(0xdf, 0xff)                   // 13-bit: -1
	add(0xf1, 0x00, 0x80)             // int16: -32768
	add(0xf2, 0x01, 0x00, 0x80)       // int24: -8388607
	add(0xf3, 0xff, 0xff, 0xff, 0x7f) // int32: max
	add(0xf4, 0, 0, 0, 0, 0, 0, 0, 0x80)
	long := append([]byte{0xe0 | 1, 0x2c}, strings.Repeat("x", 300)...) // 12-bit string
	add(long...)
	lp := append(make([]byte, 6), body...)
	lp = append(lp, 0xff)
	lp[0], lp[1], lp[2], lp[3] = byte(len(lp)), byte(len(lp)>>8), 0, 0
	lp[4] = 8
	got, err := listpackItems(string(lp))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"5", "hi", "-1", "-32768", "-8388607", "2147483647", "-9223372036854775808", strings.Repeat("x", 300)}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	lp[0]++ // its size no longer its length
	if _, err := listpackItems(string(lp)); err == nil {
		t.Fatal("a listpack of the wrong size read")
	}
}

// hostileRDB is a valid header and one key of type typ, whose value is
// body, without EOF.
func hostileRDB(typ byte, body ...byte) []byte {
	b := []byte("REDIS0010")
	b = append(b, typ, 1, 'k')
	return append(b, body...)
}

// TestRDBLoadHostile: lengths past the end of the file, huge counts and
// an LZF string that claims to expand past any bound fail at once, having
// allocated next to nothing; a bad checksum and a cut file fail too.
func TestRDBLoadHostile(t *testing.T) {
	for name, data := range map[string][]byte{
		"string past the end":     hostileRDB(rdbTypeString, 0x80, 0x7f, 0xff, 0xff, 0xff, 'x'),
		"2^60 fields":             hostileRDB(rdbTypeHash, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 'f', 1, 'v'),
		"2^60 members":            hostileRDB(rdbTypeZSet2, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0),
		"lzf of 4 GiB":            hostileRDB(rdbTypeString, 0xc3, 2, 0x80, 0xff, 0xff, 0xff, 0xff, 0, 'a'),
		"listpack past the end":   hostileRDB(rdbTypeHashLP, 0x0a, 0xff, 0xff, 0, 0, 2, 0, 0xff),
		"a type it does not hold": hostileRDB(14, 0),
		"a second database":       append([]byte("REDIS0010"), rdbOpSelectDB, 1),
		"not RDB":                 []byte("*1\r\n$4\r\nPING\r\n"),
		"a later version":         []byte("REDIS0099"),
	} {
		resetData(t)
		if _, err := rdbLoad(data, 0); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	resetTx(t)
	tc := newTxClient(t)
	fillKeys(tc, 20)
	path := filepath.Join(t.TempDir(), "dump.rdb")
	if err := snapshotRun(&rdbEncoder{}, path); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	for cut := 9; cut < len(good); cut += 7 {
		resetData(t)
		if _, err := rdbLoad(good[:cut], 0); err == nil {
			t.Fatalf("the file cut at %d of %d bytes loaded", cut, len(good))
		}
	}
	bad := slices.Clone(good)
	bad[len(bad)/2] ^= 1
	resetData(t)
	if _, err := rdbLoad(bad, 0); err == nil {
		t.Fatalf("a flipped bit loaded: %v", err)
	}
}

// FuzzRDBLoad: no file, however made, panics the loader.
func FuzzRDBLoad(f *testing.F) {
	resetData(f)
	run("set", "s", "v")
	run("zadd", "z", "1.5", "m")
	run("hset", "h", "f", "v")
	run("pexpire", "s", "100000")
	path := filepath.Join(f.TempDir(), "dump.rdb")
	if err := snapshotRun(&rdbEncoder{}, path); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	f.Add(good)
	f.Add(hostileRDB(rdbTypeZSetLP, 0x0a, 0x0a, 0, 0, 0, 2, 0, 1, 1, 0xff))
	for _, data := range hostileRDBFiles() {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		resetData(t)
		rdbLoad(data, 0)
	})
}

// TestRDBFieldTTLs: a hash whose fields have TTLs makes the file Redis
// 7.4's version 12, with the hash in RDB_TYPE_HASH_METADATA, and loads
// back with each field's expiry; without one the file stays version 10,
// which Redis 7.0 reads.
func TestRDBFieldTTLs(t *testing.T) {
	resetTx(t)
	tc := newTxClient(t)
	path := filepath.Join(t.TempDir(), "dump.rdb")
	save := func() []byte {
		t.Helper()
		if err := snapshotRun(&rdbEncoder{}, path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tc.expect(":3\r\n", "HSET", "h", "a", "1", "b", "2", "c", "3")
	if data := save(); string(data[:9]) != "REDIS0010" {
		t.Fatalf("a file without field TTLs starts %q", data[:9])
	}
	tc.expect("*2\r\n:1\r\n:1\r\n", "HPEXPIRE", "h", "100000", "FIELDS", "2", "a", "b")
	tc.expect("*1\r\n:1\r\n", "HPEXPIRE", "h", "200000", "FIELDS", "1", "b")
	data := save()
	if string(data[:9]) != "REDIS0012" {
		t.Fatalf("a file with field TTLs starts %q", data[:9])
	}
	resetTx(t)
	if _, err := rdbLoad(data, int64(getUnixMs())); err != nil {
		t.Fatal(err)
	}
	tc = newTxClient(t)
	for f, want := range map[string][2]int64{"a": {99_000, 100_000}, "b": {199_000, 200_000}, "c": {-1, -1}} {
		reply := tc.do("HPTTL", "h", "FIELDS", "1", f)
		var ttl int64
		fmt.Sscanf(reply, "*1\r\n:%d", &ttl)
		if ttl < want[0] || ttl > want[1] {
			t.Errorf("field %s: HPTTL %q after the load, want %d to %d", f, reply, want[0], want[1])
		}
	}
	if len(gData.fieldHeap) != 1 {
		t.Errorf("the loaded hash has no timer for its fields")
	}
}

// TestRDBChecksumBeforeKeys: a file whose only damage is its checksum is
// refused before a key is loaded, so a damaged file costs no loading (the
// walk used to load every key and meet the checksum at the end).
func TestRDBChecksumBeforeKeys(t *testing.T) {
	resetTx(t)
	fillKeys(newTxClient(t), 20)
	path := filepath.Join(t.TempDir(), "dump.rdb")
	if err := snapshotRun(&rdbEncoder{}, path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	data[len(data)-1] ^= 1
	resetData(t)
	n, err := rdbLoad(data, 0)
	if err == nil || n != 0 {
		t.Fatalf("a file with a wrong checksum: loaded %d keys, %v", n, err)
	}
	data[len(data)-1] ^= 1
	resetData(t)
	if n, err := rdbLoad(data, 0); err != nil || n != 60 {
		t.Fatalf("the file whole: loaded %d keys, %v", n, err)
	}
}

// TestSnapshotTempNotTheFilesThemselves: the start's clean-up of earlier
// processes' temporary files takes neither the RDB file nor the log for
// one, however they are named: a dump named temp-3999990-appendonly.aof
// (the log's temporary name for a dead process) was removed at start.
func TestSnapshotTempNotTheFilesThemselves(t *testing.T) {
	savedRDB, savedAOF := rdbState.filename, aofFilename
	t.Cleanup(func() { rdbState.filename, aofFilename = savedRDB, savedAOF })
	rdbState.filename, aofFilename = "temp-3999990-appendonly.aof", "appendonly.aof"
	if _, ok := snapshotTempPid("temp-3999990-appendonly.aof"); ok {
		t.Error("the dump, named like the log's temporary file, is taken for one")
	}
	rdbState.filename, aofFilename = "dump.rdb", "temp-3999990-dump.rdb"
	if _, ok := snapshotTempPid("temp-3999990-dump.rdb"); ok {
		t.Error("the log, named like the dump's temporary file, is taken for one")
	}
	if pid, ok := snapshotTempPid("temp-3999990-temp-3999990-dump.rdb"); !ok || pid != 3999990 {
		t.Errorf("the log's own temporary file: %d, %v", pid, ok)
	}
}

// TestResetStatSnapshots: CONFIG RESETSTAT zeroes INFO persistence's
// counts of saves and rewrites too, as Redis 7.0 does.
func TestResetStatSnapshots(t *testing.T) {
	resetData(t)
	rdbState.saves, aofRW.rewrites = 3, 2
	if got := respRun(t, "CONFIG", "RESETSTAT"); got != "+OK\r\n" {
		t.Fatalf("CONFIG RESETSTAT: %q", got)
	}
	if rdbState.saves != 0 || aofRW.rewrites != 0 {
		t.Fatalf("after RESETSTAT: rdb_saves %d, aof_rewrites %d", rdbState.saves, aofRW.rewrites)
	}
}

// TestSnapshotRenameCopyKeepMark: RENAME and COPY keep the snapshot's
// mark right, whichever way the mark stands: keys renamed or copied
// between two snapshots are in the second once each, and keys renamed or
// copied while one runs are in it as they were when it began. (RENAME set
// the key's length over the mark, and COPY made its key without one, so
// every other snapshot left them out, or wrote them twice: a file that
// neither this server nor Redis loads.)
func TestSnapshotRenameCopyKeepMark(t *testing.T) {
	resetTx(t)
	tc := newTxClient(t)
	const n = 200
	for i := range n {
		tc.do("SET", "s:"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	snap := func(step func(i int)) {
		t.Helper()
		want := keySpaceLines()
		path := filepath.Join(t.TempDir(), "snap")
		var done error = os.ErrClosed
		s, err := snapshotBegin(lineEncoder{}, path, func(_ *snapshot, err error) { done = err })
		if err != nil {
			t.Fatal(err)
		}
		finishSnapshot(t, s, 10, step)
		if done != nil {
			t.Fatalf("the snapshot ended with %v", done)
		}
		got := readLines(t, path)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("mark %x: the snapshot holds %d keys, the instant had %d", snapMark, len(got), len(want))
		}
	}
	for round := range 4 {
		r := strconv.Itoa(round)
		// Between snapshots.
		tc.do("RENAME", "s:"+strconv.Itoa(round), "moved:"+r)
		tc.do("COPY", "s:"+strconv.Itoa(n-1-round), "copied:"+r)
		snap(func(i int) {
			// During one: keys the walk has reached and keys it has not.
			k := strconv.Itoa(10 + 7*i + round)
			tc.do("RENAME", "s:"+k, "during:"+r+":"+k)
			tc.do("COPY", "s:"+strconv.Itoa(n-10-i), "dcopy:"+r+":"+k)
		})
	}
	gData.db.All(func(ent *entry) {
		if ent.klen&kSnapMark != snapMark {
			t.Fatalf("%q lacks the mark after the snapshots", ent.key())
		}
	})
}

// TestBgsaveQueuedInTransaction: BGSAVE inside a transaction is
// scheduled, to start once EXEC ends, as in Redis: a snapshot taken in
// its middle would hold part of it. The loop's check then starts it.
func TestBgsaveQueuedInTransaction(t *testing.T) {
	resetTx(t)
	dir := aofDir
	aofDir = t.TempDir()
	t.Cleanup(func() { aofDir, rdbState.scheduled = dir, false })
	tc := newTxClient(t)
	for _, cmd := range [][]string{{"MULTI"}, {"SET", "a", "1"}, {"BGSAVE"}, {"SET", "b", "2"}} {
		tc.do(cmd...)
	}
	if got, want := tc.do("EXEC"), "*3\r\n+OK\r\n+Background saving scheduled\r\n+OK\r\n"; got != want {
		t.Fatalf("EXEC: %q, want %q", got, want)
	}
	if gSnap != nil || !rdbState.scheduled {
		t.Fatalf("inside EXEC, a snapshot started (%v), or the save was not scheduled (%v)", gSnap != nil, rdbState.scheduled)
	}
	rdbCron()
	s := gSnap
	if s == nil {
		t.Fatal("the loop's check did not start the scheduled save")
	}
	for !s.walked {
		s.walk(1 << 30)
	}
	s.finish(<-s.finished)
	if !rdbState.lastOK {
		t.Fatal("the scheduled save failed")
	}
}
