//go:build linux

package server

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages returns how many pages of the buffer behind a string
// value, its room included, are in memory (mincore): the pages something
// has written or read.
func residentPages(t *testing.T, key string) int {
	t.Helper()
	ent := lookupEntry(key)
	if ent == nil || ent.obj == nil || ent.obj.str == nil {
		t.Fatalf("%s: no value with room", key)
	}
	b := ent.obj.str.b[:cap(ent.obj.str.b)]
	page := os.Getpagesize()
	// mincore wants a page-aligned start: Go gives a buffer this large
	// pages of its own.
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(page) != 0 {
		t.Fatalf("%s: the value's buffer does not start a page", key)
	}
	region := b
	vec := make([]byte, (len(region)+page-1)/page)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(region))), uintptr(len(region)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// inFreshProcess runs the test named in a child process of the test
// binary, whose heap holds nothing an earlier test freed: a buffer made
// there comes from the system, untouched, as a server's first long value
// does. It reports whether this is the child.
func inFreshProcess(t *testing.T) bool {
	if os.Getenv("BYOR_FRESH_PROCESS") == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "BYOR_FRESH_PROCESS="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("the child:\n%s", out)
	if err != nil {
		t.Fatalf("the child failed: %v", err)
	}
	return false
}

// TestSetRangeFarWritesNoPad: SETRANGE and SETBIT at the far end of the
// longest string make a value of 512 MiB from a request of some 40
// bytes, as Redis does. The zeros before the byte written are the fresh
// buffer's, not written one page after another: the pages of the value
// in memory afterwards are a handful, not the 131,072 a written pad
// takes (which took 2 s, and 4 GiB resident for eight such SETBITs). The
// value's length is still charged to the work meter, so the request ends
// its connection's turn, and EXEC's estimate covers it.
func TestSetRangeFarWritesNoPad(t *testing.T) {
	if !inFreshProcess(t) {
		return
	}
	resetData(t)
	const pageLimit = 8 // the page written, and the allocator's neighbours
	check := func(cmd []string, key, want string) {
		t.Helper()
		args := make([][]byte, len(cmd))
		for i, a := range cmd {
			args[i] = []byte(a)
		}
		c, _ := respResolve(args)
		estimate := (&execPlan{}).estimate(c, args) // EXEC's, from the key space as it is
		work := workDone
		if got := respRun(t, cmd...); got != want {
			t.Fatalf("%q: %q, want %q", cmd, got, want)
		}
		charged := workDone - work
		if charged < maxAppend/kWorkBytes {
			t.Errorf("%q charged %d units, want at least %d (the value's bytes)", cmd, charged, maxAppend/kWorkBytes)
		}
		if charged > estimate {
			t.Errorf("%q charged %d units, over EXEC's estimate %d", cmd, charged, estimate)
		}
		n := residentPages(t, key)
		t.Logf("%q: %d units charged (EXEC weighed %d), %d pages of the value in memory", cmd, charged, estimate, n)
		if n > pageLimit {
			t.Errorf("%q: %d pages of the value in memory, want at most %d", cmd, n, pageLimit)
		}
		if got := respRun(t, "STRLEN", key); got != fmt.Sprintf(":%d\r\n", maxAppend) {
			t.Errorf("STRLEN %s: %q", key, got)
		}
	}
	check([]string{"SETRANGE", "k", fmt.Sprint(maxAppend - 1), "x"}, "k", fmt.Sprintf(":%d\r\n", maxAppend))
	if got := respRun(t, "GETRANGE", "k", "-2", "-1"); got != "$2\r\n\x00x\r\n" {
		t.Errorf("GETRANGE k -2 -1: %q", got)
	}
	for i := range 4 {
		key := fmt.Sprint("b", i)
		check([]string{"SETBIT", key, fmt.Sprint(8*int64(maxAppend) - 1), "1"}, key, ":0\r\n")
	}
	if got := respRun(t, "GETBIT", "b0", fmt.Sprint(8*int64(maxAppend)-1)); got != ":1\r\n" {
		t.Errorf("GETBIT b0 at the end: %q", got)
	}
	if got := respRun(t, "BITCOUNT", "b0"); got != ":1\r\n" {
		t.Errorf("BITCOUNT b0: %q", got)
	}
}
