package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// fillList pushes n elements "e<i>" (and every third one "a") onto the
// tail of the list at key, a thousand a request.
func fillList(t *testing.T, key string, n int) {
	t.Helper()
	for i := 0; i < n; i += 1000 {
		args := []string{"RPUSH", key}
		for j := i; j < min(n, i+1000); j++ {
			if j%3 == 0 {
				args = append(args, "a")
			} else {
				args = append(args, "e"+strconv.Itoa(j))
			}
		}
		respRun(t, args...)
	}
}

// TestListWorkCharged: each list command charges what it walks. LRANGE
// pays each element it writes; LINDEX in the middle pays the nodes it hops
// and one node's elements, not the elements before it; LREM pays every
// element it looks at; a push at the head pays the bytes it moves up.
func TestListWorkCharged(t *testing.T) {
	resetData(t)
	const n = 200_000
	fillList(t, "l", n)
	l := lookupEntry("l").obj.list
	work := func(args ...string) (int, string) {
		before := workDone
		got := respRun(t, args...)
		return workDone - before, got
	}
	if did, got := work("LRANGE", "l", "0", "-1"); !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n", n)) || did < n*kVisitWork {
		t.Errorf("LRANGE of %d elements: %.20q, %d units of work, want at least %d", n, got, did, n*kVisitWork)
	}
	did, got := work("LINDEX", "l", strconv.Itoa(n/2))
	if want := fmt.Sprintf("$%d\r\ne%d\r\n", len(strconv.Itoa(n/2))+1, n/2); got != want {
		t.Errorf("LINDEX l %d = %q, want %q", n/2, got, want)
	}
	if most := l.Nodes() + 2000; did > most || did < l.Nodes()/2 {
		t.Errorf("LINDEX in the middle of %d elements in %d nodes: %d units, want between %d and %d", n, l.Nodes(), did, l.Nodes()/2, most)
	}
	if did, got := work("LREM", "l", "0", "a"); got != fmt.Sprintf(":%d\r\n", (n+2)/3) || did < n*kVisitWork {
		t.Errorf("LREM l 0 a: %q, %d units, want at least %d", got, did, n*kVisitWork)
	}
	// The head node is full: each push moves its bytes up.
	head := 200
	args := []string{"LPUSH", "l"}
	for i := 0; i < head; i++ {
		args = append(args, "h")
	}
	if did, _ := work(args...); did < head*(kVisitWork+1000/kWorkBytes) {
		t.Errorf("LPUSH of %d onto a full head node: %d units, want them to pay its bytes", head, did)
	}
}

// TestListPopRefusedKeepsList: a pop whose reply the budget cannot hold
// is refused before it takes anything: the list is as it was.
func TestListPopRefusedKeepsList(t *testing.T) {
	resetData(t)
	long := strings.Repeat("x", 10_000)
	for i := 0; i < 100; i++ {
		respRun(t, "RPUSH", "l", long)
	}
	saved := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = saved })
	maxOutputTotal = outputHeld + inputHeld + 200_000 // a fifth of the reply
	for _, args := range [][]string{{"LPOP", "l", "100"}, {"RPOP", "l", "100"}} {
		if got := respRun(t, args...); got != "-"+errReplyMemory+"\r\n" {
			t.Errorf("%q: %.40q, want it refused", args, got)
		}
		if n := lookupEntry("l").obj.list.Len(); n != 100 {
			t.Fatalf("%q refused, and the list has %d elements, want 100", args, n)
		}
	}
	maxOutputTotal = saved
	if got := respRun(t, "LPOP", "l", "100"); !strings.HasPrefix(got, "*100\r\n") || lookupEntry("l") != nil {
		t.Errorf("LPOP l 100 with room: %.20q, key left %v", got, lookupEntry("l") != nil)
	}
}

// TestListCopyByBytes: COPY bounds a list by its bytes, not its elements
// (it copies a node at a time): a list of many small elements is copied
// whole, past the element count that bounds a sorted set's copy, and the
// copy is a list of its own.
func TestListCopyByBytes(t *testing.T) {
	resetData(t)
	n := kCopyMaxItems + 20_000
	fillList(t, "l", n)
	if got := respRun(t, "COPY", "l", "c"); got != ":1\r\n" {
		t.Fatalf("COPY of a list of %d elements: %q", n, got)
	}
	respRun(t, "RPUSH", "c", "tail")
	if a, b := lookupEntry("l").obj.list.Len(), lookupEntry("c").obj.list.Len(); a != n || b != n+1 {
		t.Errorf("after COPY and a push onto the copy: %d and %d elements, want %d and %d", a, b, n, n+1)
	}
	if got, want := respRun(t, "LINDEX", "c", strconv.Itoa(n-1)), respRun(t, "LINDEX", "l", "-1"); got != want {
		t.Errorf("the copy's element %d is %q, the list's last %q", n-1, got, want)
	}
}

// TestListTypeAndEncoding: the key commands know lists.
func TestListTypeAndEncoding(t *testing.T) {
	resetData(t)
	respRun(t, "RPUSH", "l", "a")
	respRun(t, "SET", "s", "v")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"TYPE", "l"}, "+list\r\n"},
		{[]string{"OBJECT", "ENCODING", "l"}, "$9\r\nquicklist\r\n"},
		{[]string{"SCAN", "0", "TYPE", "list"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nl\r\n"},
		{[]string{"LPUSH", "s", "a"}, "-" + errWrongType + "\r\n"},
	} {
		if got := respRun(t, c.args...); got != c.want {
			t.Errorf("%q = %q, want %q", c.args, got, c.want)
		}
	}
	if got := respRun(t, "MEMORY", "USAGE", "l"); !strings.HasPrefix(got, ":") {
		t.Errorf("MEMORY USAGE l = %q", got)
	}
}

// TestListFillSetting: CONFIG SET list-max-listpack-size is how full a
// node grows, read as Redis reads it: 1 is an element a node, -1 4 KiB;
// a value that is not an integer is refused and changes nothing.
func TestListFillSetting(t *testing.T) {
	resetData(t)
	t.Cleanup(func() { respRun(t, "CONFIG", "SET", "list-max-listpack-size", "-2") })
	respRun(t, "CONFIG", "SET", "list-max-ziplist-size", "1")
	respRun(t, "RPUSH", "one", "a", "b", "c")
	if n := lookupEntry("one").obj.list.Nodes(); n != 3 {
		t.Errorf("fill 1: 3 elements in %d nodes", n)
	}
	if got := respRun(t, "CONFIG", "SET", "list-max-listpack-size", "x"); !strings.HasPrefix(got, "-ERR CONFIG SET failed") {
		t.Errorf("CONFIG SET list-max-listpack-size x = %q", got)
	}
	if got := respRun(t, "CONFIG", "GET", "list-max-listpack-size"); got != "*2\r\n$22\r\nlist-max-listpack-size\r\n$1\r\n1\r\n" {
		t.Errorf("CONFIG GET list-max-listpack-size = %q", got)
	}
	respRun(t, "CONFIG", "SET", "list-max-listpack-size", "-1")
	fillList(t, "small", 2000)
	l := lookupEntry("small").obj.list
	if l.Bytes()/l.Nodes() > 4096 || l.Nodes() < l.Bytes()/4096 {
		t.Errorf("fill -1: %d bytes in %d nodes", l.Bytes(), l.Nodes())
	}
}
