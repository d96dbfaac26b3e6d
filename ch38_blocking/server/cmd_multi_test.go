package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// txClient is a RESP connection for the transaction tests: its state,
// driven through respDo as oneRequest drives it, without a socket.
type txClient struct {
	t  *testing.T
	st *respState
	c  *conn
}

// resetTx empties the key space, the watchers and the memory accounting
// for a test, and restores the accounting after it.
func resetTx(t *testing.T) {
	resetData(t)
	saveBudget(t)
	outputHeld, inputHeld, maxOutputTotal = 0, 0, 64<<20
	watchers, watchersPeak = map[string]map[*respState]struct{}{}, 0
}

func newTxClient(t *testing.T) *txClient {
	st := newRESPState(nil)
	c := newConn(-1)
	c.framing = st
	return &txClient{t, st, c}
}

// do runs one command and returns its reply.
func (tc *txClient) do(args ...string) string {
	tc.t.Helper()
	cmd := make([][]byte, len(args))
	for i, a := range args {
		cmd[i] = []byte(a)
	}
	tc.st.w.begin(nil)
	respDo(tc.c, tc.st, cmd)
	if tc.st.w.over {
		tc.t.Fatalf("%q: the reply passed its limit", args)
	}
	outputHeld -= cap(tc.st.w.buf) // the reply is taken at once
	return string(tc.st.w.buf)
}

// expect runs one command and checks its reply.
func (tc *txClient) expect(want string, args ...string) {
	tc.t.Helper()
	if got := tc.do(args...); got != want {
		tc.t.Fatalf("%q: got %q, want %q", args, got, want)
	}
}

const (
	okReply     = "+OK\r\n"
	queued      = "+QUEUED\r\n"
	nullArray   = "*-1\r\n"
	execAborted = "-EXECABORT Transaction discarded because of previous errors.\r\n"
)

// TestMultiExec: the commands after MULTI are queued, not run; EXEC runs
// them in order and answers their replies in one array, a runtime error
// being just that element.
func TestMultiExec(t *testing.T) {
	resetTx(t)
	a, b := newTxClient(t), newTxClient(t)
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "k", "1")
	a.expect(queued, "ZADD", "k", "1", "m")
	a.expect(queued, "GET", "k")
	b.expect("$-1\r\n", "GET", "k") // not run yet
	a.expect("*3\r\n+OK\r\n-"+errWrongType+"\r\n$1\r\n1\r\n", "EXEC")
	b.expect("$1\r\n1\r\n", "GET", "k")
	a.expect("-ERR EXEC without MULTI\r\n", "EXEC")

	// In RESP3 too, and a command that switches the protocol inside the
	// transaction switches it for the elements after it, as in Redis.
	a.expect(okReply, "MULTI")
	a.expect(queued, "ZADD", "z", "1.5", "m")
	a.expect(queued, "ZSCORE", "z", "m")
	a.expect(queued, "HELLO", "3")
	a.expect(queued, "ZSCORE", "z", "m")
	if got := a.do("EXEC"); !strings.HasPrefix(got, "*4\r\n:1\r\n$3\r\n1.5\r\n%7\r\n") || !strings.HasSuffix(got, ",1.5\r\n") {
		t.Fatalf("EXEC with HELLO 3 inside: %q", got)
	}
}

// TestMultiQueueErrors: a command refused when queued (unknown, wrong
// arity) makes EXEC answer EXECABORT and run nothing; a nested MULTI or a
// WATCH inside MULTI is an error that does not; an EXEC with arguments
// aborts the transaction as Redis does; DISCARD drops the queue.
func TestMultiQueueErrors(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	for _, bad := range [][]string{{"NOSUCH"}, {"GET"}, {"MULTI", "x"}, {"WATCH"}, {"DISCARD", "x"}} {
		a.expect(okReply, "MULTI")
		a.expect(queued, "SET", "k", "v")
		if got := a.do(bad...); !strings.HasPrefix(got, "-ERR ") {
			t.Fatalf("%q inside MULTI: %q", bad, got)
		}
		a.expect(queued, "DEL", "other")
		a.expect(execAborted, "EXEC")
		a.expect("$-1\r\n", "GET", "k")
	}

	a.expect(okReply, "MULTI")
	a.expect("-ERR MULTI calls can not be nested\r\n", "MULTI")
	a.expect("-ERR WATCH inside MULTI is not allowed\r\n", "WATCH", "k")
	a.expect(queued, "SET", "k", "v")
	a.expect("*1\r\n+OK\r\n", "EXEC")

	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "k", "w")
	a.expect("-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command\r\n", "EXEC", "x")
	a.expect("-ERR EXEC without MULTI\r\n", "EXEC")
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "k", "w")
	a.expect(okReply, "DISCARD")
	a.expect("-ERR DISCARD without MULTI\r\n", "DISCARD")
	a.expect("$1\r\nv\r\n", "GET", "k")
}

// TestWatchTouched: EXEC fails, running nothing, once a watched key was
// modified: by another RESP client, by the book's protocol, by the
// watcher itself before MULTI, by FLUSHALL. A write that changes nothing
// does not count.
func TestWatchTouched(t *testing.T) {
	writes := []struct {
		name    string
		setup   []string
		write   func(b *txClient)
		touched bool
	}{
		{"another client's SET", nil, func(b *txClient) { b.do("SET", "k", "x") }, true},
		{"another client's SET of a missing key", nil, func(b *txClient) { b.do("SET", "k", "x") }, true},
		{"SET of the same value", []string{"SET", "k", "v"}, func(b *txClient) { b.do("SET", "k", "v") }, true},
		{"DEL", []string{"SET", "k", "v"}, func(b *txClient) { b.do("DEL", "k") }, true},
		{"EXPIRE", []string{"SET", "k", "v"}, func(b *txClient) { b.do("EXPIRE", "k", "100") }, true},
		{"the book's set", nil, func(*txClient) { run("set", "k", "x") }, true},
		{"the book's del", []string{"SET", "k", "v"}, func(*txClient) { run("del", "k") }, true},
		{"the book's pexpire", []string{"SET", "k", "v"}, func(*txClient) { run("pexpire", "k", "1000") }, true},
		{"the book's zadd", []string{"ZADD", "k", "1", "m"}, func(*txClient) { run("zadd", "k", "2", "m") }, true},
		{"the book's zrem", []string{"ZADD", "k", "1", "m"}, func(*txClient) { run("zrem", "k", "m") }, true},
		{"the book's hset", nil, func(*txClient) { run("hset", "k", "f", "v") }, true},
		{"ZADD of a new score", []string{"ZADD", "k", "1", "m"}, func(b *txClient) { b.do("ZADD", "k", "2", "m") }, true},
		{"HDEL", []string{"HSET", "k", "f", "v"}, func(b *txClient) { b.do("HDEL", "k", "f") }, true},
		{"HPEXPIRE", []string{"HSET", "k", "f", "v"}, func(b *txClient) { b.do("HPEXPIRE", "k", "100000", "FIELDS", "1", "f") }, true},
		{"FLUSHALL", []string{"SET", "k", "v"}, func(b *txClient) { b.do("FLUSHALL") }, true},
		{"INCR", []string{"SET", "k", "1"}, func(b *txClient) { b.do("INCR", "k") }, true},
		{"MSET", nil, func(b *txClient) { b.do("MSET", "other", "v", "k", "x") }, true},
		{"APPEND", []string{"SET", "k", "v"}, func(b *txClient) { b.do("APPEND", "k", "x") }, true},
		{"APPEND of nothing", []string{"SET", "k", "v"}, func(b *txClient) { b.do("APPEND", "k", "") }, true},
		{"HINCRBY", []string{"HSET", "k", "f", "1"}, func(b *txClient) { b.do("HINCRBY", "k", "f", "1") }, true},
		{"HINCRBY of 0", []string{"HSET", "k", "f", "1"}, func(b *txClient) { b.do("HINCRBY", "k", "f", "0") }, true},
		{"ZINCRBY", []string{"ZADD", "k", "1", "m"}, func(b *txClient) { b.do("ZINCRBY", "k", "1", "m") }, true},
		{"ZINCRBY of a new member", []string{"ZADD", "k", "1", "m"}, func(b *txClient) { b.do("ZINCRBY", "k", "0", "n") }, true},

		{"DEL of a missing key", nil, func(b *txClient) { b.do("DEL", "k") }, false},
		{"SET NX of an existing key", []string{"SET", "k", "v"}, func(b *txClient) { b.do("SET", "k", "x", "NX") }, false},
		{"EXPIRE of a missing key", nil, func(b *txClient) { b.do("EXPIRE", "k", "100") }, false},
		{"PERSIST of a key with no TTL", []string{"SET", "k", "v"}, func(b *txClient) { b.do("PERSIST", "k") }, false},
		{"ZADD of the same score", []string{"ZADD", "k", "1", "m"}, func(b *txClient) { b.do("ZADD", "k", "1", "m") }, false},
		{"the book's zadd of the same score", []string{"ZADD", "k", "1", "m"}, func(*txClient) { run("zadd", "k", "1", "m") }, false},
		{"ZREM of a missing member", []string{"ZADD", "k", "1", "m"}, func(b *txClient) { b.do("ZREM", "k", "x") }, false},
		{"HDEL of a missing field", []string{"HSET", "k", "f", "v"}, func(b *txClient) { b.do("HDEL", "k", "x") }, false},
		{"FLUSHALL when the key is missing", []string{"SET", "other", "v"}, func(b *txClient) { b.do("FLUSHALL") }, false},
		{"a write of another key", nil, func(b *txClient) { b.do("SET", "other", "v") }, false},
		{"a read", []string{"SET", "k", "v"}, func(b *txClient) { b.do("GET", "k") }, false},
		{"ZINCRBY of 0", []string{"ZADD", "k", "1", "m"}, func(b *txClient) { b.do("ZINCRBY", "k", "0", "m") }, false},
		{"INCR of a string", []string{"SET", "k", "v"}, func(b *txClient) { b.do("INCR", "k") }, false},
	}
	for _, proto := range []string{"2", "3"} {
		for _, tc := range writes {
			t.Run("RESP"+proto+"/"+tc.name, func(t *testing.T) {
				resetTx(t)
				a, b := newTxClient(t), newTxClient(t)
				if tc.setup != nil {
					b.do(tc.setup...)
				}
				a.do("HELLO", proto)
				a.expect(okReply, "WATCH", "k")
				tc.write(b)
				a.expect(okReply, "MULTI")
				a.expect(queued, "SET", "ran", "1")
				want, null := "*1\r\n+OK\r\n", nullArray
				if proto == "3" {
					null = "_\r\n"
				}
				if tc.touched {
					want = null
				}
				a.expect(want, "EXEC")
				if ran := lookupEntry("ran") != nil; ran == tc.touched {
					t.Fatalf("the transaction ran: %v", ran)
				}
			})
		}
	}
}

// TestWatchSelfAndScope: the watcher's own write before MULTI fails its
// EXEC, its writes inside the transaction do not; EXEC, DISCARD and
// UNWATCH unwatch every key; a key watched twice is watched once.
func TestWatchSelfAndScope(t *testing.T) {
	resetTx(t)
	a, b := newTxClient(t), newTxClient(t)
	a.expect(okReply, "WATCH", "k", "k")
	a.expect(okReply, "SET", "k", "1")
	a.expect(okReply, "MULTI")
	a.expect(nullArray, "EXEC")

	a.expect(okReply, "WATCH", "k")
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "k", "2")
	a.expect("*1\r\n+OK\r\n", "EXEC")
	b.expect(okReply, "SET", "k", "3") // nothing watched any more
	a.expect(okReply, "MULTI")
	a.expect("*0\r\n", "EXEC")

	for _, end := range []string{"UNWATCH", "DISCARD"} {
		a.expect(okReply, "WATCH", "k")
		b.expect(okReply, "SET", "k", "4")
		if end == "DISCARD" {
			a.expect(okReply, "MULTI")
		}
		a.expect(okReply, end)
		a.expect(okReply, "MULTI")
		a.expect("*0\r\n", "EXEC")
	}
	if len(watchers) != 0 || len(a.st.tx.watched) != 0 {
		t.Fatalf("after EXEC, DISCARD and UNWATCH: %d keys watched", len(watchers))
	}
}

// TestWatchExpiry: a watched key whose TTL comes due fails EXEC, whether
// the timers have reclaimed it yet or not; a key already due when
// watched, then reclaimed, does not (Redis 7.0 both ways). The TTLs are
// moved by hand: no test waits for a clock.
func TestWatchExpiry(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dueBefore   bool // the TTL is due when WATCH runs
		reclaim     bool // the timers run before EXEC
		wantTouched bool
	}{
		{"due after WATCH, not yet reclaimed", false, false, true},
		{"due after WATCH, reclaimed", false, true, true},
		{"due before WATCH, reclaimed", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetTx(t)
			a := newTxClient(t)
			a.do("SET", "k", "v", "PX", "100000")
			due := func() { gData.heap[lookupEntry("k").heapIdx].Val = 0 }
			if tc.dueBefore {
				due()
			}
			a.expect(okReply, "WATCH", "k")
			if !tc.dueBefore {
				due()
			}
			if tc.reclaim {
				processTimers()
				if lookupEntry("k") != nil {
					t.Fatal("the key was not reclaimed")
				}
			}
			a.expect(okReply, "MULTI")
			want := "*0\r\n"
			if tc.wantTouched {
				want = nullArray
			}
			a.expect(want, "EXEC")
		})
	}
}

// TestWatchReleased: a connection that closes stops watching, and gives
// back what its queue and its watched keys held.
func TestWatchReleased(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	a.expect(okReply, "WATCH", "k1", "k2")
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "k1", strings.Repeat("v", 1000))
	if inputHeld < 1000+2*kWatchOverhead {
		t.Fatalf("inputHeld %d with a queued command of 1000 bytes and two watched keys", inputHeld)
	}
	a.st.release()
	if inputHeld != 0 || len(watchers) != 0 {
		t.Fatalf("after the connection closed: inputHeld %d, %d keys watched", inputHeld, len(watchers))
	}
	run("set", "k1", "v") // touches no one: no stale watcher left
}

// TestMultiQueueBounded: the queued commands count in the bound on all
// connections' memory, and in number: a command past either is refused,
// and EXEC then discards the transaction and runs nothing. What the queue
// held is given back at EXEC.
func TestMultiQueueBounded(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	val := strings.Repeat("v", 100_000)
	maxOutputTotal = 250_000
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "k1", val)
	a.expect(queued, "SET", "k2", val)
	a.expect("-"+errQueueMemory+"\r\n", "SET", "k3", val)
	held := inputHeld
	a.expect(queued, "SET", "k4", val) // answered, but not kept
	if inputHeld != held || held < 200_000 {
		t.Fatalf("inputHeld %d, then %d after a command queued in a doomed transaction", held, inputHeld)
	}
	a.expect(execAborted, "EXEC")
	if inputHeld != 0 || gData.db.Len() != 0 {
		t.Fatalf("after EXECABORT: inputHeld %d, %d keys", inputHeld, gData.db.Len())
	}

	maxOutputTotal = 64 << 20
	a.expect(okReply, "MULTI")
	for i := range kMaxQueued {
		a.expect(queued, "SET", fmt.Sprint("k", i), "v")
	}
	a.expect("-"+errTooManyQueued+"\r\n", "SET", "one", "more")
	a.expect(execAborted, "EXEC")
	if inputHeld != 0 || gData.db.Len() != 0 {
		t.Fatalf("after EXECABORT: inputHeld %d, %d keys", inputHeld, gData.db.Len())
	}
}

// TestWatchBounded: a WATCH past the number of keys one connection may
// watch, or past the bound on memory, is refused whole.
func TestWatchBounded(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	args := []string{"WATCH"}
	for i := range kMaxWatched {
		args = append(args, fmt.Sprint("k", i))
	}
	a.expect(okReply, args...)
	a.expect(okReply, "WATCH", "k0") // already watched: nothing new
	a.expect("-"+errTooManyWatched+"\r\n", "WATCH", "one", "more")
	if len(watchers) != kMaxWatched || inputHeld != a.st.tx.held {
		t.Fatalf("%d keys watched, inputHeld %d, the connection's %d", len(watchers), inputHeld, a.st.tx.held)
	}
	a.expect(okReply, "UNWATCH")
	if inputHeld != 0 {
		t.Fatalf("inputHeld %d after UNWATCH", inputHeld)
	}
	maxOutputTotal = 1000
	a.expect("-"+errWatchMemory+"\r\n", "WATCH", strings.Repeat("k", 1000))
	if len(watchers) != 0 || inputHeld != 0 {
		t.Fatalf("a WATCH refused: %d keys watched, inputHeld %d", len(watchers), inputHeld)
	}
}

// TestExecWorkBounded: a transaction whose work could pass kMaxExecWork
// is refused whole when EXEC weighs it, before anything runs: KEYS, which
// walks the whole key space whatever it matches, weighs the keys and its
// matching's bound. The SET queued before the KEYS does not run either.
func TestExecWorkBounded(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	perKeys := costKeys(&execPlan{}, nil) + 2
	n := kMaxExecWork/perKeys + 1
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "x", "v")
	for range n {
		a.expect(queued, "KEYS", "*")
	}
	if got := a.do("EXEC"); !strings.HasPrefix(got, "-EXECABORT Transaction discarded because of: it could do ") {
		t.Fatalf("EXEC of %d KEYS: %q", n, got)
	}
	if lookupEntry("x") != nil || a.st.inMulti {
		t.Fatal("a refused EXEC ran its SET, or left the transaction open")
	}
	// Fewer fit.
	a.expect(okReply, "MULTI")
	a.expect(queued, "SET", "x", "v")
	for range n / 2 {
		a.expect(queued, "KEYS", "*")
	}
	if got := a.do("EXEC"); !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n+OK\r\n", n/2+1)) {
		t.Fatalf("EXEC of %d KEYS: %.60q", n/2, got)
	}
}

// TestExecReplyBounded: EXEC's reply, which holds all its commands',
// stays within the budget of all connections' memory: a command whose
// reply does not fit is answered errExecTooBig in its place, and the
// others as usual. With no memory left for the elements at all, nothing
// runs.
func TestExecReplyBounded(t *testing.T) {
	resetTx(t)
	saveBudget(t)
	maxOutputTotal = 4 << 20
	a := newTxClient(t)
	val := strings.Repeat("v", 400_000)
	a.expect(okReply, "SET", "big", val)
	n := maxOutputTotal/len(val) + 3
	a.expect(okReply, "MULTI")
	for range n {
		a.expect(queued, "GET", "big")
	}
	a.expect(queued, "SET", "last", "v")
	got := a.do("EXEC")
	if len(got) > maxOutputTotal {
		t.Fatalf("EXEC's reply is %d bytes", len(got))
	}
	elem := "$400000\r\n" + val + "\r\n"
	rest, _ := strings.CutPrefix(got, fmt.Sprintf("*%d\r\n", n+1))
	fit := 0
	for strings.HasPrefix(rest, elem) {
		rest = rest[len(elem):]
		fit++
	}
	want := strings.Repeat("-"+errExecTooBig+"\r\n", n-fit) + "+OK\r\n"
	// A reply reaches about half of the budget: its buffer's growth holds
	// the old buffer beside the new one (see growSteps).
	if fit*len(elem) < maxOutputTotal/3 || rest != want {
		t.Fatalf("EXEC of %d GETs of 400 KB: %d fit, then %.100q", n, fit, rest)
	}
	if lookupEntry("last") == nil {
		t.Fatal("the command after the replies too big did not run")
	}

	a.expect(okReply, "MULTI")
	for range 1000 {
		a.expect(queued, "SET", "x", "v")
	}
	maxOutputTotal = inputHeld + 1000 // less than 1000 elements need
	a.expect("-"+errExecMemory+"\r\n", "EXEC")
	if lookupEntry("x") != nil {
		t.Fatal("an EXEC refused for memory ran its commands")
	}
}

// TestExecOneTurn: EXEC runs all its commands in the turn that reads it,
// however many there are: the per-turn bounds (kMaxTurnRequests,
// kMaxTurnWork) count it as one request. Between turns, the key space
// holds none of the transaction's keys or all of them.
func TestExecOneTurn(t *testing.T) {
	srv, cli := testPair(t, unix.SOCK_STREAM)
	c := newTestRESPConn(t, srv)
	saveBudget(t)
	watchers, watchersPeak = map[string]map[*respState]struct{}{}, 0
	const n = 3 * kMaxTurnRequests
	var req bytes.Buffer
	req.WriteString("MULTI\r\n")
	for i := range n {
		fmt.Fprintf(&req, "SET k%d v\r\n", i)
	}
	req.WriteString("EXEC\r\n")
	if w, err := unix.Write(cli, req.Bytes()); err != nil || w != req.Len() {
		t.Fatalf("write: %d, %v", w, err)
	}
	var got []byte
	buf := make([]byte, 64<<10)
	for turns := 0; turns < 1000; turns++ {
		progressed := loopOnce(t, c)
		if k := gData.db.Len(); k != 0 && k != n {
			t.Fatalf("after turn %d, %d of the transaction's %d keys exist", turns, k, n)
		}
		if m, err := unix.Read(cli, buf); err == nil && m > 0 {
			got = append(got, buf[:m]...)
			progressed = true
		}
		if !progressed && gData.db.Len() == n {
			break
		}
	}
	want := okReply + strings.Repeat(queued, n) + fmt.Sprintf("*%d\r\n", n) + strings.Repeat(okReply, n)
	if string(got) != want {
		t.Fatalf("replies: %d bytes, want %d", len(got), len(want))
	}
}

// TestFlushAllWatchWork: FLUSHALL looks at the smaller of the key space
// and the watched keys: with 1000 keys watched, a FLUSHALL of a key space
// of one key visits one, and touches only the watcher of a key it drops.
func TestFlushAllWatchWork(t *testing.T) {
	resetTx(t)
	a, b := newTxClient(t), newTxClient(t)
	args := []string{"WATCH"}
	for i := range 1000 {
		args = append(args, fmt.Sprint("missing", i))
	}
	a.expect(okReply, args...)
	b.expect(okReply, "SET", "x", "v")
	b.expect(okReply, "WATCH", "x")
	before := workDone
	a.expect(okReply, "FLUSHALL")
	if w := workDone - before; w > 1 {
		t.Fatalf("FLUSHALL of 1 key with 1000 keys watched did %d work", w)
	}
	a.expect(okReply, "MULTI")
	a.expect("*0\r\n", "EXEC")
	b.expect(okReply, "MULTI")
	b.expect(nullArray, "EXEC")
}

// TestWatchersMapReleased: a Go map keeps its buckets when its entries
// go, so after a peak of watched keys the map of watchers is made afresh
// once no key is watched: the memory of a peak is not held for good.
func TestWatchersMapReleased(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	args := []string{"WATCH"}
	for i := range 2000 {
		args = append(args, fmt.Sprint("k", i))
	}
	a.expect(okReply, args...)
	if len(watchers) != 2000 || watchersPeak != 2000 {
		t.Fatalf("%d keys watched, peak %d; want 2000", len(watchers), watchersPeak)
	}
	a.expect(okReply, "UNWATCH")
	if len(watchers) != 0 || watchersPeak != 0 {
		t.Fatalf("after UNWATCH: %d keys watched, peak %d; want a fresh map", len(watchers), watchersPeak)
	}
}
