package conform

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// bookHash is the book's string hash (FNV-like, 32 bits).
func bookHash(s string) uint32 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h = (h + uint32(s[i])) * 0x01000193
	}
	return h
}

// bookKeysOrder is the order in which the book's hashtable lists keys
// inserted in the given order into an empty table of 4 slots (no resizing
// starts below 32 keys): slot by slot, each slot's chain newest first.
func bookKeysOrder(inserted []string) []string {
	var out []string
	for slot := uint32(0); slot < 4; slot++ {
		for i := len(inserted) - 1; i >= 0; i-- {
			if bookHash(inserted[i])&3 == slot {
				out = append(out, inserted[i])
			}
		}
	}
	return out
}

func keysChecks(st *Stage, cfg *Config) []Check {
	newer := cfg.Edition == EditionNewer
	// From chapter 18 on the key space is no longer the book's chained
	// table (ch18 replaces it with open addressing for speed), so the
	// order of keys is no longer the book's and is not checked there.
	var out []Check
	if st.Has(chapters.KeysOrder) {
		out = append(out, Check{
			Name:       "keys lists the keys in the order the book's hashtable fixes",
			Section:    "08. Data Structure: Hashtables; 09. Data Serialization (keys)",
			Hint:       "the table starts with 4 slots; keys inserts at the head of a slot's chain and keys walks slots in order",
			Fresh:      true,
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.Cmd(e.Arr(), "keys"); err != nil {
					return err
				}
				var inserted []string
				for i := range 12 {
					k := fmt.Sprintf("key%d", i)
					inserted = append(inserted, k)
					if err := c.Cmd(e.okSet(), "set", k, "v"); err != nil {
						return err
					}
				}
				var want [][]byte
				for _, k := range bookKeysOrder(inserted) {
					want = append(want, e.Str(k))
				}
				return c.Cmd(e.Arr(want...), "keys")
			}),
		})
	}
	out = append(out, []Check{
		{
			Name:          "a reply that would not fit a message is replaced by the too-big error",
			Section:       "09. Data Serialization",
			Hint:          "if 4 + the serialized reply exceeds k_max_msg, answer err ERR_2BIG (2) instead",
			Fresh:         true,
			FreshOptional: true,
			Unverified:    newer,
			Run: func(e *Env) error {
				if newer {
					return &skip{"needs 32 MiB of keys under the newer edition's limit"}
				}
				c, err := e.Dial()
				if err != nil {
					return err
				}
				// Two keys whose listing is exactly 4092 bytes, which
				// with its length fills a 4096-byte message.
				k1 := "conform:" + strings.Repeat("a", 2040-8)
				k2 := "conform:" + strings.Repeat("b", 2037-8)
				for _, k := range []string{k1, k2} {
					if err := c.Cmd(e.okSet(), "set", k, ""); err != nil {
						return err
					}
				}
				if e.fresh {
					// The book's table lists them in this order; the order
					// is the keys-order check's business, so a server whose
					// table orders keys otherwise may list them the other
					// way round.
					order := bookKeysOrder([]string{k1, k2})
					err := c.Cmd(e.Arr(e.Str(order[0]), e.Str(order[1])), "keys")
					if err != nil && c.Cmd(e.Arr(e.Str(order[1]), e.Str(order[0])), "keys") != nil {
						return fmt.Errorf("a keys reply of exactly 4092 bytes fits: %v", err)
					}
				}
				if err := c.Cmd(e.okSet(), "set", "k", ""); err != nil {
					return err
				}
				if err := c.Cmd(e.TooBig(), "keys"); err != nil {
					return err
				}
				for _, k := range []string{k1, k2, "k"} {
					if err := c.Cmd(e.Int(1), "del", k); err != nil {
						return err
					}
				}
				return nil
			},
		},
	}...)
	return out
}

// zsetChecks: sorted sets' replies on the wire beyond the sessions.
func zsetChecks(st *Stage, cfg *Config) []Check {
	newer := cfg.Edition == EditionNewer
	return []Check{
		{
			Name: "zscore answers a double (tag 4) and zquery an array (tag 5) of names and scores",
			Hint: "from chapter 11 doubles are tag 4 and arrays tag 5",
			Run: dialed(func(e *Env, c *Conn) error {
				c.Cmd(e.Int(0), "del", "conform:z")
				if err := c.Cmd(e.Int(1), "zadd", "conform:z", "1.5", "a"); err != nil {
					return err
				}
				if err := c.Cmd(e.Int(1), "zadd", "conform:z", "-2", "b"); err != nil {
					return err
				}
				if err := c.Cmd(e.Dbl(1.5), "zscore", "conform:z", "a"); err != nil {
					return err
				}
				if err := c.Cmd(e.Arr(e.Str("b"), e.Dbl(-2), e.Str("a"), e.Dbl(1.5)), "zquery", "conform:z", "-10", "", "0", "10"); err != nil {
					return err
				}
				return c.Cmd(e.Int(1), "del", "conform:z")
			}),
		},
		{
			Name: "zquery offsets: negative offsets move back from the seek position, limits count elements",
			Hint: "zquery seeks to the first pair >= (score, name), moves by offset, then returns up to limit elements",
			Run: dialed(func(e *Env, c *Conn) error {
				c.Cmd(e.Int(0), "del", "conform:zq")
				for i, n := range []string{"a", "b", "c", "d", "e"} {
					if err := c.Cmd(e.Int(1), "zadd", "conform:zq", fmt.Sprint(i), n); err != nil {
						return err
					}
				}
				pair := func(n string, s float64) [][]byte { return [][]byte{e.Str(n), e.Dbl(s)} }
				join := func(ps ...[][]byte) [][]byte {
					var out [][]byte
					for _, p := range ps {
						out = append(out, p...)
					}
					return out
				}
				cases := []struct {
					args []string
					want [][]byte
				}{
					{[]string{"2", "c", "-2", "4"}, join(pair("a", 0), pair("b", 1))},
					{[]string{"2", "", "1", "100"}, join(pair("d", 3), pair("e", 4))},
					{[]string{"2", "", "-9", "4"}, nil},
					{[]string{"0", "", "0", "5"}, join(pair("a", 0), pair("b", 1), pair("c", 2))},
					{[]string{"0", "", "0", "4"}, join(pair("a", 0), pair("b", 1))},
					{[]string{"4", "e", "1", "4"}, nil},
				}
				for _, cs := range cases {
					args := append([]string{"zquery", "conform:zq"}, cs.args...)
					if err := c.Cmd(e.Arr(cs.want...), args...); err != nil {
						return err
					}
				}
				return c.Cmd(e.Int(1), "del", "conform:zq")
			}),
		},
		{
			Name:       "zrem and zscore on a missing key",
			Hint:       map[bool]string{false: "in the 2023 edition a missing key answers nil", true: "in the newer edition a missing key acts as an empty set"}[newer],
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				c.Cmd(e.Int(0), "del", "conform:nozset")
				want := e.Nil()
				if newer {
					want = e.Int(0)
				}
				if err := c.Cmd(want, "zrem", "conform:nozset", "n"); err != nil {
					return err
				}
				return c.Cmd(e.Nil(), "zscore", "conform:nozset", "n")
			}),
		},
		{
			Name:       "a score that is not a number is refused with ERR_ARG",
			Hint:       "scores are parsed as doubles; junk answers err 4",
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				msg := "expect fp number"
				if newer {
					msg = "expect float"
				}
				return c.Cmd(e.Err(4, msg), "zadd", "conform:zbad", "abc", "n")
			}),
		},
	}
}

// idleChecks: chapter 12 closes connections idle for 5 s.
func idleChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:    "an idle connection is closed after about 5 s; a busy one is not",
		Hint:    "each connection's timer is renewed on every read or write; k_idle_timeout_ms is 5000",
		Slow:    true,
		Timeout: 60 * time.Second,
		Run: func(e *Env) error {
			var chatty, silent, half *Conn
			if err := e.dialEach(&chatty, &silent, &half); err != nil {
				return err
			}
			if err := half.Send(e.Req("get", "conform:idle")[:7]); err != nil {
				return err
			}
			start := time.Now()
			type res struct {
				after time.Duration
				err   error
			}
			watch := func(c *Conn, name string) chan res {
				ch := make(chan res, 1)
				go func() {
					// 5 s in the book; 15 s leaves room for a slow machine.
					c.SetTimeout(15 * time.Second)
					err := c.ExpectClosed(name)
					ch <- res{time.Since(start), err}
				}()
				return ch
			}
			sc, hc := watch(silent, "an idle connection"), watch(half, "a connection idle inside a request")
			for time.Since(start) < 8*time.Second {
				if err := chatty.Cmd(e.Nil(), "get", "conform:idle"); err != nil {
					return fmt.Errorf("a connection used every 200 ms was not served %v after it opened: %v", time.Since(start).Round(time.Millisecond), err)
				}
				time.Sleep(200 * time.Millisecond)
			}
			for _, ch := range []chan res{sc, hc} {
				r := <-ch
				if r.err != nil {
					return r.err
				}
				if r.after < 4*time.Second {
					return fmt.Errorf("an idle connection was closed after %v, well before 5 s", r.after.Round(time.Millisecond))
				}
			}
			return nil
		},
	}}
}

// ttlChecks: chapter 13's pexpire and pttl, and keys expiring by
// themselves.
func ttlChecks(st *Stage, cfg *Config) []Check {
	return []Check{
		{
			Name: "pexpire and pttl: -2 for no key, -1 for no TTL, else the milliseconds left",
			Hint: "pexpire answers 1 if the key exists else 0; a negative TTL removes it",
			Run: dialed(func(e *Env, c *Conn) error {
				k := "conform:ttl"
				c.Cmd(e.Int(0), "del", k)
				steps := []struct {
					want []byte
					args []string
				}{
					{e.Int(-2), []string{"pttl", k}},
					{e.Int(0), []string{"pexpire", k, "1000"}},
					{e.Nil(), []string{"set", k, "v"}},
					{e.Int(-1), []string{"pttl", k}},
					{e.Int(1), []string{"pexpire", k, "100000"}},
				}
				for _, s := range steps {
					if err := c.Cmd(s.want, s.args...); err != nil {
						return err
					}
				}
				req := e.Req("pttl", k)
				got, err := c.RequestReply(req)
				if err != nil {
					return err
				}
				// What is left of 100 s, allowing 10 s for a slow machine.
				v, verr := wire.DecodeReply(got)
				if verr != nil || v.Tag != wire.TagInt || v.Int < 90000 || v.Int > 100000 {
					return &Mismatch{Request: req, Want: e.Int(100000), Got: got, e: e}
				}
				if err := c.Cmd(e.Int(1), "pexpire", k, "-1"); err != nil {
					return err
				}
				if err := c.Cmd(e.Int(-1), "pttl", k); err != nil {
					return err
				}
				if err := c.Cmd(e.Err(4, "expect int64"), "pexpire", k, "soon"); err != nil {
					return err
				}
				return c.Cmd(e.Int(1), "del", k)
			}),
		},
		{
			Name:    "a key expires by itself, with nobody touching it",
			Hint:    "the event loop's poll timeout must come from the nearest TTL, and expired keys are removed by the loop",
			Timeout: 30 * time.Second,
			Run: dialed(func(e *Env, c *Conn) error {
				k := "conform:expiring"
				if err := c.Cmd(e.Nil(), "set", k, "v"); err != nil {
					return err
				}
				if err := c.Cmd(e.Int(1), "pexpire", k, "300"); err != nil {
					return err
				}
				// Let the TTL pass without touching the key, then poll
				// pttl (up to 10 s) until the server has removed it on
				// its own.
				time.Sleep(1500 * time.Millisecond)
				return c.awaitReply(e.Int(-2), "pttl", k)
			}),
		},
	}
}

// poolChecks: chapter 14 frees large sorted sets off the event loop.
func poolChecks(st *Stage, cfg *Config) []Check {
	newer := cfg.Edition == EditionNewer
	return []Check{{
		Name:    "deleting a sorted set above the large-container size answers, and others keep being served",
		Hint:    "sets above k_large_container_size are destroyed by the thread pool; the reply and other clients must not wait on it",
		Timeout: 120 * time.Second,
		Run: dialed(func(e *Env, c *Conn) error {
			other, err := e.Dial()
			if err != nil {
				return err
			}
			n := 20000
			if newer {
				n = 2000 // the newer edition's threshold is 1000
			}
			k := "conform:bigz"
			c.Cmd(e.Int(0), "del", k)
			if err := c.batches("zadd member", n, func(i int) []string { return []string{"zadd", k, fmt.Sprint(i), fmt.Sprintf("m%d", i)} },
				func(int) []byte { return e.Int(1) }); err != nil {
				return err
			}
			var wg sync.WaitGroup
			var otherErr error
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					if otherErr = other.Cmd(e.Nil(), "get", "conform:absent"); otherErr != nil {
						return
					}
				}
			}()
			if err := c.Cmd(e.Int(1), "del", k); err != nil {
				return err
			}
			wg.Wait()
			if otherErr != nil {
				return fmt.Errorf("another client while the set was deleted: %v", otherErr)
			}
			return c.Cmd(e.Nil(), "zscore", k, "m1")
		}),
	}}
}

// hardChecks: beyond the book, chapter 15 drops a client that keeps a
// request incomplete by sending it a byte at a time.
func hardChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:    "beyond the book: a client dripping a request a byte every 200 ms is closed after about 5 s",
		Hint:    "bytes of a request still incomplete do not renew the idle timer: a request must arrive whole within the idle timeout",
		Slow:    true,
		Timeout: 60 * time.Second,
		Run: func(e *Env) error {
			c, err := e.Dial()
			if err != nil {
				return err
			}
			defer c.Close()
			// Long enough that it is never finished (200 bytes, 40 s).
			req := e.Req("get", "conform:drip:"+strings.Repeat("d", 200))
			start := time.Now()
			// The book renews the timer on every read, so it never closes
			// this client; 20 s leaves room for a slow machine. A write
			// fails once the server has closed the connection (the one
			// before it draws the reset), so the drip itself finds out.
			for i := 0; i < len(req)-1; i++ {
				if time.Since(start) > 20*time.Second {
					return fmt.Errorf("a connection dripping a request stayed open %v", time.Since(start).Round(time.Second))
				}
				if err := c.Send(req[i : i+1]); err != nil {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if after := time.Since(start); after < 4*time.Second {
				return fmt.Errorf("the dripping connection was closed after %v, well before 5 s", after.Round(time.Millisecond))
			}
			return nil
		},
	}}
}

// fieldTTLChecks: beyond the book, hash fields expiring by themselves.
func fieldTTLChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:    "beyond the book: a hash field expires by itself and the others stay",
		Hint:    "hpexpire sets one field's TTL (answering 1 per field set); expired fields are removed without being touched",
		Timeout: 30 * time.Second,
		Run: dialed(func(e *Env, c *Conn) error {
			k := "conform:h"
			c.Cmd(e.Int(0), "del", k)
			if err := c.Cmd(e.Int(2), "hset", k, "a", "1", "b", "2"); err != nil {
				return err
			}
			if err := c.Cmd(e.Arr(e.Int(1)), "hpexpire", k, "200", "FIELDS", "1", "a"); err != nil {
				return err
			}
			if err := c.awaitReply(e.Int(0), "hexists", k, "a"); err != nil {
				return err
			}
			if err := c.Cmd(e.Str("2"), "hget", k, "b"); err != nil {
				return err
			}
			return c.Cmd(e.Int(1), "del", k)
		}),
	}}
}

// outputChecks: beyond the book, a client that never reads its replies
// does not stop the server serving others.
func outputChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:    "beyond the book: a client that never reads its replies does not hold up others",
		Hint:    "output queued for one client must be bounded; stop reading from it rather than stall the loop",
		Timeout: 60 * time.Second,
		Run: func(e *Env) error {
			var hog, other *Conn
			if err := e.dialEach(&hog, &other); err != nil {
				return err
			}
			val := strings.Repeat("o", 4000)
			if err := other.Cmd(e.Nil(), "set", "conform:o", val); err != nil {
				return err
			}
			// About 20 MB of replies nobody reads; writing stops when
			// the buffers are full, which is fine.
			var all []byte
			for range 200 {
				all = append(all, e.Req("get", "conform:o")...)
			}
			go func() {
				hog.SetTimeout(10 * time.Second)
				for range 25 {
					if _, err := hog.c.Write(all); err != nil {
						return
					}
				}
			}()
			for range 50 {
				if err := other.Cmd(e.Str(val), "get", "conform:o"); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond)
			}
			hog.Close()
			return other.Cmd(e.Int(1), "del", "conform:o")
		},
	}}
}

// resizeChecks: chapter 08's hashtable resizes progressively; every key
// must stay reachable while it does.
func resizeChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:    "20000 keys set, read back, half deleted: every key stays reachable while the table resizes",
		Hint:    "during progressive resizing, lookups and deletes must search both tables",
		Timeout: 120 * time.Second,
		Run: dialed(func(e *Env, c *Conn) error {
			const n = 20000
			key := func(i int) string { return fmt.Sprintf("conform:many:%d", i) }
			pass := func(what string, req func(i int) []string, want func(i int) []byte) error {
				return c.batches(what+", key", n, req, want)
			}
			if err := pass("set", func(i int) []string { return []string{"set", key(i), fmt.Sprint(i)} },
				func(int) []byte { return e.okSet() }); err != nil {
				return err
			}
			if err := pass("get", func(i int) []string { return []string{"get", key(i)} },
				func(i int) []byte { return e.value(fmt.Sprint(i)) }); err != nil {
				return err
			}
			if err := pass("del even", func(i int) []string {
				if i%2 == 0 {
					return []string{"del", key(i)}
				}
				return []string{"get", key(i)}
			}, func(i int) []byte {
				if i%2 == 0 {
					return e.deleted(true)
				}
				return e.value(fmt.Sprint(i))
			}); err != nil {
				return err
			}
			if err := pass("get after del", func(i int) []string { return []string{"get", key(i)} },
				func(i int) []byte {
					if i%2 == 0 {
						return e.missing()
					}
					return e.value(fmt.Sprint(i))
				}); err != nil {
				return err
			}
			return pass("del odd", func(i int) []string { return []string{"del", key(i)} },
				func(i int) []byte { return e.deleted(i%2 == 1) })
		}),
	}}
}

// batches sends requests 0..n-1 (req(i)), a thousand to a write, and
// checks that request i is answered want(i); what names a request that is
// not, by its number.
func (c *Conn) batches(what string, n int, req func(i int) []string, want func(i int) []byte) error {
	const batch = 1000
	for start := 0; start < n; start += batch {
		var all []byte
		for i := start; i < start+batch; i++ {
			all = append(all, c.e.Req(req(i)...)...)
		}
		if err := c.Send(all); err != nil {
			return err
		}
		for i := start; i < start+batch; i++ {
			if err := c.Expect(c.e.Req(req(i)...), want(i)); err != nil {
				return fmt.Errorf("%s %d: %v", what, i, err)
			}
		}
	}
	return nil
}

// awaitReply sends args until the reply is want, for up to 10 s: for a
// change the server makes on its own (a TTL passing), not on a request.
func (c *Conn) awaitReply(want []byte, args ...string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		req := c.e.Req(args...)
		got, err := c.RequestReply(req)
		if err != nil {
			return err
		}
		if string(got) == string(want) {
			return nil
		}
		if time.Now().After(deadline) {
			return &Mismatch{Request: req, Want: want, Got: got, e: c.e}
		}
		time.Sleep(100 * time.Millisecond)
	}
}
