package server

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestExecWorkWithinEstimate runs random transactions over a few keys of
// every type, some of them large, and checks that each EXEC's work, as
// the meter charged it while the commands ran, is no more than EXEC
// weighed before running them: the commands queued first grow the values
// the later ones walk or copy (APPEND after SET, HGETALL after HSET, DEL
// after ZADD), which the weighing must allow for.
func TestExecWorkWithinEstimate(t *testing.T) {
	resetTx(t)
	var estimate, work, runs, refused int
	var cmds [][]string // the transaction's, for the errors
	execDone = func(weighed, did []int) {
		runs++
		for i := range weighed {
			if did[i] > weighed[i] {
				what := "its reply"
				if i < len(cmds) {
					what = fmt.Sprintf("%.60q", cmds[i])
				}
				t.Errorf("EXEC: %s did %d units of work, weighed at %d", what, did[i], weighed[i])
			}
			estimate, work = estimate+weighed[i], work+did[i]
		}
	}
	t.Cleanup(func() { execDone = nil })
	rng := rand.New(rand.NewSource(1))
	a := newTxClient(t)
	keys := []string{"s", "z", "h", "k"}
	val := func() string { return strings.Repeat("v", rng.Intn(4)*rng.Intn(40_000)+1) }
	many := func(prefix string, n int, pairs bool) []string {
		var args []string
		for i := range n {
			if pairs {
				args = append(args, strconv.Itoa(i))
			}
			args = append(args, prefix+strconv.Itoa(rng.Intn(4*n+1)))
			if !pairs {
				args = append(args, val()[:1])
			}
		}
		return args
	}
	gen := func() []string {
		k := keys[rng.Intn(len(keys))]
		n := []int{1, 10, 300, 3000}[rng.Intn(4)]
		switch rng.Intn(24) {
		case 0:
			return []string{"SET", k, val()}
		case 1:
			return []string{"GET", k}
		case 2:
			return []string{"APPEND", k, val()}
		case 3:
			return []string{"DEL", k, keys[rng.Intn(len(keys))]}
		case 4:
			return append([]string{"ZADD", k}, many("m", n, true)...)
		case 5:
			return []string{"ZRANGE", k, "0", strconv.Itoa(rng.Intn(20_000) - 10)}
		case 6:
			return []string{"ZREVRANGE", k, "0", "-1", "WITHSCORES"}
		case 7:
			return []string{"ZRANGE", k, "-inf", "+inf", "BYSCORE", "LIMIT", "1", strconv.Itoa(rng.Intn(100) - 1)}
		case 8:
			return append([]string{"HSET", k}, many("f", n, false)...)
		case 9:
			return []string{"HGETALL", k}
		case 10:
			return []string{[]string{"HKEYS", "HVALS"}[rng.Intn(2)], k}
		case 11:
			return []string{"KEYS", "*"}
		case 12:
			return []string{"SCAN", "0", "COUNT", "1000"}
		case 13:
			return []string{"INFO", "all"}
		case 14:
			return [][]string{{"COMMAND"}, {"COMMAND", "COUNT"}, {"CLIENT", "GETNAME"}}[rng.Intn(3)]
		case 15:
			return []string{"MSET", k, val(), keys[rng.Intn(len(keys))], val()}
		case 16:
			return []string{"MGET", "s", "z", "h", "k"}
		case 17:
			return []string{"INCR", k}
		case 18:
			return []string{"EXPIRE", k, "0"}
		case 19:
			if rng.Intn(8) == 0 {
				return []string{"FLUSHALL"}
			}
			return []string{"EXISTS", k}
		case 20:
			return []string{"ZREM", k, "m1", "m2"}
		case 21:
			return []string{"CONFIG", "GET", "*"}
		case 22:
			return []string{"ECHO", val()}
		}
		return []string{"HINCRBY", k, "f1", "1"}
	}
	for range 120 {
		a.do("MULTI")
		cmds = cmds[:0]
		for range 1 + rng.Intn(12) {
			cmds = append(cmds, gen())
			a.do(cmds[len(cmds)-1]...)
		}
		if got := a.do("EXEC"); strings.HasPrefix(got, "-EXECABORT") {
			refused++
		}
	}
	t.Logf("%d transactions ran, %d refused: weighed %d units in all, did %d", runs, refused, estimate, work)
	if runs < 60 {
		t.Errorf("only %d of 120 transactions ran", runs)
	}
}

// TestExecRefusedChangesNothing: a transaction refused for its work
// leaves the key space as it was, whatever its commands would have done.
func TestExecRefusedChangesNothing(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	a.expect(okReply, "SET", "s", "v")
	a.expect(":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c")
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "s", "changed")
	a.expect(queued, "DEL", "z")
	a.expect(queued, "INCR", "n")
	for range kMaxExecWork/(costScan(nil, nil)+4) + 1 {
		a.expect(queued, "SCAN", "0")
	}
	a.expect(queued, "SET", "last", "v")
	if got := a.do("EXEC"); !strings.HasPrefix(got, "-EXECABORT ") {
		t.Fatalf("EXEC: %.80q", got)
	}
	got := fmt.Sprint(a.do("GET", "s"), a.do("ZCARD", "z"), a.do("EXISTS", "n", "last"), gData.db.Len())
	if want := fmt.Sprint("$1\r\nv\r\n", ":3\r\n", ":0\r\n", 2); got != want {
		t.Fatalf("after a refused EXEC: %q, want %q", got, want)
	}
}

// TestExecExpiredHashWeighed: a hash command that finds every field of its
// hash expired drops the hash, which visits each field: EXEC weighs even
// an HGET at that.
func TestExecExpiredHashWeighed(t *testing.T) {
	resetTx(t)
	var weighed, did []int
	execDone = func(w, d []int) { weighed, did = w, d }
	t.Cleanup(func() { execDone = nil })
	a := newTxClient(t)
	hset, hpexpire := []string{"HSET", "h"}, []string{"HPEXPIRE", "h", "1", "FIELDS", "400"}
	for i := range 400 {
		hset = append(hset, fmt.Sprint("f", i), "v")
		hpexpire = append(hpexpire, fmt.Sprint("f", i))
	}
	a.expect(":400\r\n", hset...)
	if got := a.do(hpexpire...); !strings.HasPrefix(got, "*400\r\n:1\r\n") {
		t.Fatalf("HPEXPIRE: %.40q", got)
	}
	// Wait for the fields' TTL of 1 ms to pass: the setup, not a verdict.
	for now := getUnixMs(); getUnixMs() < now+5; {
	}
	a.expect(okReply, "MULTI")
	a.expect(queued, "HGET", "h", "f1")
	a.expect(queued, "HLEN", "h")
	a.expect("*2\r\n$-1\r\n:0\r\n", "EXEC")
	if did[0] < 400 || did[0] > weighed[0] {
		t.Fatalf("HGET of a hash whose 400 fields expired: did %d, weighed %d", did[0], weighed[0])
	}
}

// TestExecHonestRuns: transactions an application sends run, however
// large the strings they overwrite: a SET over a string tears nothing
// down, so 200 SETs of a key holding 400 KB, or an MSET of 100 such keys,
// weigh about their arguments.
func TestExecHonestRuns(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	big := strings.Repeat("v", 400_000)
	mset := []string{"MSET"}
	for i := range 100 {
		a.expect(okReply, "SET", fmt.Sprint("k", i), big)
		mset = append(mset, fmt.Sprint("k", i), "small")
	}
	a.expect(okReply, "MULTI")
	for range 200 {
		a.expect(queued, "SET", "k0", "v")
	}
	a.expect(queued, mset...)
	a.expect(queued, "GET", "k1")
	if got := a.do("EXEC"); !strings.HasPrefix(got, "*202\r\n") || !strings.HasSuffix(got, "+OK\r\n$5\r\nsmall\r\n") {
		t.Fatalf("EXEC: %.60q ... %q", got, got[max(0, len(got)-30):])
	}
}
