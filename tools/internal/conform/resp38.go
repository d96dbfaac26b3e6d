package conform

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The ch38 stage: clients that wait for a key. BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH, BLMPOP and the sorted sets' BZPOPMIN, BZPOPMAX and BZMPOP
// block a client until a push serves it, its timeout passes or CLIENT
// UNBLOCK ends the wait; LMPOP, which Redis reads with BLMPOP's parser,
// comes with them. Every reply is Redis 7.0's, byte for byte. No check
// times a wait: a client is known to be waiting when INFO's
// blocked_clients counts it, which the checks poll for.

// resp38Checks are chapter 38's checks.
func resp38Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(blockingChecks(), blockingClientChecks(), lmpopChecks(), []Check{{
		Name: "not checked: what chapter 38 does not claim",
		Skip: "how long a timeout takes (no check times a wait), streams' XREAD BLOCK, WAIT, a blocked key whose type changes, CLIENT PAUSE, CLIENT KILL and CLIENT LIST's fields other than id and flags (ch38_blocking/README.md)",
	}})
}

// section38 points a check at the part of chapter 38's README on topic.
func section38(topic string) string { return chapterSection("ch38_blocking", "", topic) }

const (
	unblocked   = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"
	badReason   = "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n"
	negTimeout  = "-ERR timeout is negative\r\n"
	badTimeout  = "-ERR timeout is not a float or out of range\r\n"
	noNumkeys   = "-ERR numkeys should be greater than 0\r\n"
	noCount     = "-ERR count should be greater than 0\r\n"
	resp3Null   = "_\r\n"
	shortExpiry = "0.02" // a timeout that passes while the check waits for it
)

// kBlockedWait bounds how long awaitBlocked polls INFO: a guard against
// a server that never counts the client, far above what a server takes
// to read a command on a loaded machine. It is no verdict on speed.
const kBlockedWait = 10 * time.Second

// A waiter is a client that has sent a command that may block. Its reply
// is read on a goroutine of its own, so that the check goes on while it
// waits, and can tell a reply that came too early.
type waiter struct {
	c     *Conn
	req   []byte
	reply chan waitReply
	early *waitReply // a reply that came while awaitBlocked polled
}

type waitReply struct {
	got []byte
	err error
}

// block sends args on c and reads the reply on a goroutine; c is the
// waiter's until its reply has been taken.
func (c *Conn) block(args ...string) (*waiter, error) {
	w := &waiter{c: c, req: command(args...), reply: make(chan waitReply, 1)}
	if err := c.Send(w.req); err != nil {
		return nil, err
	}
	go func() {
		// Bounded by the check's deadline, as every read.
		got, err := c.ReadRESP()
		w.reply <- waitReply{got, err}
	}()
	return w, nil
}

// expect takes the waiter's reply and checks it is want, byte for byte.
func (w *waiter) expect(want string) error {
	r := w.early
	if r == nil {
		got := <-w.reply
		r = &got
	}
	w.early = nil
	if r.err != nil {
		return r.err
	}
	if string(r.got) != want {
		return &Mismatch{Request: w.req, Want: []byte(want), Got: r.got, e: w.c.e}
	}
	return nil
}

// blockedClients reads INFO clients' blocked_clients.
func blockedClients(c *Conn) (int64, error) {
	text, err := c.info("INFO", "clients")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, "blocked_clients:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("request:  INFO clients\nexpected a line blocked_clients:<n>\nreceived: %s", quoteClip([]byte(text)))
}

// awaitBlocked polls INFO clients on c until blocked_clients is want,
// for up to kBlockedWait. A reply to one of ws before that is a failure:
// that client was answered instead of left waiting.
func (c *Conn) awaitBlocked(want int64, ws ...*waiter) error {
	deadline := time.Now().Add(kBlockedWait)
	for {
		n, err := blockedClients(c)
		if err != nil {
			return err
		}
		if n == want {
			return nil
		}
		for _, w := range ws {
			if w.early != nil {
				continue
			}
			select {
			case r := <-w.reply:
				w.early = &r
				if r.err != nil {
					return fmt.Errorf("expected the client to wait (blocked_clients:%d), but:\n%v", want, r.err)
				}
				return fmt.Errorf("request:  %s\nexpected the client to wait (blocked_clients:%d), it was answered at once\nreceived: %s",
					c.e.showRequest(w.req), want, quoteClip(r.got))
			default:
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("request:  INFO clients\nexpected blocked_clients:%d, still blocked_clients:%d after %v", want, n, kBlockedWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// blocks is a step that has a new client send args, then waits until
// INFO counts n clients blocked; the client is put in *w.
func blocks(w **waiter, n int64, args ...string) respStep {
	return func(c *Conn) error {
		b, err := c.e.Dial()
		if err != nil {
			return err
		}
		return blocksOn(b, w, n, args...)(c)
	}
}

// blocksOn is blocks on the client b, for a check that knows its id.
func blocksOn(b *Conn, w **waiter, n int64, args ...string) respStep {
	return func(c *Conn) error {
		var err error
		if *w, err = b.block(args...); err != nil {
			return err
		}
		return c.awaitBlocked(n, *w)
	}
}

// wakes is a step that checks the reply the client in *w was given.
func wakes(w **waiter, want string) respStep {
	return func(*Conn) error { return (*w).expect(want) }
}

// waiting is a step that waits until INFO counts n clients blocked.
func waiting(n int64) respStep {
	return func(c *Conn) error { return c.awaitBlocked(n) }
}

// on is a step of the client o rather than the check's own.
func on(o *Conn, s respStep) respStep {
	return func(*Conn) error { return s(o) }
}

// withBase is the Run of a check whose steps count blocked clients from
// what INFO counts when it starts (0 on a server of its own): it dials,
// deletes keys, and runs the steps steps(base) makes.
func withBase(keys []string, steps func(base int64) []respStep) func(e *Env) error {
	return dialed(func(e *Env, c *Conn) error {
		for _, k := range keys {
			c.fresh(k)
		}
		base, err := blockedClients(c)
		if err != nil {
			return err
		}
		return c.steps(steps(base)...)
	})
}

// blockingChecks are the checks of the blocking pops.
func blockingChecks() []Check {
	l, m, t, z, y, s := "conform:b38l", "conform:b38m", "conform:b38t", "conform:b38z", "conform:b38y", "conform:b38s"
	return []Check{
		{
			Name:    "blocking: clients blocked on one key are served in the order they blocked, and what they take is gone",
			Section: section38("blocking pops"),
			Hint:    "BLPOP (BRPOP) on an empty key waits; a push serves the clients waiting on the key first come, first served, each popping one element from its end as the push's command ends, before any other command: a push of one element serves one client and leaves none in the list",
			Run: withBase([]string{l}, func(base int64) []respStep {
				var a, b, a2, b2 *waiter
				return []respStep{
					blocks(&a, base+1, "BLPOP", l, "0"),
					blocks(&b, base+2, "BLPOP", l, "0"),
					ex(integer(1), "RPUSH", l, "x"),
					wakes(&a, bulks(l, "x")),
					ex(integer(0), "EXISTS", l),
					waiting(base + 1),
					ex(integer(2), "RPUSH", l, "y", "z"),
					wakes(&b, bulks(l, "y")),
					ex(bulks("z"), "LRANGE", l, "0", "-1"),
					ex(integer(1), "DEL", l),
					waiting(base),
					blocks(&a2, base+1, "BRPOP", l, "0"),
					blocks(&b2, base+2, "BLPOP", l, "0"),
					ex(integer(3), "RPUSH", l, "1", "2", "3"),
					wakes(&a2, bulks(l, "3")),
					wakes(&b2, bulks(l, "1")),
					ex(bulks("2"), "LRANGE", l, "0", "-1"),
					ex(integer(1), "DEL", l),
					waiting(base),
				}
			}),
		},
		{
			Name:    "blocking: BLPOP and BRPOP over several keys pop from the first that has elements, at once",
			Section: section38("blocking pops"),
			Hint:    "a blocking pop whose keys hold elements answers at once [key, element] from the first key, in the order given, that is not empty; a client waiting on several keys is served by a push to any of them",
			Run: withBase([]string{l, m, t}, func(base int64) []respStep {
				var a *waiter
				return []respStep{
					ex(integer(2), "RPUSH", m, "a", "b"),
					ex(integer(1), "RPUSH", t, "c"),
					ex(bulks(m, "a"), "BLPOP", l, m, t, "0"),
					ex(bulks(m, "b"), "BRPOP", l, m, t, "0"),
					ex(bulks(t, "c"), "BRPOP", l, m, t, "0"),
					ex(integer(0), "EXISTS", l, m, t),
					blocks(&a, base+1, "BLPOP", l, m, t, "0"),
					ex(integer(1), "LPUSH", t, "d"),
					wakes(&a, bulks(t, "d")),
					ex(integer(0), "EXISTS", t),
					waiting(base),
				}
			}),
		},
		{
			Name:    "blocking: a timeout answers a null array, BRPOPLPUSH's and BLMOVE's too; a negative or unreadable timeout is an error",
			Section: section38("blocking pops"),
			Hint:    "when its timeout (seconds, a float) passes with every key empty, each blocking pop answers the null array (*-1 in RESP2, _ in RESP3): Redis 7.0 answers so for BRPOPLPUSH and BLMOVE too, whose element is a bulk string; nothing is created; a timeout below 0 is ERR timeout is negative, one that is not a number ERR timeout is not a float or out of range",
			Run: freshSteps([]string{l, m, t, z},
				ex(nullArray, "BLPOP", l, shortExpiry),
				ex(nullArray, "BRPOP", l, m, shortExpiry),
				because("Redis 7.0 answers a BRPOPLPUSH that times out with a null array", ex(nullArray, "BRPOPLPUSH", l, t, shortExpiry)),
				because("Redis 7.0 answers a BLMOVE that times out with a null array", ex(nullArray, "BLMOVE", l, t, "LEFT", "RIGHT", shortExpiry)),
				ex(nullArray, "BLMPOP", shortExpiry, "2", l, m, "LEFT", "COUNT", "2"),
				ex(nullArray, "BZPOPMIN", z, shortExpiry),
				ex(nullArray, "BZPOPMAX", z, shortExpiry),
				ex(nullArray, "BZMPOP", shortExpiry, "1", z, "MAX"),
				ex(integer(0), "EXISTS", l, m, t, z),
				ex(negTimeout, "BLPOP", l, "-1"),
				ex(negTimeout, "BRPOPLPUSH", l, t, "-1"),
				ex(negTimeout, "BLMOVE", l, t, "LEFT", "LEFT", "-0.5"),
				ex(negTimeout, "BLMPOP", "-1", "1", l, "LEFT"),
				ex(negTimeout, "BZPOPMIN", z, "-1"),
				ex(negTimeout, "BZMPOP", "-1", "1", z, "MIN"),
				ex(badTimeout, "BLPOP", l, "x"),
				ex(badTimeout, "BRPOP", l, "nan"),
				ex(badTimeout, "BLMPOP", "x", "1", l, "LEFT"),
				ex(badTimeout, "BZPOPMAX", z, "1x"),
				ex(arity("blpop"), "BLPOP", l),
				func(c *Conn) error { return c.hello(3, "%7", false) },
				ex(resp3Null, "BLPOP", l, shortExpiry),
				ex(resp3Null, "BRPOPLPUSH", l, t, shortExpiry),
				ex(resp3Null, "BLMOVE", l, t, "RIGHT", "LEFT", shortExpiry),
				ex(resp3Null, "BZPOPMIN", z, shortExpiry),
				ex(integer(0), "EXISTS", l, m, t, z),
			),
		},
		{
			Name:    "blocking: inside MULTI a blocking pop answers at once",
			Section: section38("blocking pops"),
			Hint:    "a transaction never waits: EXEC runs a blocking pop as its non-blocking twin, so on empty keys BRPOPLPUSH and BLMOVE answer a null bulk string ($-1) and the others a null array (*-1), and on keys with elements they pop as at once",
			Run: withBase([]string{l, t, z}, func(base int64) []respStep {
				return []respStep{
					func(c *Conn) error {
						return c.tx([]string{okReply, queued, queued, queued, queued, queued, queued, queued, queued,
							array(nullArray, nullArray, nullBulk, nullBulk, nullArray, nullArray, nullArray, nullArray)},
							[]string{"MULTI"},
							[]string{"BLPOP", l, "0"}, []string{"BRPOP", l, "0"},
							[]string{"BRPOPLPUSH", l, t, "0"}, []string{"BLMOVE", l, t, "LEFT", "RIGHT", "0"},
							[]string{"BLMPOP", "0", "1", l, "LEFT"},
							[]string{"BZPOPMIN", z, "0"}, []string{"BZPOPMAX", z, "0"}, []string{"BZMPOP", "0", "1", z, "MIN"},
							[]string{"EXEC"})
					},
					func(c *Conn) error {
						return c.tx([]string{okReply, queued, queued, queued, queued, queued,
							array(integer(2), integer(1), bulks(l, "a"), bulk("b"), array(bulk(z), bulk("m"), bulk("1")))},
							[]string{"MULTI"},
							[]string{"RPUSH", l, "a", "b"}, []string{"ZADD", z, "1", "m"},
							[]string{"BLPOP", l, "0"}, []string{"BLMOVE", l, t, "LEFT", "RIGHT", "0"},
							[]string{"BZPOPMIN", z, "0"},
							[]string{"EXEC"})
					},
					ex(integer(0), "EXISTS", l, z),
					ex(bulks("b"), "LRANGE", t, "0", "-1"),
					ex(integer(1), "DEL", t),
					waiting(base),
				}
			}),
		},
		{
			Name:    "blocking: BLMOVE and BRPOPLPUSH wait for a push, and the element they move serves a client waiting on the target",
			Section: section38("blocking pops"),
			Hint:    "BLMOVE src dst LEFT|RIGHT LEFT|RIGHT timeout is LMOVE that waits while src is empty, BRPOPLPUSH src dst timeout BLMOVE src dst RIGHT LEFT; both answer the element; its push onto dst serves a client blocked on dst in the same turn",
			Run: withBase([]string{l, t}, func(base int64) []respStep {
				var a, b, a2, b2 *waiter
				return []respStep{
					blocks(&b, base+1, "BLPOP", t, "0"),
					blocks(&a, base+2, "BLMOVE", l, t, "LEFT", "RIGHT", "0"),
					ex(integer(1), "RPUSH", l, "m"),
					wakes(&a, bulk("m")),
					wakes(&b, bulks(t, "m")),
					ex(integer(0), "EXISTS", l, t),
					waiting(base),
					blocks(&b2, base+1, "BRPOP", t, "0"),
					blocks(&a2, base+2, "BRPOPLPUSH", l, t, "0"),
					ex(integer(1), "LPUSH", l, "n"),
					wakes(&a2, bulk("n")),
					wakes(&b2, bulks(t, "n")),
					ex(integer(0), "EXISTS", l, t),
					waiting(base),
					ex(integer(3), "RPUSH", l, "a", "b", "c"),
					ex(bulk("c"), "BLMOVE", l, t, "RIGHT", "LEFT", "0"),
					ex(bulk("b"), "BRPOPLPUSH", l, t, "0"),
					ex(bulks("b", "c"), "LRANGE", t, "0", "-1"),
					ex(bulk("a"), "BLMOVE", l, l, "LEFT", "RIGHT", "0"),
					ex(syntaxErr, "BLMOVE", l, t, "UP", "LEFT", "0"),
					ex(integer(2), "DEL", l, t),
				}
			}),
		},
		{
			Name:    "blocking: BZPOPMIN, BZPOPMAX and BZMPOP wait for a ZADD",
			Section: section38("blocking pops"),
			Hint:    "a sorted set's blocking pop waits while every key is empty; a ZADD serves it [key, member, score] (BZMPOP [key, [[member, score], ...]]), the clients in the order they blocked; a key of another type is WRONGTYPE at once",
			Run: withBase([]string{z, y, s}, func(base int64) []respStep {
				var a, b, a2, a3 *waiter
				return []respStep{
					blocks(&a, base+1, "BZPOPMIN", z, y, "0"),
					ex(integer(2), "ZADD", y, "2", "b", "1.5", "a"),
					wakes(&a, array(bulk(y), bulk("a"), bulk("1.5"))),
					ex(array(bulk(y), bulk("b"), bulk("2")), "BZPOPMAX", z, y, "0"),
					ex(integer(0), "EXISTS", y),
					blocks(&a2, base+1, "BZMPOP", "0", "2", z, y, "MIN", "COUNT", "5"),
					ex(integer(2), "ZADD", z, "3", "c", "4", "d"),
					wakes(&a2, array(bulk(z), array(bulks("c", "3"), bulks("d", "4")))),
					ex(integer(0), "EXISTS", z),
					blocks(&a3, base+1, "BZPOPMAX", z, "0"),
					blocks(&b, base+2, "BZPOPMAX", z, "0"),
					ex(integer(2), "ZADD", z, "1", "p", "2", "q"),
					wakes(&a3, array(bulk(z), bulk("q"), bulk("2"))),
					wakes(&b, array(bulk(z), bulk("p"), bulk("1"))),
					ex(integer(0), "EXISTS", z),
					ex(okReply, "SET", s, "v"),
					ex(wrongType, "BZPOPMIN", s, "0"),
					ex(wrongType, "BZMPOP", "0", "1", s, "MAX"),
					ex(integer(1), "DEL", s),
					waiting(base),
				}
			}),
		},
		{
			Name:    "blocking: BLMPOP waits, pops up to COUNT from the first key with elements; its errors",
			Section: section38("LMPOP and BLMPOP"),
			Hint:    "BLMPOP timeout numkeys key... LEFT|RIGHT [COUNT n] answers [key, [elements]] at once from the first key with elements, or waits for a push; numkeys must be at least 1 and match the keys, COUNT at least 1 (ERR numkeys should be greater than 0, ERR count should be greater than 0)",
			Run: withBase([]string{l, m}, func(base int64) []respStep {
				var a, b *waiter
				return []respStep{
					blocks(&a, base+1, "BLMPOP", "0", "2", l, m, "RIGHT", "COUNT", "2"),
					ex(integer(3), "RPUSH", m, "1", "2", "3"),
					wakes(&a, array(bulk(m), bulks("3", "2"))),
					ex(array(bulk(m), bulks("1")), "BLMPOP", "0", "2", l, m, "LEFT", "COUNT", "5"),
					ex(integer(0), "EXISTS", m),
					blocks(&b, base+1, "BLMPOP", "0", "1", l, "LEFT"),
					ex(integer(2), "RPUSH", l, "x", "y"),
					wakes(&b, array(bulk(l), bulks("x"))),
					ex(bulks("y"), "LRANGE", l, "0", "-1"),
					ex(integer(1), "DEL", l),
					ex(noNumkeys, "BLMPOP", "0", "0", l, "LEFT"),
					ex(noNumkeys, "BLMPOP", "0", "x", l, "LEFT"),
					ex(noNumkeys, "BLMPOP", "0", "-1", l, "LEFT"),
					ex(noCount, "BLMPOP", "0", "1", l, "LEFT", "COUNT", "0"),
					ex(noCount, "BLMPOP", "0", "1", l, "LEFT", "COUNT", "x"),
					ex(syntaxErr, "BLMPOP", "0", "1", l, "SIDEWAYS"),
					ex(syntaxErr, "BLMPOP", "0", "2", l, "LEFT"),
					ex(arity("blmpop"), "BLMPOP", "0", "1", l),
					waiting(base),
				}
			}),
		},
	}
}

// blockingClientChecks are the checks of what a server tells and does
// about its blocked clients: CLIENT UNBLOCK, INFO, CLIENT LIST, a client
// that hangs up.
func blockingClientChecks() []Check {
	l, t, z, k := "conform:b38cl", "conform:b38ct", "conform:b38cz", "conform:b38ck"
	return []Check{
		{
			Name:    "blocking: CLIENT UNBLOCK ends a wait as a timeout (a null array) or with -UNBLOCKED; a client not blocked answers 0",
			Section: section38("CLIENT UNBLOCK and INFO"),
			Hint:    "CLIENT UNBLOCK id [TIMEOUT|ERROR] answers 1 and ends the wait of a blocked client: TIMEOUT (the default) answers it as its timeout would (a null array, BRPOPLPUSH and BLMOVE too), ERROR with -UNBLOCKED client unblocked via CLIENT UNBLOCK; 0 for a client that is not blocked or no client; the client takes nothing afterwards and is served as usual",
			Run: func(e *Env) error {
				c, a, err := dialTwo(e)
				if err != nil {
					return err
				}
				for _, key := range []string{l, t, z} {
					c.fresh(key)
				}
				base, err := blockedClients(c)
				if err != nil {
					return err
				}
				id, err := a.CommandInt("CLIENT", "ID")
				if err != nil {
					return err
				}
				ids := strconv.FormatInt(id, 10)
				var w *waiter
				return c.steps(
					ex(integer(0), "CLIENT", "UNBLOCK", ids),
					ex(integer(0), "CLIENT", "UNBLOCK", ids, "TIMEOUT"),
					ex(integer(0), "CLIENT", "UNBLOCK", ids, "ERROR"),
					ex(integer(0), "CLIENT", "UNBLOCK", "9223372036854775807"),
					ex(badReason, "CLIENT", "UNBLOCK", ids, "SOON"),
					ex(notInt, "CLIENT", "UNBLOCK", "x"),
					blocksOn(a, &w, base+1, "BLPOP", l, "0"),
					ex(integer(1), "CLIENT", "UNBLOCK", ids, "TIMEOUT"),
					wakes(&w, nullArray),
					waiting(base),
					ex(integer(0), "CLIENT", "UNBLOCK", ids),
					blocksOn(a, &w, base+1, "BRPOPLPUSH", l, t, "0"),
					ex(integer(1), "CLIENT", "UNBLOCK", ids),
					because("Redis 7.0 answers a BRPOPLPUSH unblocked as a timeout with a null array", wakes(&w, nullArray)),
					blocksOn(a, &w, base+1, "BLMOVE", l, t, "LEFT", "LEFT", "0"),
					ex(integer(1), "CLIENT", "UNBLOCK", ids, "timeout"),
					because("Redis 7.0 answers a BLMOVE unblocked as a timeout with a null array", wakes(&w, nullArray)),
					blocksOn(a, &w, base+1, "BZPOPMIN", z, "0"),
					ex(integer(1), "CLIENT", "UNBLOCK", ids, "ERROR"),
					wakes(&w, unblocked),
					blocksOn(a, &w, base+1, "BLMPOP", "0", "1", l, "LEFT"),
					ex(integer(1), "CLIENT", "UNBLOCK", ids, "error"),
					wakes(&w, unblocked),
					waiting(base),
					ex(integer(1), "RPUSH", l, "v"),
					ex(bulks("v"), "LRANGE", l, "0", "-1"),
					on(a, ex("+PONG\r\n", "PING")),
					on(a, ex(bulks(l, "v"), "BLPOP", l, "0")),
					ex(integer(0), "EXISTS", l, t, z),
				)
			},
		},
		{
			Name:    "blocking: INFO's blocked_clients and CLIENT LIST's flags=b count the clients waiting; one that hangs up no longer counts, and takes nothing",
			Section: section38("CLIENT UNBLOCK and INFO"),
			Hint:    "INFO clients has blocked_clients:N while N clients wait, whatever they wait in; CLIENT LIST marks a waiting client flags=b, flags=N once served; a client that closes its connection while blocked leaves the key's queue, and the next push serves the client after it",
			Run: func(e *Env) error {
				c, a, err := dialTwo(e)
				if err != nil {
					return err
				}
				for _, key := range []string{l, t, z, k} {
					c.fresh(key)
				}
				base, err := blockedClients(c)
				if err != nil {
					return err
				}
				id, err := a.CommandInt("CLIENT", "ID")
				if err != nil {
					return err
				}
				ids := strconv.FormatInt(id, 10)
				flags := func(flag string) respStep {
					return form("$<len> id="+ids+" ... flags="+flag+" ...", func(got []byte) bool {
						_, line, ok := bytes.Cut(got, []byte("\r\n"))
						return ok && bytes.HasPrefix(line, []byte("id="+ids+" ")) && bytes.Contains(line, []byte(" flags="+flag+" "))
					}, "CLIENT", "LIST", "ID", ids)
				}
				var gone, next, zw, mv *waiter
				return c.steps(
					waiting(base),
					flags("N"),
					blocks(&gone, base+1, "BLPOP", l, "0"),
					blocks(&next, base+2, "BLPOP", l, "0"),
					blocks(&zw, base+3, "BZPOPMIN", z, "0"),
					blocksOn(a, &mv, base+4, "BLMOVE", k, t, "RIGHT", "LEFT", "0"),
					flags("b"),
					func(*Conn) error { gone.c.Close(); return nil },
					waiting(base+3),
					ex(integer(2), "RPUSH", l, "v", "w"),
					wakes(&next, bulks(l, "v")),
					ex(bulks("w"), "LRANGE", l, "0", "-1"),
					waiting(base+2),
					ex(integer(1), "ZADD", z, "1", "m"),
					wakes(&zw, array(bulk(z), bulk("m"), bulk("1"))),
					ex(integer(1), "RPUSH", k, "x"),
					wakes(&mv, bulk("x")),
					waiting(base),
					flags("N"),
					ex(bulks("x"), "LRANGE", t, "0", "-1"),
					ex(integer(2), "DEL", l, t),
					ex(integer(0), "EXISTS", z, k),
				)
			},
		},
	}
}

// dialTwo dials the check's connection and a second client.
func dialTwo(e *Env) (c, a *Conn, err error) {
	if c, err = e.Dial(); err != nil {
		return nil, nil, err
	}
	if a, err = e.Dial(); err != nil {
		return nil, nil, err
	}
	return c, a, nil
}

// lmpopChecks are the checks of LMPOP, which came with BLMPOP (ch37 left
// them here), and of the blocking pops against another type.
func lmpopChecks() []Check {
	l, m, s := "conform:l38", "conform:l38b", "conform:l38s"
	return []Check{
		{
			Name:    "lists: LMPOP pops up to COUNT from the first key with elements; its errors",
			Section: section38("LMPOP and BLMPOP"),
			Hint:    "LMPOP numkeys key... LEFT|RIGHT [COUNT n] answers [key, [elements]] from the first key with elements, or a null array; numkeys below 1 or not a number is ERR numkeys should be greater than 0, a COUNT below 1 ERR count should be greater than 0; fewer keys than numkeys, a side other than LEFT or RIGHT or COUNT twice is ERR syntax error",
			Run: freshSteps([]string{l, m, s},
				ex(okReply, "SET", s, "v"),
				ex(integer(3), "RPUSH", m, "a", "b", "c"),
				ex(array(bulk(m), bulks("a")), "LMPOP", "2", l, m, "LEFT"),
				ex(array(bulk(m), bulks("c", "b")), "LMPOP", "2", l, m, "RIGHT", "COUNT", "5"),
				ex(integer(0), "EXISTS", m),
				ex(nullArray, "LMPOP", "2", l, m, "LEFT"),
				ex(nullArray, "LMPOP", "1", l, "LEFT", "COUNT", "2"),
				ex(noNumkeys, "LMPOP", "0", l, "LEFT"),
				ex(noNumkeys, "LMPOP", "x", l, "LEFT"),
				ex(noCount, "LMPOP", "1", l, "LEFT", "COUNT", "0"),
				ex(noCount, "LMPOP", "1", l, "LEFT", "COUNT", "-1"),
				ex(noCount, "LMPOP", "1", l, "LEFT", "COUNT", "x"),
				ex(syntaxErr, "LMPOP", "1", l, "SIDEWAYS"),
				ex(syntaxErr, "LMPOP", "2", l, "LEFT"),
				ex(syntaxErr, "LMPOP", "1", l, "LEFT", "COUNT", "1", "COUNT", "1"),
				ex(arity("lmpop"), "LMPOP", "1", l),
				ex(integer(1), "RPUSH", l, "a"),
				ex(wrongType, "LMPOP", "2", s, l, "LEFT"),
				ex(array(bulk(l), bulks("a")), "LMPOP", "2", l, s, "LEFT"),
				ex(integer(1), "DEL", s),
			),
		},
		{
			Name:    "lists: every blocking list command against a string is WRONGTYPE at once",
			Section: section38("blocking pops"),
			Hint:    "a key of another type answers -WRONGTYPE at once rather than a wait, as source or as BRPOPLPUSH's and BLMOVE's target (nothing is then popped), unless a key before it in the command has elements to pop",
			Run: freshSteps([]string{l, m, s},
				ex(okReply, "SET", s, "v"),
				ex(wrongType, "BLPOP", s, "0"),
				ex(wrongType, "BRPOP", m, s, "0"),
				ex(wrongType, "BRPOPLPUSH", s, l, "0"),
				ex(wrongType, "BLMOVE", s, l, "LEFT", "LEFT", "0"),
				ex(wrongType, "BLMPOP", "0", "2", m, s, "LEFT"),
				ex(wrongType, "LMPOP", "1", s, "LEFT"),
				ex(integer(0), "EXISTS", l, m),
				ex(integer(1), "RPUSH", l, "a"),
				ex(wrongType, "BRPOPLPUSH", l, s, "0"),
				ex(wrongType, "BLMOVE", l, s, "LEFT", "LEFT", "0"),
				ex(bulks("a"), "LRANGE", l, "0", "-1"),
				ex(bulks(l, "a"), "BLPOP", l, s, "0"),
				ex(bulk("v"), "GET", s),
				ex(integer(1), "DEL", s),
			),
		},
	}
}
