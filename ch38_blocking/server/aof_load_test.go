package server

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// loadFile writes content to a log file of the test's own, replays it
// into an empty key space, and returns the bytes loaded, the file's
// size after, the bytes the replay allocated, and the error.
func loadFile(t *testing.T, content string) (loaded, after int64, allocated uint64, err error) {
	t.Helper()
	resetData(t)
	lastLoadDir = t.TempDir()
	path := filepath.Join(lastLoadDir, "appendonly.aof")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	loaded, err = aofLoad(path)
	runtime.ReadMemStats(&m1)
	fi, statErr := os.Stat(path)
	if statErr != nil {
		t.Fatal(statErr)
	}
	return loaded, fi.Size(), m1.TotalAlloc - m0.TotalAlloc, err
}

// lastLoadDir is the folder of loadFile's last file.
var lastLoadDir string

const setA = "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"

// TestAOFLoadCutTail: a last command cut anywhere loads the commands
// before it, and the file is cut back to them; so is a transaction whose
// EXEC is missing, which loads none of its commands.
func TestAOFLoadCutTail(t *testing.T) {
	for _, tail := range []string{"*", "*3\r", "*3\r\n$3\r\nSE", "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r",
		"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n"} {
		loaded, after, _, err := loadFile(t, setA+tail)
		if err != nil || loaded != int64(len(setA)) || after != loaded {
			t.Errorf("%q: err %v, loaded %d, file %d bytes; want the %d bytes of the whole command", tail, err, loaded, after, len(setA))
		}
		if lookupEntry("a") == nil || lookupEntry("b") != nil {
			t.Errorf("%q: a or b wrong after the replay", tail)
		}
		if cut := keptCut(t); cut != tail {
			t.Errorf("%q: the bytes kept beside the file are %q", tail, cut)
		}
	}
}

// keptCut returns what the load kept beside the file it cut (the last
// test's), or "" if it kept no file.
func keptCut(t *testing.T) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(lastLoadDir, "appendonly.aof.cut-*"))
	if len(names) != 1 {
		return ""
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAOFLoadDamage: damage before the end stops the load with an error
// naming the offset of the command it is in; the file is left alone.
func TestAOFLoadDamage(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{setA + "+OK\r\n" + setA, "at offset 27: expected '*'"},
		{setA + "*2\r\n$3\r\nGET\r\n$1\r\nab\r\n" + setA, "at offset 27: a bulk string not ended by CRLF"},
		{setA + "*99999999999\r\n", "at offset 27: a bad count"},
		{setA + "*1\r\n$-1\r\n", "at offset 27: a bad count"},
		{setA + "*0\r\n" + setA, "at offset 27: a command of no arguments"},
		{setA + "*1\r\n$7\r\nNOSUCHC\r\n" + setA, "unknown command 'NOSUCHC'"},
		{setA + "*1\r\n$4\r\nEXEC\r\n", "at offset 27: EXEC without MULTI"},
		{setA + "*1\r\n$5\r\nMULTI\r\n" + setA + "*1\r\n$7\r\nNOSUCHC\r\n*1\r\n$4\r\nEXEC\r\n", "unknown command 'NOSUCHC'"},
		{setA + "*1\r\n$5\r\nMULTI\r\n" + setA + "*1\r\n$7\r\nNOSUCHC\r\n*1\r\n$4\r\nEXEC\r\n", "at offset 69"},
		// A damaged EXEC is an unknown command, not the start of a
		// transaction left open to the end and cut off with all after it.
		{setA + "*1\r\n$5\r\nMULTI\r\n" + setA + "*1\r\n$4\r\nEXEK\r\n" + setA + setA, "unknown command 'EXEK'"},
	} {
		_, after, _, err := loadFile(t, c.content)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "appendonly.aof") {
			t.Errorf("%q: got %v, want an error naming the file and saying %q", c.content, err, c.want)
		}
		if after != int64(len(c.content)) {
			t.Errorf("%q: the damaged file was changed", c.content)
		}
	}
}

// TestAOFLoadHostileBounded: lengths a file announces but does not hold
// allocate no more than what it holds: a bulk string of 512 MB, a command
// of 16 million arguments, each cut short, cost kilobytes.
func TestAOFLoadHostileBounded(t *testing.T) {
	for _, content := range []string{
		setA + "*1\r\n$536870912\r\n" + strings.Repeat("x", 1000),
		setA + "*16777216\r\n$3\r\nSET\r\n",
	} {
		loaded, _, allocated, err := loadFile(t, content)
		if err != nil || loaded != int64(len(setA)) {
			t.Errorf("%.40q: err %v, loaded %d", content, err, loaded)
		}
		if allocated > 8<<20 {
			t.Errorf("%.40q: the replay allocated %d bytes", content, allocated)
		}
		t.Logf("%.40q...: %d bytes allocated", content, allocated)
	}
}

// TestAOFLoadPastExpiry: while the log is replayed nothing expires, as in
// Redis: a key whose PEXPIREAT is long past is still there for the
// commands logged after it (written before its TTL came due), and the
// timers delete it once the loop runs.
func TestAOFLoadPastExpiry(t *testing.T) {
	incr := "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n"
	past := "*3\r\n$9\r\nPEXPIREAT\r\n$1\r\na\r\n$4\r\n1000\r\n"
	if _, _, _, err := loadFile(t, setA+past+incr); err != nil {
		t.Fatal(err)
	}
	ent := lookupEntry("a")
	if ent == nil || ent.val() != "2" {
		t.Fatalf("after the replay, a = %v; want 2, the INCR applied to the key before its TTL came due", ent)
	}
	processTimers()
	if lookupEntry("a") != nil {
		t.Fatal("the timers did not delete the key whose TTL was past")
	}
}
