package server

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The log's buffer in the memory budget: a long argument is written to
// the file from where the request holds it, not copied; what the buffer
// does hold is counted in inputHeld, and a write whose record the budget
// cannot take is refused before it runs.

// respArgs runs one RESP command given as arguments and returns its reply.
func respRunArgs(st *respState, args [][]byte) string {
	st.w.begin(nil)
	respDo(&conn{state: stateReq}, st, args)
	outputHeld -= cap(st.w.buf)
	return string(st.w.buf)
}

// msetArgs is MSET of n keys, each given a value of size bytes.
func msetArgs(n, size int) [][]byte {
	args := [][]byte{[]byte("MSET")}
	for i := range n {
		args = append(args, []byte("k"+strconv.Itoa(i)), bytes.Repeat([]byte{'a' + byte(i%26)}, size))
	}
	return args
}

// logCounted checks that the budget counts the log's buffer, all of it.
func logCounted(t *testing.T, in0 int) {
	t.Helper()
	if want := cap(aofBuf) + cap(aofRefs)*kAOFRefSize; inputHeld-in0 != want {
		t.Errorf("the budget counts %d bytes for the log, which holds %d", inputHeld-in0, want)
	}
}

// TestAOFLongArgumentsNotCopied: an MSET of 8 MiB of values with the log
// on allocates about what it does with the log off (the key space's
// copies); it allocated some four times the values more while append
// grew the log's buffer a quarter at a time, and held the whole record in
// the buffer, outside the budget, until the turn ended. The file holds
// the record as given.
func TestAOFLongArgumentsNotCopied(t *testing.T) {
	path := logOn(t)
	args := msetArgs(32, 256<<10)
	values := argBytes(args)
	st := newRESPState(nil)
	allocated := func() int {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		if reply := respRunArgs(st, args); reply != "+OK\r\n" {
			t.Fatalf("MSET: %.100q", reply)
		}
		runtime.ReadMemStats(&m1)
		return int(m1.TotalAlloc - m0.TotalAlloc)
	}
	fd := aofFd
	aofFd = -1
	without := allocated()
	aofFd = fd
	in0 := inputHeld
	if with := allocated(); with > without+values/8 {
		t.Errorf("MSET of %d bytes allocated %d with the log on, %d with it off", values, with, without)
	}
	if aofLen() > 0 || cap(aofBuf) > 64<<10 {
		t.Errorf("after MSET the log's buffer holds %d bytes, of room for %d", aofLen(), cap(aofBuf))
	}
	logCounted(t, in0)
	aofWrite()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(resp2Request(args)) {
		t.Errorf("the file holds %d bytes, not the MSET as given (%d)", len(b), respBytes(args))
	}
}

// resp2Request is a request in RESP.
func resp2Request(args [][]byte) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"...)
		b = append(append(b, a...), "\r\n"...)
	}
	return b
}

// TestAOFLogBufferInBudget: the records the buffer holds (short
// arguments are copied into it) are counted in the budget while it holds
// them, and given back once written; and the bytes copied are charged to
// the work meter as they are.
func TestAOFLogBufferInBudget(t *testing.T) {
	logOn(t)
	args := msetArgs(2000, 500)
	in0 := inputHeld
	st := newRESPState(nil)
	resetWork := workDone
	if reply := respRunArgs(st, args); reply != "+OK\r\n" {
		t.Fatalf("MSET: %q", reply)
	}
	withLog := workDone - resetWork
	if aofLen() < argBytes(args) {
		t.Fatalf("the buffer holds %d bytes, want the record of %d", aofLen(), argBytes(args))
	}
	logCounted(t, in0)
	aofWrite()
	logCounted(t, in0)

	// The same MSET with the log off does less work by the record's
	// bytes.
	fd := aofFd
	aofFd = -1
	before := workDone
	respRunArgs(st, args)
	aofFd = fd
	if without := workDone - before; withLog-without < argBytes(args)/kWorkBytes {
		t.Errorf("MSET did %d units of work with the log on, %d with it off: the log's %d bytes are not charged", withLog, without, argBytes(args))
	}
}

// TestAOFRecordRefusedOverBudget: a write whose record the log's buffer
// cannot hold within the budget is refused before it runs, alone or in
// EXEC, and changes nothing; a small one still runs.
func TestAOFRecordRefusedOverBudget(t *testing.T) {
	path := logOn(t)
	saved := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = saved })
	tight := func() { maxOutputTotal = outputHeld + inputHeld + 32<<10 }
	st := newRESPState(nil)
	tight()
	if got := respRunArgs(st, msetArgs(200, 500)); got != "-"+errLogMemory+"\r\n" {
		t.Errorf("MSET of 100 KB with 32 KB of budget left: %.100q", got)
	}
	if lookupEntry([]byte("k0")) != nil || aofLen() > 0 {
		t.Errorf("the refused MSET changed something: k0 %v, %d bytes logged", lookupEntry([]byte("k0")) != nil, aofLen())
	}
	if got := respSession(t, "SET a 1"); got != "+OK\r\n" {
		t.Errorf("SET a 1 with 32 KB of budget left: %q", got)
	}
	maxOutputTotal = saved
	respRunArgs(st, [][]byte{[]byte("MULTI")})
	for i := range 200 {
		respRunArgs(st, [][]byte{[]byte("SET"), []byte("t" + strconv.Itoa(i)), bytes.Repeat([]byte("v"), 500)})
	}
	tight()
	if got := respRunArgs(st, [][]byte{[]byte("EXEC")}); !strings.HasPrefix(got, "-EXECABORT") || !strings.Contains(got, "append-only file's buffer") {
		t.Errorf("EXEC of 200 SETs of 500 bytes with 32 KB of budget left: %.100q", got)
	}
	if lookupEntry([]byte("t0")) != nil {
		t.Error("the refused EXEC ran")
	}
	maxOutputTotal = saved
	aofWrite()
	if b, _ := os.ReadFile(path); string(b) != respCmdText("SET", "a", "1") {
		t.Errorf("the log holds %.100q, want SET a 1 alone", b)
	}
}

// TestAOFLongArgumentsWrapped: records with long arguments, written from
// the arguments, come in the file in their order, a command logged as
// more than one and EXEC's wrapped in MULTI/EXEC as before; the file
// replays to the same key space, and redis-check-aof accepts it.
func TestAOFLongArgumentsWrapped(t *testing.T) {
	path := logOn(t)
	long := strings.Repeat("x", 4*kAOFRefMin)
	respSession(t, "SET b "+long+" PX 100000")
	respSession(t, "MULTI", "SET a "+long, "INCR c", "SET d "+long+" PX 100000", "APPEND a "+long, "EXEC")
	respSession(t, "SET e "+long)
	aofWrite()
	if aofWriteErr != nil {
		t.Fatal(aofWriteErr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range logLines(t, b) {
		w := strings.Fields(line)
		if w[0] == "PEXPIREAT" {
			w[2] = "T" // its time is checked by the tests of the rules
		}
		got = append(got, strings.Join(w, " "))
	}
	want := []string{"MULTI", "SET b " + long, "PEXPIREAT b T", "EXEC",
		"MULTI", "SET a " + long, "INCR c", "SET d " + long, "PEXPIREAT d T", "APPEND a " + long, "EXEC",
		"SET e " + long}
	if !slices.Equal(got, want) {
		for i := range got {
			got[i] = got[i][:min(len(got[i]), 20)]
		}
		t.Errorf("the file holds %q (cut to 20 bytes each), want %d records", got, len(want))
	}
	if _, err := exec.LookPath("redis-check-aof"); err == nil {
		if out, err := exec.Command("redis-check-aof", path).CombinedOutput(); err != nil {
			t.Errorf("redis-check-aof: %v\n%s", err, out)
		}
	}
	resetData(t)
	if _, err := aofLoad(path); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"a": long + long, "b": long, "d": long, "e": long, "c": "1"} {
		if ent := lookupEntry([]byte(key)); ent == nil || ent.val() != want {
			t.Errorf("after the replay %s is not what was written", key)
		}
	}
}

// TestAOFLongArgumentsFailedWrite: a record with a long argument whose
// write fails is copied into the buffer before its command ends, counted
// in the budget, and written whole once the file takes it.
func TestAOFLongArgumentsFailedWrite(t *testing.T) {
	path := logOn(t)
	good := aofFd
	bad, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(bad)
	t.Cleanup(func() { aofFd, aofWriteErr = good, nil })
	in0 := inputHeld
	aofFd = bad
	args := [][]byte{[]byte("SET"), []byte("k"), bytes.Repeat([]byte("v"), 64<<10)}
	st := newRESPState(nil)
	if got := respRunArgs(st, args); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	if aofWriteErr == nil || len(aofRefs) > 0 || aofLen() != respBytes(args) {
		t.Fatalf("after a failed write: error %v, %d references, %d bytes held; want the record's %d in the buffer", aofWriteErr, len(aofRefs), aofLen(), respBytes(args))
	}
	logCounted(t, in0)
	args[2][0] = 'X' // the request's memory, used again: the log has its own copy
	aofFd = good
	aofWrite()
	if b, _ := os.ReadFile(path); string(b) != respCmdText("SET", "k", strings.Repeat("v", 64<<10)) {
		t.Errorf("the log holds %d bytes, not the SET", len(b))
	}
}

// TestAOFDropInsideReferences: dropping the part of a failed write that
// stays in the file (aofDrop) leaves the rest in order, whether the cut
// falls in the buffer's bytes or in a reference's.
func TestAOFDropInsideReferences(t *testing.T) {
	logOn(t)
	build := func() {
		aofBuf, aofRefs, aofRefBytes = aofBuf[:0], aofRefs[:0], 0
		aofAppend([]byte("SET"), []byte("a"), bytes.Repeat([]byte("1"), kAOFRefMin))
		aofAppend([]byte("SET"), []byte("b"), []byte("2"))
		aofAppend([]byte("SET"), []byte("c"), bytes.Repeat([]byte("3"), kAOFRefMin+5))
	}
	content := func() string {
		saved, savedRefs, savedBytes := aofBuf, aofRefs, aofRefBytes
		aofBuf = append([]byte(nil), aofBuf...)
		aofRefs = append([]aofRef(nil), aofRefs...)
		aofOwn()
		s := string(aofBuf)
		aofBuf, aofRefs, aofRefBytes = saved, savedRefs, savedBytes
		return s
	}
	build()
	whole := content()
	for n := 0; n <= len(whole); n++ {
		build()
		aofDrop(n)
		if got := content(); got != whole[n:] || aofLen() != len(whole)-n {
			t.Fatalf("after dropping %d bytes of %d the log holds %d bytes (%d counted), not the rest", n, len(whole), len(got), aofLen())
		}
	}
	aofBuf, aofRefs, aofRefBytes = aofBuf[:0], nil, 0
}
