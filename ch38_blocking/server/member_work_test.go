package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestMemberWork: a command pays kMemberWork for every member or field it
// finds by name, as it runs (so that a turn ends after a thousand, not
// after a million), and EXEC weighs as much in advance: a transaction of
// 8 ZADDs of 20,000 new members (some 0.2 to 0.5 s of work, more than a
// transaction may do), which weighed half a million units at its
// arguments' cost, is refused whole, while one of moderate size (8 ZADDs
// and 8 HSETs of 1,000 members, a ZRANGE of them all) runs.
func TestMemberWork(t *testing.T) {
	resetTx(t)
	maxOutputTotal = 1 << 30
	a := newTxClient(t)
	pairs := func(cmd, key string, n int) []string {
		args := []string{cmd, key}
		for i := range n {
			if cmd == "ZADD" {
				args = append(args, fmt.Sprint(i), fmt.Sprintf("m%d", i))
			} else {
				args = append(args, fmt.Sprintf("f%d", i), "v")
			}
		}
		return args
	}

	// As it runs: each member found by name, added, removed or read.
	for _, tt := range []struct {
		args []string
		n    int // members or fields found by name
	}{
		{pairs("ZADD", "z", 1000), 1000},
		{pairs("ZADD", "z", 1000), 1000}, // the same members: updates
		{append([]string{"ZREM", "z"}, strings.Fields(strings.Repeat("m1 ", 500))...), 500},
		{pairs("HSET", "h", 1000), 1000},
		{append([]string{"HDEL", "h"}, strings.Fields(strings.Repeat("f1 ", 500))...), 500},
		{append([]string{"HMGET", "h"}, strings.Fields(strings.Repeat("f2 ", 500))...), 500},
	} {
		before := workDone
		a.do(tt.args...)
		if did, want := workDone-before, tt.n*kMemberWork; did < want {
			t.Errorf("%s of %d members or fields: charged %d units, want at least %d", tt.args[0], tt.n, did, want)
		}
	}
	before := workDone
	a.do("ZRANGE", "z", "0", "-1")
	if did, want := workDone-before, 999*kVisitWork; did < want {
		t.Errorf("ZRANGE of 999 members: charged %d units, want at least %d", did, want)
	}

	// Weighed in advance: a transaction of moderate size runs.
	a.do("FLUSHALL")
	a.expect(okReply, "MULTI")
	for i := range 8 {
		a.expect(queued, pairs("ZADD", fmt.Sprint("z", i), 1000)...)
		a.expect(queued, pairs("HSET", fmt.Sprint("h", i), 1000)...)
	}
	a.expect(queued, "ZRANGE", "z0", "0", "-1", "WITHSCORES")
	if got := a.do("EXEC"); !strings.HasPrefix(got, "*17\r\n:1000\r\n:1000\r\n") {
		t.Errorf("EXEC of 8 ZADDs and 8 HSETs of 1,000 members: %.80q", got)
	}
	// And a larger one is refused, nothing added.
	a.expect(okReply, "MULTI")
	for i := range 8 {
		a.expect(queued, pairs("ZADD", fmt.Sprint("big", i), 20_000)...)
	}
	if got := a.do("EXEC"); !strings.HasPrefix(got, "-EXECABORT") {
		t.Errorf("EXEC of 8 ZADDs of 20,000 members: %.80q, want EXECABORT", got)
	}
	if got := a.do("EXISTS", "big0"); got != ":0\r\n" {
		t.Errorf("EXISTS big0 after the refused EXEC: %q", got)
	}
}

// TestMemberWorkWithinEstimate: the commands that find members or fields
// by name, some of them twice (HSETEX FNX, HGETEX), do no more work than
// EXEC weighs for them.
func TestMemberWorkWithinEstimate(t *testing.T) {
	resetTx(t)
	runs := 0
	execDone = func(weighed, did []int) {
		runs++
		for i := range weighed {
			if did[i] > weighed[i] {
				t.Errorf("EXEC's command %d did %d units of work, weighed at %d", i+1, did[i], weighed[i])
			}
		}
	}
	t.Cleanup(func() { execDone = nil })
	a := newTxClient(t)
	a.expect(okReply, "MULTI")
	for _, cmd := range [][]string{
		{"ZADD", "z", "XX", "CH", "1", "a", "2", "b"},
		{"ZADD", "z", "1", "a", "2", "b", "3", "c"},
		{"ZINCRBY", "z", "1", "d"},
		{"ZSCORE", "z", "a"},
		{"ZRANK", "z", "b"},
		{"ZREVRANK", "z", "c"},
		{"ZREM", "z", "a", "b", "x"},
		{"HSET", "h", "f1", "1", "f2", "2", "f3", "3"},
		{"HSETEX", "h", "FXX", "KEEPTTL", "FIELDS", "3", "f1", "a", "f2", "b", "f3", "c"},
		{"HSETEX", "h", "FNX", "FIELDS", "2", "g1", "a", "g2", "b"},
		{"HGETEX", "h", "PX", "100000", "FIELDS", "4", "f1", "f2", "f3", "g1"},
		{"HGETEX", "h", "FIELDS", "4", "f1", "f2", "f3", "g2"},
		{"HPEXPIRE", "h", "100000", "NX", "FIELDS", "3", "f1", "f2", "f3"},
		{"HPTTL", "h", "FIELDS", "3", "f1", "f2", "f4"},
		{"HPERSIST", "h", "FIELDS", "2", "f1", "f2"},
		{"HMGET", "h", "f1", "f2", "f9"},
		{"HINCRBY", "h", "n", "5"},
		{"HGET", "h", "f1"},
		{"HEXISTS", "h", "f2"},
		{"HDEL", "h", "f1", "f2", "f9"},
		{"HGETALL", "h"},
	} {
		a.expect(queued, cmd...)
	}
	if got := a.do("EXEC"); !strings.HasPrefix(got, "*21\r\n") {
		t.Fatalf("EXEC: %.80q", got)
	}
	if runs != 1 {
		t.Fatalf("EXEC ran %d times, want 1", runs)
	}
}
