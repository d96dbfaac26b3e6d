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
)

// The log's buffer in the memory budget: what it holds is counted in
// inputHeld, its bytes are charged as work, and a write whose record the
// budget cannot take is refused before it runs.

// respRunArgs runs one RESP command given as arguments and returns its reply.
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
	if inputHeld-in0 != cap(aofBuf) {
		t.Errorf("the budget counts %d bytes for the log, which holds %d", inputHeld-in0, cap(aofBuf))
	}
}

// TestAOFLongArgumentsCopiedOnce: an MSET of 8 MiB of values with the log
// on copies its record into the log's buffer once, in room made for it
// whole (aofRoom) and counted in the budget: it allocates about the
// record more than with the log off, where append, growing the buffer a
// quarter at a time, allocated some four times the values more, outside
// the budget. The file holds the record as given, and once it is written
// the budget has the buffer back.
func TestAOFLongArgumentsCopiedOnce(t *testing.T) {
	path := logOn(t)
	args := msetArgs(32, 256<<10)
	record := respBytes(args)
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
	if with := allocated(); with > without+record+record/8 {
		t.Errorf("MSET of a %d-byte record allocated %d with the log on, %d with it off", record, with, without)
	}
	if len(aofBuf) != record || cap(aofBuf) > 2*record {
		t.Errorf("after MSET the log's buffer holds %d bytes, of room for %d; want the record's %d", len(aofBuf), cap(aofBuf), record)
	}
	logCounted(t, in0)
	aofWrite()
	if inputHeld != in0 {
		t.Errorf("the budget counts %d bytes after the write, %d before the MSET", inputHeld, in0)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(resp2Request(args)) {
		t.Errorf("the file holds %d bytes, not the MSET as given (%d)", len(b), record)
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
	if len(aofBuf) < argBytes(args) {
		t.Fatalf("the buffer holds %d bytes, want the record of %d", len(aofBuf), argBytes(args))
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
	if lookupEntry([]byte("k0")) != nil || len(aofBuf) > 0 {
		t.Errorf("the refused MSET changed something: k0 %v, %d bytes logged", lookupEntry([]byte("k0")) != nil, len(aofBuf))
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

// TestAOFLongRecordsWrapped: records with long arguments come in the
// file in their order, a command logged as more than one and EXEC's
// wrapped in MULTI/EXEC (aofMulti moves the records after it within the
// buffer); the file replays to the same key space, and redis-check-aof
// accepts it.
func TestAOFLongRecordsWrapped(t *testing.T) {
	path := logOn(t)
	long := strings.Repeat("x", 4096)
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

// TestAOFExecWeighsRecords: with the log on, EXEC weighs each write's
// record among its work before anything runs, and the work the write did
// stays within what was weighed.
func TestAOFExecWeighsRecords(t *testing.T) {
	logOn(t)
	var weighed, did []int
	execDone = func(w, d []int) { weighed, did = w, d }
	t.Cleanup(func() { execDone = nil })
	value := bytes.Repeat([]byte("v"), 256<<10)
	st := newRESPState(nil)
	exec := func() int {
		respRunArgs(st, [][]byte{[]byte("MULTI")})
		respRunArgs(st, [][]byte{[]byte("SET"), []byte("k"), value})
		if got := respRunArgs(st, [][]byte{[]byte("EXEC")}); got != "*1\r\n+OK\r\n" {
			t.Fatalf("EXEC: %.100q", got)
		}
		if did[0] > weighed[0] {
			t.Errorf("the SET did %d units of work, weighed at %d", did[0], weighed[0])
		}
		return weighed[0]
	}
	with := exec()
	fd := aofFd
	aofFd = -1
	without := exec()
	aofFd = fd
	if with-without < len(value)/kWorkBytes {
		t.Errorf("EXEC weighed SET of %d bytes at %d units with the log on, %d with it off", len(value), with, without)
	}
}
