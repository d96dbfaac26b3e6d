package server

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// keySpaceDump describes every key: its type, its value (a sorted set's
// members in order, a hash's fields sorted) and its expiry, to tell
// whether a command changed anything.
func keySpaceDump() []string {
	var out []string
	now := getUnixMs()
	gData.db.All(func(ent *entry) {
		var val string
		switch ent.typ() {
		case tZSet:
			z := ent.obj.zset
			for node := z.SeekGE(math.Inf(-1), ""); node != nil; node = z.Offset(node, 1) {
				val += fmt.Sprintf("%s=%v ", node.Name(), node.Score())
			}
		case tHash:
			var fields []string
			for _, p := range ent.obj.hash.GetAll(now) {
				fields = append(fields, fmt.Sprintf("%s=%s@%d", p.Name, p.Value, ent.obj.hash.ExpireTime(now, p.Name)))
			}
			sort.Strings(fields)
			val = strings.Join(fields, " ")
		default:
			val = ent.val()
		}
		out = append(out, fmt.Sprintf("%s %s %q ttl=%d", ent.key(), typeName(ent), val, entryExpireMs(ent, 0)))
	})
	sort.Strings(out)
	return out
}

// TestRESPRename: RENAME moves the value and its TTL, whatever its type,
// replacing what the new key held (its TTL too); RENAMENX only onto a
// missing key; a missing source is an error that changes nothing.
func TestRESPRename(t *testing.T) {
	resetData(t)
	respSteps(t,
		"RENAME nosuch x => -ERR no such key|",
		"RENAMENX nosuch x => -ERR no such key|",
		"SET a 1 => +OK|",
		"PEXPIREAT a 4000000000000 => :1|",
		"SET b 2 => +OK|",
		"RENAME a b => +OK|",
		"EXISTS a => :0|",
		"GET b => $1|1|",
		"PEXPIRETIME b => :4000000000000|",
		"SET c 3 EX 100 => +OK|",
		"RENAME b c => +OK|",
		"PEXPIRETIME c => :4000000000000|", // c's own TTL is gone with its value
		"RENAME c c => +OK|",
		"RENAMENX c c => :0|",
		"ZADD z 1 m 2 n => :2|",
		"RENAMENX z c => :0|",
		"RENAMENX z y => :1|",
		"ZRANGE y 0 -1 WITHSCORES => *4|$1|m|$1|1|$1|n|$1|2|",
		"HSET h f v => :1|",
		"HPEXPIREAT h 4000000000000 FIELDS 1 f => *1|:1|",
		"RENAME h y => +OK|",
		"TYPE y => +hash|",
		"HPEXPIRETIME y FIELDS 1 f => *1|:4000000000000|",
		"EXISTS h z => :0|",
		"APPEND s abc => :3|",
		"APPEND s def => :6|",
		"RENAME s t => +OK|",
		"GET t => $6|abcdef|",
		"APPEND t g => :7|",
		"GET t => $7|abcdefg|",
		"DBSIZE => :3|",
		"RENAME t => -ERR wrong number of arguments for 'rename' command|",
	)
	// The hash's field timer moved with it: it is the entry's at y.
	if len(gData.fieldHeap) != 1 || gData.fieldHeap[0].Owner != lookupEntry("y") {
		t.Errorf("the field timers after RENAME: %v, want the one of the hash at y", gData.fieldHeap)
	}
}

// TestRESPRenameFreesLargeOnPool: RENAME onto a large sorted set tears it
// down on the thread pool, as DEL does: the request's work does not grow
// with the set.
func TestRESPRenameFreesLargeOnPool(t *testing.T) {
	resetData(t)
	const n = 4 * kLargeContainerSize
	args := []string{"ZADD", "big"}
	for i := range n {
		args = append(args, "1", strconv.Itoa(i))
	}
	respRun(t, args...)
	respRun(t, "SET", "small", "x")
	before := workDone
	if got := respRun(t, "RENAME", "small", "big"); got != "+OK\r\n" {
		t.Fatalf("RENAME: %q", got)
	}
	if did := workDone - before; did >= kLargeContainerSize {
		t.Errorf("RENAME onto a set of %d did %d units of work on the loop, want fewer than %d", n, did, kLargeContainerSize)
	}
}

// TestRESPCopy: COPY copies every type with its TTL and its fields'
// TTLs, into a value of its own; REPLACE, DB 0 and the errors of a
// server of one database.
func TestRESPCopy(t *testing.T) {
	resetData(t)
	respSteps(t,
		"COPY nosuch x => :0|",
		"SET s v => +OK|",
		"PEXPIREAT s 4000000000123 => :1|",
		"COPY s s => -ERR source and destination objects are the same|",
		"COPY s t => :1|",
		"PEXPIRETIME t => :4000000000123|",
		"COPY s t => :0|",
		"SET t other => +OK|",
		"COPY s t REPLACE REPLACE DB 0 => :1|",
		"GET t => $1|v|",
		"APPEND t w => :2|",
		"GET s => $1|v|",
		"ZADD z 1 a 2 b => :2|",
		"COPY z z2 => :1|",
		"ZADD z2 3 c => :1|",
		"ZCARD z => :2|",
		"ZRANGE z2 0 -1 WITHSCORES => *6|$1|a|$1|1|$1|b|$1|2|$1|c|$1|3|",
		"HSET h f 1 g 2 => :2|",
		"HPEXPIREAT h 4000000000000 FIELDS 1 f => *1|:1|",
		"COPY h h2 => :1|",
		"HPEXPIRETIME h2 FIELDS 2 f g => *2|:4000000000000|:-1|",
		"HSET h2 g 3 => :0|",
		"HGET h g => $1|2|",
		"TTL h2 => :-1|",
	)
	before := keySpaceDump()
	respSteps(t,
		"COPY s u DB 1 => -ERR DB index is out of range|",
		"COPY s u DB x => -ERR value is not an integer or out of range|",
		"COPY s u DB => -ERR syntax error|",
		"COPY s u REPLACE x => -ERR syntax error|",
		"COPY s u DB 0 REPLACE nope => -ERR syntax error|",
		"COPY s => -ERR wrong number of arguments for 'copy' command|",
	)
	if diff := cmp.Diff(before, keySpaceDump()); diff != "" {
		t.Errorf("a refused COPY changed the key space (-before +after):\n%s", diff)
	}
}

// TestRESPCopyTooBig: a COPY of a value past kCopyMaxItems is refused and
// changes nothing; one at the bound is copied, and charged for each item.
func TestRESPCopyTooBig(t *testing.T) {
	resetData(t)
	fill := func(key string, n int) {
		args := []string{"HSET", key}
		for i := range n {
			args = append(args, strconv.Itoa(i), "v")
		}
		respRun(t, args...)
	}
	fill("h", kCopyMaxItems)
	before := workDone
	if got := respRun(t, "COPY", "h", "h2"); got != ":1\r\n" {
		t.Fatalf("COPY at the bound: %q", got)
	}
	if did := workDone - before; did < kCopyMaxItems*kCopyItemWork {
		t.Errorf("COPY of %d fields charged %d units, want at least %d", kCopyMaxItems, did, kCopyMaxItems*kCopyItemWork)
	}
	if got := respRun(t, "HLEN", "h2"); got != ":"+strconv.Itoa(kCopyMaxItems)+"\r\n" {
		t.Errorf("HLEN of the copy: %q", got)
	}
	respRun(t, "HSET", "h", "one", "more")
	dump := keySpaceDump()
	if got := respRun(t, "COPY", "h", "h2", "REPLACE"); got != "-"+errCopyTooBig+"\r\n" {
		t.Errorf("COPY past the bound: %q", got)
	}
	if diff := cmp.Diff(dump, keySpaceDump()); diff != "" {
		t.Errorf("a refused COPY changed the key space:\n%.500s", diff)
	}
}

// TestRESPRandomKey: null on an empty key space, every key in time, a
// bounded probe per call whatever the key space's size.
func TestRESPRandomKey(t *testing.T) {
	resetData(t)
	respSteps(t,
		"RANDOMKEY => $-1|",
		"SET x 1 => +OK|",
		"DEL x => :1|",
		"RANDOMKEY => $-1|",
		"RANDOMKEY x => -ERR wrong number of arguments for 'randomkey' command|",
	)
	keys := []string{"a", "b", "c", "d", "e"}
	for _, k := range keys {
		respRun(t, "SET", k, "v")
	}
	seen := map[string]int{}
	for range 500 {
		got := respRun(t, "RANDOMKEY")
		seen[strings.TrimSuffix(got[strings.Index(got, "\n")+1:], "\r\n")]++
	}
	if len(seen) != len(keys) {
		t.Errorf("RANDOMKEY answered %v in 500 tries, want each of %v", seen, keys)
	}
	for i := range 100_000 {
		insertEntry(newEntry("k"+strconv.Itoa(i), []byte("v")))
	}
	for range 100 {
		before := workDone
		if got := respRun(t, "RANDOMKEY"); !strings.HasPrefix(got, "$") || got == "$-1\r\n" {
			t.Fatalf("RANDOMKEY: %q", got)
		}
		if did := workDone - before; did > kRandomTries*kRandomWork+8 {
			t.Fatalf("RANDOMKEY did %d units of work over %d keys", did, gData.db.Len())
		}
	}
}

// TestRESPExpireAt: EXPIREAT and PEXPIREAT take EXPIRE's options, delete
// a key given a time past, and read back to the unit from
// EXPIRETIME/PEXPIRETIME (seconds rounded to the nearest).
func TestRESPExpireAt(t *testing.T) {
	resetData(t)
	respSteps(t,
		"EXPIRETIME k => :-2|",
		"PEXPIRETIME k => :-2|",
		"SET k v => +OK|",
		"EXPIRETIME k => :-1|",
		"PEXPIRETIME k => :-1|",
		"EXPIREAT k 4000000000 XX => :0|",
		"EXPIREAT k 4000000000 NX => :1|",
		"EXPIRETIME k => :4000000000|",
		"PEXPIREAT k 4000000000999 LT => :0|",
		"PEXPIREAT k 4000000000999 GT => :1|",
		"EXPIRETIME k => :4000000001|",
		"PEXPIREAT k 4000000000499 => :1|",
		"EXPIRETIME k => :4000000000|",
		"PEXPIREAT k 4000000000999 => :1|",
		"PEXPIRETIME k => :4000000000999|",
		"PEXPIREAT k 4000000000999 NX GT => -ERR NX and XX, GT or LT options at the same time are not compatible|",
		"EXPIREAT k 1 foo => -ERR Unsupported option foo|",
		"EXPIREAT k x => -ERR value is not an integer or out of range|",
		"EXPIREAT k 9223372036854775807 => -ERR invalid expire time in 'expireat' command|",
		"PEXPIREAT k 9223372036854770000 => :1|",
		"PERSIST k => :1|",
		"EXPIREAT k 1 => :1|",
		"EXISTS k => :0|",
		"SET k v => +OK|",
		"PEXPIREAT k -9223372036854770000 => :1|",
		"EXISTS k => :0|",
		"EXPIREAT nosuch 4000000000 => :0|",
		"TOUCH k nosuch => :0|",
		"SET a 1 => +OK|",
		"TOUCH a a b => :2|",
	)
	// A TTL set relative to now reads back within the time the test took.
	respRun(t, "SET", "r", "v")
	now := keyNowMs()
	respRun(t, "PEXPIRE", "r", "100000")
	got := respRun(t, "PEXPIRETIME", "r")
	at, _ := strconv.ParseInt(strings.Trim(got, ":\r\n"), 10, 64)
	if after := keyNowMs(); at < now+100000 || at > after+100000 {
		t.Errorf("PEXPIRETIME after PEXPIRE 100000: %d, want within [%d, %d]", at, now+100000, after+100000)
	}
}

// TestRESPObjectMemory: OBJECT's subcommands and MEMORY USAGE, their
// nulls for a missing key and their errors.
func TestRESPObjectMemory(t *testing.T) {
	resetData(t)
	respSteps(t,
		"SET s 12 => +OK|",
		"APPEND a x => :1|",
		"APPEND a y => :2|",
		"ZADD z 1 m => :1|",
		"HSET h f v => :1|",
		"OBJECT ENCODING s => $6|embstr|",
		"OBJECT ENCODING a => $3|raw|",
		"OBJECT ENCODING z => $7|avltree|",
		"OBJECT ENCODING h => $9|hashtable|",
		"OBJECT ENCODING nosuch => $-1|",
		"OBJECT FREQ nosuch => $-1|",
		"OBJECT IDLETIME s => :0|",
		"OBJECT REFCOUNT s => :1|",
		"OBJECT ENCODING => -ERR wrong number of arguments for 'object|encoding' command|",
		"OBJECT => -ERR wrong number of arguments for 'object' command|",
		"OBJECT nosuch s => -ERR unknown subcommand 'nosuch'. Try OBJECT HELP.|",
		"MEMORY USAGE nosuch => $-1|",
		"MEMORY USAGE s SAMPLES => -ERR syntax error|",
		"MEMORY USAGE s SAMPLES -1 => -ERR syntax error|",
		"MEMORY USAGE s SAMPLES x => -ERR value is not an integer or out of range|",
		"MEMORY USAGE s other 1 => -ERR syntax error|",
	)
	if got := respRun(t, "OBJECT", "FREQ", "s"); !strings.HasPrefix(got, "-ERR An LFU maxmemory policy is not selected") {
		t.Errorf("OBJECT FREQ: %q", got)
	}
	if got := respRun(t, "OBJECT", "HELP"); !strings.HasPrefix(got, "*"+strconv.Itoa(len(objectHelp))+"\r\n+OBJECT <subcommand>") {
		t.Errorf("OBJECT HELP: %.80q", got)
	}
	usage := func(key string, extra ...string) int {
		got := respRun(t, append([]string{"MEMORY", "USAGE", key}, extra...)...)
		n, err := strconv.Atoi(strings.Trim(got, ":\r\n"))
		if err != nil {
			t.Fatalf("MEMORY USAGE %s: %q", key, got)
		}
		return n
	}
	for _, k := range []string{"s", "a", "z", "h"} {
		if n := usage(k); n <= 0 {
			t.Errorf("MEMORY USAGE %s: %d", k, n)
		}
	}
	small := usage("s")
	respRun(t, "SET", "s", strings.Repeat("x", 10000))
	if big := usage("s"); big < small+10000 {
		t.Errorf("MEMORY USAGE of a 10,000-byte string: %d, of a 2-byte one %d", big, small)
	}
	for i := range 100 {
		respRun(t, "ZADD", "z", strconv.Itoa(i), strings.Repeat("m", 50)+strconv.Itoa(i))
	}
	if all, five := usage("z", "SAMPLES", "0"), usage("z"); all < 101*50 || five < 101*50 {
		t.Errorf("MEMORY USAGE of 101 members of ~50 bytes: %d sampling all, %d sampling 5", all, five)
	}
}

// TestRESPOneDatabase: TIME, and SWAPDB and MOVE as a server of one
// database answers them.
func TestRESPOneDatabase(t *testing.T) {
	resetData(t)
	respSteps(t,
		"SET k v => +OK|",
		"SWAPDB 0 0 => +OK|",
		"SWAPDB 0 1 => -ERR DB index is out of range|",
		"SWAPDB x 0 => -ERR invalid first DB index|",
		"SWAPDB 0 x => -ERR invalid second DB index|",
		"MOVE k 0 => -ERR source and destination objects are the same|",
		"MOVE nosuch 0 => -ERR source and destination objects are the same|",
		"MOVE k 1 => -ERR DB index is out of range|",
		"MOVE k -1 => -ERR DB index is out of range|",
		"MOVE k x => -ERR value is not an integer or out of range|",
		"MOVE k 2147483648 => -"+errIntRange+"|",
		"COPY k k2 DB -2147483649 => -"+errIntRange+"|",
		"GET k => $1|v|",
	)
	got := strings.Split(respRun(t, "TIME"), "\r\n")
	if len(got) != 6 || got[0] != "*2" {
		t.Fatalf("TIME: %q", got)
	}
	sec, err1 := strconv.ParseInt(got[2], 10, 64)
	us, err2 := strconv.ParseInt(got[4], 10, 64)
	if now := keyNowMs() / 1000; err1 != nil || err2 != nil || sec < now-5 || sec > now+5 || us < 0 || us >= 1e6 {
		t.Errorf("TIME: %q", got)
	}
}

// TestExecKeysWorkWithinEstimate: EXEC's weighing of the key commands
// (COPY, RENAME, RANDOMKEY, MEMORY USAGE) bounds the work they do, on
// values of every type and size.
func TestExecKeysWorkWithinEstimate(t *testing.T) {
	resetTx(t)
	rng := rand.New(rand.NewSource(2))
	a := newTxClient(t)
	keys := []string{"s", "z", "h", "k"}
	fill := func(cmd, key string, n int) []string {
		args := []string{cmd, key}
		for i := range n {
			args = append(args, strconv.Itoa(i), strconv.Itoa(rng.Intn(4*n+1)))
		}
		return args
	}
	gen := func() []string {
		k, k2 := keys[rng.Intn(len(keys))], keys[rng.Intn(len(keys))]
		n := []int{1, 30, 3000, kCopyMaxItems / 2}[rng.Intn(4)]
		switch rng.Intn(10) {
		case 0:
			return fill("ZADD", k, n)
		case 1:
			return fill("HSET", k, n)
		case 2:
			return []string{"SET", k, strings.Repeat("v", rng.Intn(100_000))}
		case 3:
			return []string{"COPY", k, k2, "REPLACE"}
		case 4:
			return []string{"RENAME", k, k2}
		case 5:
			return []string{"RENAMENX", k, k2}
		case 6:
			return []string{"RANDOMKEY"}
		case 7:
			return []string{"MEMORY", "USAGE", k, "SAMPLES", "0"}
		case 8:
			// Spelled out: the product would overflow an int on 32-bit builds.
			return []string{"PEXPIREAT", k, []string{"0", "4000000000000"}[rng.Intn(2)]}
		}
		return []string{"INFO", "commandstats", "errorstats"}
	}
	runs, _ := execWithinEstimate(t, a, rng, 60, 8, gen)
	if runs < 30 {
		t.Errorf("only %d of 60 transactions ran", runs)
	}
}

// FuzzKeyArgs runs the key commands' grammars (COPY's options, the EXPIRE
// family's, MEMORY USAGE's) on arbitrary arguments over a small key
// space: no panic, and a reply that is an error changes nothing.
func FuzzKeyArgs(f *testing.F) {
	for _, seed := range []string{
		"COPY s t DB 0 REPLACE", "COPY z t db 1", "COPY h h2 replace DB", "EXPIREAT s 1 NX XX",
		"PEXPIREAT z 9223372036854775807 GT", "EXPIRE h -9223372036854775808 LT", "MEMORY USAGE z SAMPLES 0",
		"RENAME s z", "RENAMENX z s", "MOVE s 0", "SWAPDB 0 -0", "OBJECT ENCODING h", "PEXPIRETIME s",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		resetData(t)
		respRun(t, "SET", "s", "v")
		respRun(t, "ZADD", "z", "1", "m")
		respRun(t, "HSET", "h", "f", "v")
		respRun(t, "HPEXPIREAT", "h", "4000000000000", "FIELDS", "1", "f")
		args := strings.Fields(line)
		if len(args) == 0 || len(args) > 12 {
			return
		}
		before := keySpaceDump()
		got := respRun(t, args...)
		if rest, ok := skipReply([]byte(got)); !ok || len(rest) != 0 {
			t.Fatalf("%q: not one reply: %q", args, got)
		}
		if strings.HasPrefix(got, "-") {
			if diff := cmp.Diff(before, keySpaceDump()); diff != "" {
				t.Fatalf("%q answered %q and changed the key space:\n%s", args, got, diff)
			}
		}
	})
}

// TestRESPNoMultiSave: inside MULTI, SAVE and SHUTDOWN are not allowed,
// and the transaction fails whole, as in Redis (what they do alone is
// rdb_test.go's).
func TestRESPNoMultiSave(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	for _, cmd := range []string{"SAVE", "SHUTDOWN"} {
		a.expect(okReply, "MULTI")
		a.expect(queued, "SET", "foo", "bar")
		a.expect("-"+errNoMulti+"\r\n", cmd)
		a.expect(execAborted, "EXEC")
		a.expect("$-1\r\n", "GET", "foo")
	}
}
