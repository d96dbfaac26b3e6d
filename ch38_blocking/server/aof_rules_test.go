package server

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// logOn makes the server keep a log, in a file of the test's own, with
// an empty key space; the commands then run are appended to aofBuf.
func logOn(t *testing.T) string {
	t.Helper()
	resetData(t)
	path := filepath.Join(t.TempDir(), "appendonly.aof")
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	aofFd, aofBuf, aofWritten, aofWriteErr = fd, nil, 0, nil
	aofCounted = 0 // resetData emptied the budget
	loggedSince = bothClocks()
	t.Cleanup(func() {
		unix.Close(fd)
		aofFd, aofBuf, aofWritten, aofWriteErr = -1, nil, 0, nil
		aofAccount()
	})
	return path
}

// loggedSince is the unix time in ms when the log buffer was last
// emptied: the commands in it ran at or after it.
var loggedSince int64

// bothClocks returns the earlier of the two clocks the server reads, the
// key TTLs' (keyNowMs) and the hash fields' (getUnixMs); each may be a
// millisecond or so ahead of the other.
func bothClocks() int64 {
	return min(keyNowMs(), int64(getUnixMs()))
}

// logged returns the commands appended since the last call, one line
// each, the arguments joined by spaces, and empties the buffer.
func logged(t *testing.T) []string {
	t.Helper()
	lines := logLines(t, aofBuf)
	aofBuf = aofBuf[:0]
	loggedSince = bothClocks()
	return lines
}

// logLines returns the commands the log's bytes b hold, one line each,
// the arguments joined by spaces.
func logLines(t *testing.T, b []byte) []string {
	t.Helper()
	var lines []string
	ar := &aofReader{r: bufioReader(b)}
	for ar.off < int64(len(b)) {
		args, err := ar.record()
		if err != nil {
			t.Fatalf("the log's own bytes do not parse at %d: %v", ar.off, err)
		}
		var words []string
		for _, a := range args {
			words = append(words, string(a))
		}
		lines = append(lines, strings.Join(words, " "))
	}
	return lines
}

// respSession runs RESP commands on one connection, as a client would,
// and returns the reply of the last.
func respSession(t *testing.T, cmds ...string) string {
	t.Helper()
	st := newRESPState(nil)
	var reply string
	for _, cmd := range cmds {
		var args [][]byte
		for _, a := range strings.Fields(cmd) {
			args = append(args, []byte(a))
		}
		st.w.begin(nil)
		respDo(&conn{state: stateReq}, st, args)
		reply = string(st.w.buf)
		outputHeld -= cap(st.w.buf)
	}
	return reply
}

// expectLog checks the commands appended since the last check; a word
// "AT+n" stands for a unix time n ms after the moment a command ran,
// which lies between the last check and now: a slow machine widens the
// window, it never fails the check.
func expectLog(t *testing.T, want ...string) {
	t.Helper()
	from := loggedSince
	got := logged(t)
	to := max(keyNowMs(), int64(getUnixMs()))
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := strings.Fields(got[i]), strings.Fields(want[i])
		ok = len(g) == len(w)
		for j := 0; ok && j < len(g); j++ {
			if n, isAt := strings.CutPrefix(w[j], "AT+"); isAt {
				ms, _ := strconv.ParseInt(n, 10, 64)
				at, _ := strconv.ParseInt(g[j], 10, 64)
				ok = at >= from+ms && at <= to+ms
			} else {
				ok = g[j] == w[j]
			}
		}
	}
	if !ok {
		t.Errorf("logged:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestAOFLogsChanges: a command is logged when it changed the key space,
// as it was given unless its rule says otherwise, and not when it did not.
func TestAOFLogsChanges(t *testing.T) {
	logOn(t)
	respSession(t, "SET k v", "SET k w NX", "GET k", "DEL nosuch", "INCR n", "DEL k", "ZADD z 1 a", "ZADD z 1 a", "HSET h f v")
	expectLog(t, "SET k v", "INCR n", "DEL k", "ZADD z 1 a", "HSET h f v")
	respSession(t, "FLUSHALL", "FLUSHALL")
	expectLog(t, "FLUSHALL", "FLUSHALL") // as Redis: even an empty key space
}

// TestAOFLogsAbsoluteTimes: a TTL relative to now is logged as the
// absolute time it came to, a SET with one as SET and PEXPIREAT in one
// transaction, and an expiry already past as the DEL it was.
func TestAOFLogsAbsoluteTimes(t *testing.T) {
	logOn(t)
	respSession(t, "SET s v EX 100", "SET k v", "EXPIRE k 50", "PEXPIRE k 2000", "PERSIST k", "EXPIRE k -1")
	expectLog(t, "MULTI", "SET s v", "PEXPIREAT s AT+100000", "EXEC",
		"SET k v", "PEXPIREAT k AT+50000", "PEXPIREAT k AT+2000", "PERSIST k", "DEL k")
	// The book's protocol: its pexpire, and its set, which keeps the TTL.
	bookRequest(bookArgs("set", "b", "1"), &binWriter{})
	bookRequest(bookArgs("pexpire", "b", "3000"), &binWriter{})
	bookRequest(bookArgs("set", "b", "2"), &binWriter{})
	expectLog(t, "SET b 1", "PEXPIREAT b AT+3000", "MULTI", "SET b 2", "PEXPIREAT b AT+3000", "EXEC")
	// The book's zadd: a new member and a new score are logged, on a key
	// no one watches; the same score again is not.
	bookRequest(bookArgs("zadd", "bz", "1", "m"), &binWriter{})
	bookRequest(bookArgs("zadd", "bz", "0x10", "m"), &binWriter{})
	bookRequest(bookArgs("zadd", "bz", "16", "m"), &binWriter{})
	expectLog(t, "ZADD bz 1 m", "ZADD bz 16 m")
	// Hash fields, with their TTLs.
	respSession(t, "HSET h f v g w", "HPEXPIRE h 5000 FIELDS 2 f nosuch")
	// Only the fields whose TTL changed: not nosuch, nor g, which had none.
	expectLog(t, "HSET h f v g w", "HPEXPIREAT h AT+5000 FIELDS 1 f")
	respSession(t, "HGETEX h PERSIST FIELDS 2 f g", "HPEXPIRE h 1000 FIELDS 2 f g")
	expectLog(t, "HPERSIST h FIELDS 1 f", "HPEXPIREAT h AT+1000 FIELDS 2 f g")
	respSession(t, "HPEXPIRE h 0 FIELDS 2 f nosuch")
	expectLog(t, "HDEL h f")
	// HINCRBYFLOAT's field is the one it names, even one named FIELDS.
	respSession(t, "HINCRBYFLOAT h fields 1.5", "HINCRBYFLOAT h FIELDS 0.1")
	expectLog(t, "HSET h fields 1.5", "HSET h FIELDS 0.1")
}

// bookArgs is a request of the book's protocol.
func bookArgs(args ...string) [][]byte {
	var b [][]byte
	for _, a := range args {
		b = append(b, []byte(a))
	}
	return b
}

// TestAOFLogsTransactions: EXEC's writes are logged in one MULTI/EXEC,
// once, however many of them were logged as more than one command.
func TestAOFLogsTransactions(t *testing.T) {
	logOn(t)
	respSession(t, "MULTI", "SET a 1", "INCR b", "SET c 1 PX 1000", "GET a", "EXEC")
	expectLog(t, "MULTI", "SET a 1", "INCR b", "SET c 1", "PEXPIREAT c AT+1000", "EXEC")
	respSession(t, "MULTI", "SET a 2", "EXEC")
	expectLog(t, "SET a 2") // one command needs no wrapping
}

// TestAOFBigTransactionWrittenAsItRuns: a transaction whose commands log
// more than kAOFTxPiece goes to the file as EXEC runs them, its MULTI
// first, so that the log's buffer holds at most a piece and a command
// rather than the whole transaction, which is outside the memory budget
// (and was copied again at the end to put the MULTI in front). The file
// holds it once, whole, and replays to the same key space.
func TestAOFBigTransactionWrittenAsItRuns(t *testing.T) {
	path := logOn(t)
	value := strings.Repeat("v", 64<<10)
	cmds := []string{"MULTI"}
	for i := range 40 {
		cmds = append(cmds, "SET k"+strconv.Itoa(i)+" "+value)
	}
	respSession(t, append(cmds, "EXEC")...)
	if len(aofBuf) > kAOFTxPiece+len(value)+64 {
		t.Errorf("after EXEC the log's buffer holds %d bytes of its %d", len(aofBuf), 40*len(value))
	}
	aofWrite()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := logLines(t, b)
	if len(lines) != 42 || lines[0] != "MULTI" || lines[41] != "EXEC" || !strings.HasPrefix(lines[40], "SET k39 v") {
		t.Fatalf("the file holds %d commands, want MULTI, 40 SETs, EXEC", len(lines))
	}
	before := keyDump()
	resetData(t)
	if _, err := aofLoad(path); err != nil {
		t.Fatal(err)
	}
	if after := keyDump(); after != before {
		t.Fatalf("replayed:\n%s\nwant:\n%s", after, before)
	}
	for i := range 40 {
		if ent := lookupEntry("k" + strconv.Itoa(i)); ent == nil {
			t.Fatalf("k%d is not replayed", i)
		}
	}
}

// TestAOFTransactionAfterBigRecords: a transaction that begins with more
// than a piece (kAOFTxPiece) of other commands' records in the log's
// buffer, and one of its commands that logs nothing, writes those out
// as it runs: its own records then begin after what the write left, and
// its MULTI goes there, whether it wraps them at its end (few) or puts it
// first when they are many. It went where the records had begun before
// the write: past the buffer's end (a crash), or into a value.
func TestAOFTransactionAfterBigRecords(t *testing.T) {
	for _, a := range []string{"1", strings.Repeat("a", 1500<<10)} {
		path := logOn(t)
		pre := strings.Repeat("p", 1100<<10)
		respSession(t, "SET pre "+pre, "MULTI", "GET nokey", "SET a "+a, "SET b 2", "EXEC")
		aofWrite()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"SET pre " + pre, "MULTI", "SET a " + a, "SET b 2", "EXEC"}
		if got := logLines(t, b); !slices.Equal(got, want) {
			t.Fatalf("a of %d bytes: the file holds %d commands, want SET, MULTI, SET, SET, EXEC", len(a), len(got))
		}
	}
}

// TestAOFWriteErrorInTransaction: a write of the log that fails while a
// transaction runs (one big enough to be written as it runs) does not
// refuse the rest of it: a transaction runs whole. The writes after it
// are refused until the log can be written again, and then the file
// holds the transaction whole.
func TestAOFWriteErrorInTransaction(t *testing.T) {
	path := logOn(t)
	good := aofFd
	bad, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(bad)
	aofFd = bad // every write fails
	t.Cleanup(func() { aofWriteErr = nil })
	big := strings.Repeat("v", 600<<10)
	reply := respSession(t, "MULTI", "SET a "+big, "SET b "+big, "SET c 1", "EXEC")
	if reply != "*3\r\n+OK\r\n+OK\r\n+OK\r\n" {
		t.Fatalf("EXEC: %.80q, want three OKs", reply)
	}
	if reply := respSession(t, "SET d 1"); !strings.HasPrefix(reply, "-MISCONF ") {
		t.Fatalf("a write after it: %q, want MISCONF", reply)
	}
	aofFd = good
	aofWrite()
	b, err := os.ReadFile(path)
	if err != nil || aofWriteErr != nil {
		t.Fatal(err, aofWriteErr)
	}
	want := []string{"MULTI", "SET a " + big, "SET b " + big, "SET c 1", "EXEC"}
	if got := logLines(t, b); !slices.Equal(got, want) {
		t.Fatalf("the file holds %d commands, want MULTI, 3 SETs, EXEC", len(got))
	}
}

// TestAOFRefusedTransaction: while the log cannot be written, a write
// queued in MULTI is refused at once and fails the transaction, and an
// EXEC with a write queued before the failure is refused whole, as Redis
// answers both; nothing runs. (The writes of an EXEC ran one by one
// before, each refused or not as the log stood then: a transaction could
// run in part.)
func TestAOFRefusedTransaction(t *testing.T) {
	logOn(t)
	t.Cleanup(func() { aofWriteErr = nil })
	tc := newTxClient(t)
	tc.do("MULTI")
	tc.do("SET", "a", "1")
	aofWriteErr = unix.EIO // a write of the log failed
	const misconf = "MISCONF Errors writing to the AOF file: Input/output error"
	if got := tc.do("EXEC"); got != "-EXECABORT Transaction discarded because of: "+misconf+"\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	tc.do("MULTI")
	if got := tc.do("SET", "b", "1"); got != "-"+misconf+"\r\n" {
		t.Fatalf("SET queued: %q", got)
	}
	tc.do("GET", "a")
	if got := tc.do("EXEC"); got != "-EXECABORT Transaction discarded because of previous errors.\r\n" {
		t.Fatalf("EXEC after the refusal: %q", got)
	}
	if lookupEntry("a") != nil || lookupEntry("b") != nil {
		t.Fatal("a refused transaction wrote")
	}
}

// TestAOFLogsExpiredKeys: a key its TTL removes is logged as deleted, as
// Redis propagates it, so that a replay does not find it later.
func TestAOFLogsExpiredKeys(t *testing.T) {
	logOn(t)
	respSession(t, "SET k v PX 1")
	logged(t)
	deadline := time.Now().Add(10 * time.Second)
	for lookupEntry("k") != nil && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
		processTimers()
	}
	expectLog(t, "DEL k")
}

// TestAOFReplay: what the log holds, replayed into an empty key space,
// gives the same keys, values and TTLs.
func TestAOFReplay(t *testing.T) {
	path := logOn(t)
	respSession(t, "SET s v EX 100", "INCR n", "INCRBY n 9", "HSET h f v g w", "HPEXPIRE h 60000 FIELDS 1 f",
		"ZADD z 1.5 a 2 b", "ZINCRBY z 0.1 a", "MULTI", "SET t 1", "DEL n", "EXEC", "APPEND s x")
	before := keyDump()
	aofWrite()
	if aofWriteErr != nil {
		t.Fatal(aofWriteErr)
	}
	resetData(t)
	size, err := aofLoad(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); size != fi.Size() {
		t.Errorf("loaded %d bytes of %d", size, fi.Size())
	}
	if after := keyDump(); after != before {
		t.Fatalf("replayed:\n%s\nwant:\n%s", after, before)
	}
}

// keyDump describes the key space: each key with its value and TTL, in
// seconds (the replay is a moment later); fields by name, not in hash order.
func keyDump() string {
	var lines []string
	for _, k := range []string{"s", "n", "h", "z", "t"} {
		st := newRESPState(nil)
		line := k
		for _, cmd := range [][]string{{"TYPE", k}, {"GET", k}, {"HMGET", k, "f", "g"}, {"ZRANGE", k, "0", "-1", "WITHSCORES"}, {"TTL", k}, {"HTTL", k, "FIELDS", "2", "f", "g"}} {
			st.w.begin(nil)
			args := bookArgs(cmd...)
			respDo(&conn{state: stateReq}, st, args)
			outputHeld -= cap(st.w.buf)
			line += " " + strings.ReplaceAll(string(st.w.buf), "\r\n", "|")
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// bufioReader reads b.
func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
