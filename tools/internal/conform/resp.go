package conform

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"example.com/byor/testkit/resp"
)

// The ch21 to ch24 stages: Redis's protocol, RESP, as a real
// redis-server speaks it (the ch21 and ch22 stages are in resp21.go). Every expected reply below is what Redis 7.0 answers, byte for byte;
// values that differ between runs (ids, versions, TTLs counting down) are
// checked for their shape. Point the stage at a server's RESP listener.

const respHint = "replies as Redis writes them: +simple, -ERR text, :integer, $len bulk, $-1 null, *n arrays (RESP2); after HELLO 3, _ null, ,double and %n maps"

// maxRESPReply bounds a reply the runner reads.
const maxRESPReply = 4 << 20

// RESP reply texts.
func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
func integer(n int64) string {
	return ":" + strconv.FormatInt(n, 10) + "\r\n"
}
func array(elems ...string) string {
	return "*" + strconv.Itoa(len(elems)) + "\r\n" + strings.Join(elems, "")
}
func bulks(ss ...string) string {
	var el []string
	for _, s := range ss {
		el = append(el, bulk(s))
	}
	return array(el...)
}

const (
	okReply   = "+OK\r\n"
	nullBulk  = "$-1\r\n"
	wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	notInt    = "-ERR value is not an integer or out of range\r\n"
	notFloat  = "-ERR value is not a valid float\r\n"
	syntaxErr = "-ERR syntax error\r\n"
)

func arity(name string) string {
	return "-ERR wrong number of arguments for '" + name + "' command\r\n"
}

// command encodes a command as clients send it: an array of bulk strings.
func command(args ...string) []byte { return resp.AppendCommand(nil, args...) }

// ReadRESP reads one whole RESP reply, as bytes.
func (c *Conn) ReadRESP() ([]byte, error) {
	c.got = c.got[:0]
	b, err := resp.ReadRaw(c.br, nil, maxRESPReply)
	if err != nil {
		return nil, c.readErr("reading a reply", err)
	}
	return b, nil
}

// CommandReply sends a command and reads its whole reply, which it
// returns with the request as sent.
func (c *Conn) CommandReply(args ...string) (req, got []byte, err error) {
	req = command(args...)
	if err := c.Send(req); err != nil {
		return req, nil, err
	}
	got, err = c.ReadRESP()
	return req, got, err
}

// kLoadingWait bounds how long DialLoaded waits for a restarted server to
// load its data: a guard against a hang, far above what a check's data
// takes on a loaded machine.
const kLoadingWait = 60 * time.Second

// DialLoaded dials the server once it has loaded its data. A server that
// reads its files at start may accept connections before it has read
// them and answer -LOADING meanwhile (Redis does); a check that has just
// restarted the server waits for that to pass rather than take it for
// the server's answer.
func (e *Env) DialLoaded() (*Conn, error) {
	deadline := time.Now().Add(kLoadingWait)
	for {
		c, err := e.Dial()
		if err != nil {
			return nil, err
		}
		_, got, err := c.CommandReply("PING")
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(got, []byte("-LOADING")) {
			return c, nil
		}
		c.Close()
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server still answers %q %v after its restart", bytes.TrimSpace(got), kLoadingWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ExpectRESP reads one reply to req and checks it is want, byte for byte.
func (c *Conn) ExpectRESP(req []byte, want string) error {
	c.last = req
	got, err := c.ReadRESP()
	if err != nil {
		return err
	}
	if string(got) != want {
		return &Mismatch{Request: req, Want: []byte(want), Got: got, e: c.e}
	}
	return nil
}

// CommandExpect sends a command and checks its reply.
func (c *Conn) CommandExpect(want string, args ...string) error {
	req := command(args...)
	if err := c.Send(req); err != nil {
		return err
	}
	return c.ExpectRESP(req, want)
}

// RawExpect sends raw bytes and checks the reply.
func (c *Conn) RawExpect(req []byte, want string) error {
	if err := c.Send(req); err != nil {
		return err
	}
	return c.ExpectRESP(req, want)
}

// CommandInt sends a command whose reply is an integer and returns it.
func (c *Conn) CommandInt(args ...string) (int64, error) {
	req, got, err := c.CommandReply(args...)
	if err != nil {
		return 0, err
	}
	if len(got) < 3 || got[0] != ':' {
		return 0, &Mismatch{Request: req, Want: []byte(":<integer>\r\n"), Got: got, e: c.e}
	}
	return strconv.ParseInt(string(got[1:len(got)-2]), 10, 64)
}

// CommandIntIn sends a command whose reply is an integer and checks that it
// lies in lo..hi (TTLs that count down while the request travels).
func (c *Conn) CommandIntIn(lo, hi int64, args ...string) error {
	n, err := c.CommandInt(args...)
	if err != nil {
		return err
	}
	if n < lo || n > hi {
		return &Mismatch{Request: command(args...), Want: []byte(fmt.Sprintf(":%d..%d\r\n", lo, hi)), Got: []byte(integer(n)), e: c.e}
	}
	return nil
}

// CommandUnordered sends a command whose reply is an array of bulk strings
// in no set order (KEYS) and checks it holds exactly want.
func (c *Conn) CommandUnordered(want []string, args ...string) error {
	req, got, err := c.CommandReply(args...)
	if err != nil {
		return err
	}
	sorted := slices.Sorted(slices.Values(want))
	fail := &Mismatch{Request: req, Want: []byte(bulks(sorted...) + " (in any order)"), Got: got, e: c.e}
	els, ok := splitBulks(got)
	if !ok {
		return fail
	}
	slices.Sort(els)
	if !slices.Equal(els, sorted) {
		return fail
	}
	return nil
}

// splitBulks reads an array of bulk strings, and nothing after it.
func splitBulks(b []byte) ([]string, bool) {
	els := respElements(b)
	if els == nil {
		return nil, false
	}
	var out []string
	for _, el := range els {
		if el == "" || el[0] != '$' || el == nullBulk {
			return nil, false
		}
		i := strings.IndexByte(el, '\n')
		out = append(out, el[i+1:len(el)-2])
	}
	return out, true
}

// fresh deletes key, which an earlier run may have left on a shared
// server, and returns it.
func (c *Conn) fresh(key string) string {
	c.CommandExpect(integer(0), "DEL", key)
	return key
}

// showRESPRequest shows a request as the words a user would type, when it
// is an array of bulk strings, else quoted.
func showRESPRequest(b []byte) string {
	// Commands one after another: each as words, separated by " ; ".
	r := bufio.NewReader(bytes.NewReader(b))
	var cmds []string
	for used := 0; used < len(b); {
		raw, err := resp.ReadRaw(r, nil, maxRESPReply)
		used += len(raw)
		if err != nil {
			cmds = nil
			break
		}
		args, ok := splitBulks(raw)
		if !ok || len(args) == 0 {
			cmds = nil
			break
		}
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = showWord(a)
		}
		if len(parts) > 8 {
			parts = append(parts[:8], fmt.Sprintf("... (%d arguments)", len(args)))
		}
		cmds = append(cmds, strings.Join(parts, " "))
	}
	if len(cmds) > 0 && len(cmds) <= 8 {
		return strings.Join(cmds, " ; ")
	}
	if len(b) > 120 {
		return strconv.Quote(string(b[:120])) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return strconv.Quote(string(b))
}

// respChecks are the ch23 stage's checks: the handshake, RESP3, and
// MULTI refused.
func respChecks(st *Stage, cfg *Config) []Check {
	return slices.Concat(respHandshakeChecks(), respMultiChecks(), respNotChecked23())
}

// respNotChecked23 says what the ch23 stage leaves out.
func respNotChecked23() []Check {
	return []Check{
		{
			Name: "not checked: what chapter 23 does not claim",
			Skip: "Redis's own commands and options (SET's, ZADD's, KEYS with a pattern, EXPIRE) are chapter 24's; " +
				"the book's commands keep the book's arities (ch23_handshake/README.md)",
		},
	}
}

// respCommandChecks are the ch24 stage's checks: Redis's command set.
func respCommandChecks(st *Stage, cfg *Config) []Check {
	return slices.Concat(respStringChecks()[1:], respExpiryChecks(), respZSetHashChecks(), respErrorChecks(), respKeysChecks(),
		respPipeliningChecks()[2:], respRESP3RangeChecks(), respNotChecked24())
}

// respRESP3RangeChecks are the checks of chapter 24's commands in RESP3.
func respRESP3RangeChecks() []Check {
	return []Check{
		{
			Name: "after HELLO 3, ZRANGE WITHSCORES gives [member, score] pairs",
			Hint: "RESP3: ZRANGE WITHSCORES is an array of pairs, each a member and its score as a double",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.hello(3, "%7", false); err != nil {
					return err
				}
				z := "conform:r3range"
				c.CommandExpect(integer(0), "DEL", z)
				return c.steps(
					ex(integer(2), "ZADD", z, "1.5", "a", "-inf", "b"),
					ex(array(array(bulk("b"), ",-inf\r\n"), array(bulk("a"), ",1.5\r\n")), "ZRANGE", z, "0", "-1", "WITHSCORES"),
					ex(bulks("b", "a"), "ZRANGE", z, "0", "-1"),
					ex(integer(1), "DEL", z),
				)
			}),
		},
	}
}

// respNotChecked24 says what the ch24 stage leaves out.
func respNotChecked24() []Check {
	return []Check{
		{
			Name: "not checked: what chapter 24 does not claim",
			Skip: "other databases than 0 (SELECT 1), SET's EXAT and PXAT, ZRANGE's REV and BYLEX, WATCH, " +
				"and Redis's other commands are not part of chapter 24 (ch24_redis_commands/README.md); its limits (512 KiB bulk strings, 1 MiB requests) are below Redis's",
		},
	}
}

// respStringChecks are the checks of PING, ECHO and inline commands, and of
// SET, GET, DEL and EXISTS with SET's options.
func respStringChecks() []Check {
	// The key of the check below that is only steps.
	k := "conform:setopt"
	return []Check{
		{
			Name: "PING and ECHO, as arrays of bulk strings and as inline commands",
			Hint: "a request is an array of bulk strings (*2\\r\\n$4\\r\\nECHO\\r\\n...) or an inline line of words, with Redis's quoting",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.steps(ex("+PONG\r\n", "PING"), ex(bulk("hi"), "PING", "hi"), ex(bulk("x"), "ECHO", "x"),
					ex(bulk(""), "ECHO", ""), ex(bulk("a\r\nb\x00"), "ECHO", "a\r\nb\x00"), ex(arity("echo"), "ECHO")); err != nil {
					return err
				}
				for _, in := range []struct{ req, want string }{
					{"PING\r\n", "+PONG\r\n"},
					{"ping hello\r\n", bulk("hello")},
					{"ECHO \"a b\"\r\n", bulk("a b")},
					{"ECHO 'c d'\r\n", bulk("c d")},
					{"ECHO \"a\\x41\\n\"\r\n", bulk("aA\n")},
					{"  ECHO   spaced  \r\n", bulk("spaced")},
				} {
					if err := c.RawExpect([]byte(in.req), in.want); err != nil {
						return err
					}
				}
				return nil
			}),
		},
		{
			Name: "SET, GET, DEL, EXISTS; command names in any case",
			Hint: respHint,
			Run: dialed(func(e *Env, c *Conn) error {
				c.CommandExpect(integer(0), "DEL", "conform:k", "conform:k2", "conform:empty")
				return c.steps(
					ex(nullBulk, "GET", "conform:k"),
					ex(okReply, "SET", "conform:k", "v"),
					ex(bulk("v"), "GET", "conform:k"),
					ex(okReply, "set", "conform:k", "v2"),
					ex(bulk("v2"), "gEt", "conform:k"),
					ex(nullBulk, "GET", "conform:K"),
					ex(okReply, "SET", "conform:empty", ""),
					ex(bulk(""), "GET", "conform:empty"),
					ex(okReply, "SET", "conform:k2", "bin\r\n\x00ary"),
					ex(bulk("bin\r\n\x00ary"), "GET", "conform:k2"),
					ex(integer(3), "EXISTS", "conform:k", "conform:k", "conform:empty"),
					ex(integer(2), "DEL", "conform:k", "conform:empty", "conform:absent"),
					ex(integer(0), "EXISTS", "conform:k"),
					ex(integer(1), "UNLINK", "conform:k2"),
					ex(nullBulk, "GET", "conform:k"),
				)
			}),
		},
		{
			Name: "SET's options NX, XX, EX, PX and KEEPTTL",
			Hint: "SET with NX or XX answers the null bulk string when it does not set; the last EX or PX given counts",
			Run: freshSteps([]string{k},
				ex(nullBulk, "SET", k, "v", "XX"),
				ex(nullBulk, "GET", k),
				ex(okReply, "SET", k, "v", "NX"),
				ex(nullBulk, "SET", k, "w", "NX"),
				ex(bulk("v"), "GET", k),
				ex(okReply, "SET", k, "w", "XX"),
				ex(bulk("w"), "GET", k),
				ex(okReply, "SET", k, "v", "EX", "100"),
				intIn(98, 100, "TTL", k),
				ex(okReply, "SET", k, "v", "KEEPTTL"),
				intIn(98, 100, "TTL", k),
				ex(okReply, "SET", k, "v", "PX", "200000"),
				intIn(190000, 200000, "PTTL", k),
				ex(okReply, "SET", k, "v"),
				ex(integer(-1), "TTL", k),
				ex(okReply, "SET", k, "v", "EX", "1", "EX", "100"),
				because("the last EX counts", intIn(98, 100, "TTL", k)),
				ex(integer(1), "DEL", k),
			),
		},
	}
}

// respExpiryChecks are the checks of EXPIRE and its kin, and of keys that
// expire by themselves.
func respExpiryChecks() []Check {
	// The key of the check below that is only steps.
	k := "conform:ttl"
	return []Check{
		{
			Name: "EXPIRE, PEXPIRE, TTL, PTTL, PERSIST",
			Hint: "TTL answers -2 for no key, -1 for no TTL; an expire time not in the future deletes the key",
			Run: freshSteps([]string{k},
				ex(integer(-2), "TTL", k),
				ex(integer(-2), "PTTL", k),
				ex(integer(0), "EXPIRE", k, "10"),
				ex(okReply, "SET", k, "v"),
				ex(integer(-1), "TTL", k),
				ex(integer(0), "PERSIST", k),
				ex(integer(1), "EXPIRE", k, "100"),
				intIn(98, 100, "TTL", k),
				ex(integer(1), "PEXPIRE", k, "50000"),
				intIn(45000, 50000, "PTTL", k),
				ex(integer(1), "PERSIST", k),
				ex(integer(-1), "PTTL", k),
				ex(integer(1), "EXPIRE", k, "-1"),
				ex(integer(0), "EXISTS", k),
				ex(okReply, "SET", k, "v"),
				ex(integer(1), "PEXPIRE", k, "0"),
				ex(integer(-2), "TTL", k),
			),
		},
		{
			Name:    "a key expires by itself, with nobody touching it",
			Hint:    "keys with a TTL are removed when it passes, not only when read",
			Fresh:   true,
			Timeout: 30 * time.Second,
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.steps(ex(integer(0), "DBSIZE"), ex(okReply, "SET", "conform:expiring", "v", "PX", "200"),
					ex(integer(1), "DBSIZE")); err != nil {
					return err
				}
				// DBSIZE touches no key: poll it (up to 10 s) until the
				// server has removed the key on its own.
				deadline := time.Now().Add(10 * time.Second)
				for {
					n, err := c.CommandInt("DBSIZE")
					if err != nil || n == 0 {
						return err
					}
					if time.Now().After(deadline) {
						return &Mismatch{Request: command("DBSIZE"), Want: []byte(integer(0)), Got: []byte(integer(n)), e: e}
					}
					time.Sleep(100 * time.Millisecond)
				}
			}),
		},
	}
}

// respZSetHashChecks are the checks of the sorted-set and hash commands.
func respZSetHashChecks() []Check {
	// The keys of the checks below that are only steps.
	z := "conform:z"
	h := "conform:h"
	return []Check{
		{
			Name: "sorted sets: ZADD, ZSCORE, ZCARD, ZREM, ZRANGE by rank and BYSCORE, LIMIT, WITHSCORES",
			Hint: "scores are bulk strings in RESP2; a sorted set emptied by ZREM is deleted",
			Run: freshSteps([]string{z},
				ex(integer(3), "ZADD", z, "1", "a", "2", "b", "3", "c"),
				ex(integer(0), "ZADD", z, "1.5", "a"),
				ex(bulk("1.5"), "ZSCORE", z, "a"),
				ex(nullBulk, "ZSCORE", z, "x"),
				ex(integer(3), "ZCARD", z),
				ex(bulks("a", "b", "c"), "ZRANGE", z, "0", "-1"),
				ex(bulks("b", "c"), "ZRANGE", z, "1", "2"),
				ex(bulks("b", "2", "c", "3"), "ZRANGE", z, "-2", "-1", "WITHSCORES"),
				ex(bulks("b", "c"), "ZRANGE", z, "(1.5", "+inf", "BYSCORE"),
				ex(bulks("c"), "ZRANGE", z, "(1", "3", "BYSCORE", "LIMIT", "2", "5"),
				ex(bulks("a", "1.5", "b", "2"), "ZRANGE", z, "-inf", "2", "BYSCORE", "WITHSCORES"),
				ex(bulks(), "ZRANGE", z, "5", "10"),
				ex(integer(1), "ZADD", z, "-inf", "m"),
				ex(bulk("-inf"), "ZSCORE", z, "m"),
				ex(integer(2), "ZREM", z, "a", "m", "x"),
				ex(integer(0), "ZREM", "conform:nozset", "a"),
				ex(integer(0), "ZCARD", "conform:nozset"),
				ex(integer(2), "ZREM", z, "b", "c"),
				ex(integer(0), "EXISTS", z),
			),
		},
		{
			Name: "hashes: HSET, HGET, HDEL, HLEN, HEXISTS, HGETALL",
			Hint: "HSET answers the number of fields added; a hash emptied by HDEL is deleted",
			Run: freshSteps([]string{h},
				ex(integer(2), "HSET", h, "a", "1", "b", "2"),
				ex(integer(0), "HSET", h, "a", "3"),
				ex(bulk("3"), "HGET", h, "a"),
				ex(nullBulk, "HGET", h, "x"),
				ex(integer(2), "HLEN", h),
				ex(integer(1), "HEXISTS", h, "b"),
				ex(integer(0), "HEXISTS", h, "x"),
				ex(integer(1), "HDEL", h, "a", "x"),
				ex(bulks("b", "2"), "HGETALL", h),
				ex(bulks(), "HGETALL", "conform:nohash"),
				ex(integer(1), "HDEL", h, "b"),
				ex(integer(0), "EXISTS", h),
			),
		},
	}
}

// respErrorChecks are the checks of errors in Redis's words.
func respErrorChecks() []Check {
	return []Check{
		{
			Name: "errors in Redis's words; a command that fails changes nothing",
			Hint: "unknown command, wrong number of arguments, WRONGTYPE, not an integer, not a valid float, syntax error: each as Redis words it",
			Run: dialed(func(e *Env, c *Conn) error {
				k, z := "conform:err", "conform:errz"
				c.CommandExpect(integer(0), "DEL", k, z)
				return c.steps(
					ex("-ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b c' \r\n", "NOSUCH", "a", "b c"),
					ex("-ERR unknown command 'nosuch', with args beginning with: \r\n", "nosuch"),
					ex(arity("get"), "GET"),
					ex(arity("get"), "GET", "a", "b"),
					ex(arity("set"), "SET", k),
					ex(arity("zadd"), "ZADD", z, "1"),
					ex(arity("hget"), "HGET", k),
					ex(okReply, "SET", k, "v"),
					ex(wrongType, "ZADD", k, "1", "a"),
					ex(wrongType, "ZSCORE", k, "a"),
					ex(wrongType, "HGET", k, "f"),
					ex(wrongType, "HSET", k, "f", "v"),
					ex(syntaxErr, "SET", k, "v2", "BOGUS"),
					ex(syntaxErr, "SET", k, "v2", "NX", "XX"),
					ex(notInt, "SET", k, "v2", "EX", "soon"),
					ex("-ERR invalid expire time in 'set' command\r\n", "SET", k, "v2", "EX", "0"),
					ex(notInt, "EXPIRE", k, "soon"),
					ex(notInt, "EXPIRE", k, "+5"),
					ex(notInt, "EXPIRE", k, "005"),
					ex(notInt, "EXPIRE", k, "-0"),
					ex("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", k, "9223372036854775807"),
					ex("-ERR invalid expire time in 'pexpire' command\r\n", "PEXPIRE", k, "9223372036854775807"),
					ex(integer(-1), "TTL", k),
					ex(bulk("v"), "GET", k),
					ex(integer(1), "ZADD", z, "1", "a"),
					ex(wrongType, "GET", z),
					ex(notFloat, "ZADD", z, "abc", "b"),
					ex(notFloat, "ZADD", z, "nan", "b"),
					ex(notFloat, "ZADD", z, "1e400", "b"),
					ex(integer(1), "ZCARD", z),
					ex(integer(2), "DEL", k, z),
				)
			}),
		},
	}
}

// respKeysChecks are the checks of KEYS, DBSIZE and FLUSHALL.
func respKeysChecks() []Check {
	return []Check{
		{
			Name:  "KEYS with glob patterns, DBSIZE, FLUSHALL",
			Hint:  "KEYS matches Redis's globs (* ? [abc] [^a] [a-z] \\x); the order of its reply is not fixed",
			Fresh: true,
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.steps(ex(integer(0), "DBSIZE"), ex(bulks(), "KEYS", "*")); err != nil {
					return err
				}
				names := []string{"conform:a", "conform:b", "conform:ab", "conform:*", "other"}
				for _, n := range names {
					if err := c.CommandExpect(okReply, "SET", n, "v"); err != nil {
						return err
					}
				}
				for _, q := range []struct {
					pat  string
					want []string
				}{
					{"*", names},
					{"conform:?", []string{"conform:a", "conform:b", "conform:*"}},
					{"conform:[a]*", []string{"conform:a", "conform:ab"}},
					{"conform:[^a]", []string{"conform:b", "conform:*"}},
					{"conform:[a-b]", []string{"conform:a", "conform:b"}},
					{`conform:\*`, []string{"conform:*"}},
					{"nomatch*", nil},
				} {
					if err := c.CommandUnordered(q.want, "KEYS", q.pat); err != nil {
						return err
					}
				}
				return c.steps(ex(integer(5), "DBSIZE"), ex(okReply, "FLUSHALL"), ex(integer(0), "DBSIZE"), ex(bulks(), "KEYS", "*"))
			}),
		},
	}
}

// hello sends HELLO version and checks its reply: 14 elements (head, an
// array *14 or a map %7, says how they come), the protocol's version as
// proto's value and, if named, the names of the other fields in their
// places.
func (c *Conn) hello(version int64, head string, named bool) error {
	req, got, err := c.CommandReply("HELLO", strconv.FormatInt(version, 10))
	if err != nil {
		return err
	}
	els := respElements(got)
	ok := len(els) == 14 && bytes.HasPrefix(got, []byte(head+"\r\n")) && els[4] == bulk("proto") && els[5] == integer(version)
	if ok && named {
		ok = els[0] == bulk("server") && els[6] == bulk("id") && els[8] == bulk("mode") && els[10] == bulk("role") && els[12] == bulk("modules")
	}
	if !ok {
		want := fmt.Sprintf("%s server <name> version <v> proto :%d id :<n> mode <m> role <r> modules <array>", head, version)
		return &Mismatch{Request: req, Want: []byte(want), Got: got, e: c.e}
	}
	return nil
}

// respHandshakeChecks are the checks of what clients send on connecting,
// and of HELLO's switch to RESP3.
func respHandshakeChecks() []Check {
	return []Check{
		{
			Name: "what clients send on connecting: HELLO, CLIENT SETNAME/GETNAME, SELECT 0, CONFIG GET, COMMAND COUNT, QUIT",
			Hint: "HELLO 2 answers an array of 14 (server, version, proto, id, mode, role, modules); an unsupported version is NOPROTO",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.hello(2, "*14", true); err != nil {
					return err
				}
				if err := c.steps(
					ex("-NOPROTO unsupported protocol version\r\n", "HELLO", "4"),
					ex(okReply, "CLIENT", "SETNAME", "conform"),
					ex(bulk("conform"), "CLIENT", "GETNAME"),
					ex("-ERR Client names cannot contain spaces, newlines or special characters.\r\n", "CLIENT", "SETNAME", "a b"),
					ex(bulk("conform"), "CLIENT", "GETNAME"),
					ex(okReply, "SELECT", "0"),
				); err != nil {
					return err
				}
				req, got, err := c.CommandReply("CONFIG", "GET", "appendonly")
				if err != nil {
					return err
				}
				if els := respElements(got); len(els) != 2 || els[0] != bulk("appendonly") {
					return &Mismatch{Request: req, Want: []byte(`*2 appendonly <value>`), Got: got, e: e}
				}
				n, err := c.CommandInt("COMMAND", "COUNT")
				if err != nil {
					return err
				}
				if req, got, err = c.CommandReply("COMMAND"); err != nil {
					return err
				}
				if els := respElements(got); int64(len(els)) != n {
					return &Mismatch{Request: req, Want: []byte(fmt.Sprintf("an array of %d command entries, as COMMAND COUNT says", n)), Got: got, e: e}
				}
				if err := c.CommandExpect(okReply, "QUIT"); err != nil {
					return err
				}
				return c.ExpectClosed("after QUIT")
			}),
		},
		{
			Name: "HELLO 3 switches the connection to RESP3: null, doubles, maps; HELLO 2 back",
			Hint: "RESP3: _ for null, ,1.5 for a double, %n for a map",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.hello(3, "%7", false); err != nil {
					return err
				}
				z, h := "conform:r3z", "conform:r3h"
				c.CommandExpect(integer(0), "DEL", z)
				c.CommandExpect(integer(0), "DEL", h)
				if err := c.steps(
					ex("_\r\n", "GET", "conform:absent"),
					ex(integer(1), "ZADD", z, "1.5", "a"),
					ex(",1.5\r\n", "ZSCORE", z, "a"),
					ex("_\r\n", "ZSCORE", z, "x"),
					ex(integer(1), "ZADD", z, "-inf", "b"),
					ex(",-inf\r\n", "ZSCORE", z, "b"),
					ex(integer(1), "HSET", h, "f", "v"),
					ex("%1\r\n"+bulk("f")+bulk("v"), "HGETALL", h),
					ex("%0\r\n", "HGETALL", "conform:absent"),
				); err != nil {
					return err
				}
				req, got, err := c.CommandReply("HELLO", "2")
				if err != nil {
					return err
				}
				if !bytes.HasPrefix(got, []byte("*14\r\n")) {
					return &Mismatch{Request: req, Want: []byte("*14 ... (HELLO 2's array)"), Got: got, e: e}
				}
				return c.steps(
					ex(nullBulk, "GET", "conform:absent"),
					ex(bulk("1.5"), "ZSCORE", z, "a"),
					ex(integer(1), "DEL", z),
					ex(integer(1), "DEL", h),
				)
			}),
		},
	}
}

// respMultiChecks are the checks of chapter 23's MULTI and EXEC.
func respMultiChecks() []Check {
	return []Check{
		{
			Name: "transactions: commands after MULTI change nothing before EXEC, and nothing at all if the server refuses them",
			Hint: "clients' pipelines often send MULTI ... EXEC; a server without transactions must refuse every command up to EXEC or DISCARD (EXEC then answers -EXECABORT, as Redis does after a command it could not queue), not run them",
			Run: dialed(func(e *Env, c *Conn) error {
				k := c.fresh("conform:tx")
				for _, end := range []string{"DISCARD", "EXEC"} {
					batch := [][]string{{"MULTI"}, {"SET", k, "v"}, {end}, {"GET", k}}
					var all []byte
					for _, b := range batch {
						all = append(all, command(b...)...)
					}
					if err := c.Send(all); err != nil {
						return err
					}
					var got []string
					for _, b := range batch {
						c.last = command(b...)
						r, err := c.ReadRESP()
						if err != nil {
							return err
						}
						got = append(got, string(r))
					}
					runs := got[0] == okReply && got[1] == "+QUEUED\r\n"
					refused := got[0][0] == '-' && got[1][0] == '-' && got[2][0] == '-'
					// MULTI accepted but the command refused: Redis then
					// discards the whole transaction at EXEC.
					aborted := got[0] == okReply && got[1][0] == '-'
					var want []string
					switch {
					case aborted && end == "DISCARD":
						want = []string{okReply, got[1], okReply, nullBulk}
					case aborted:
						want = []string{okReply, got[1], got[2], nullBulk}
						if !strings.HasPrefix(got[2], "-EXECABORT ") {
							want[2] = "-EXECABORT Transaction discarded because of previous errors.\r\n"
						}
					case runs && end == "DISCARD":
						want = []string{okReply, "+QUEUED\r\n", okReply, nullBulk}
					case runs:
						want = []string{okReply, "+QUEUED\r\n", array(okReply), bulk("v")}
					case refused:
						want = []string{got[0], got[1], got[2], nullBulk}
					default:
						return fmt.Errorf("request:  %s\nexpected: +OK, +QUEUED (MULTI queues the command), +OK and an error (the command refused, and EXEC aborted), or three errors (MULTI refused, and with it everything up to %s)\nreceived: %s",
							showRESPRequest(all), end, quoteClip([]byte(strings.Join(got, ""))))
					}
					if !slices.Equal(got, want) {
						return &Mismatch{Request: all, Want: []byte(strings.Join(want, "")), Got: []byte(strings.Join(got, "")), e: e}
					}
					c.CommandExpect(integer(0), "DEL", k)
				}
				return nil
			}),
		},
	}
}

// respFramingChecks are the checks of how requests are framed: protocol
// errors, empty lines and arrays, requests split across writes.
func respFramingChecks() []Check {
	return []Check{
		{
			Name: "protocol errors answer Redis's error and close the connection, after answering the requests before them",
			Hint: "after a request that does not parse the server cannot tell where the next one starts: answer -ERR Protocol error: ... and close",
			Run: func(e *Env) error {
				by, err := e.Dial()
				if err != nil {
					return err
				}
				if err := by.CommandExpect(okReply, "SET", "conform:pe", "v"); err != nil {
					return err
				}
				for _, pe := range []struct{ req, want string }{
					{"*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
					{"*1\r\n:1\r\n", "-ERR Protocol error: expected '$', got ':'\r\n"},
					{"*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
					{"*1\r\n$abc\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
					{"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
					{"ECHO \"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
					{"ECHO 'it''s'\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
				} {
					for _, prefix := range []bool{false, true} {
						c, err := e.Dial()
						if err != nil {
							return err
						}
						req := []byte(pe.req)
						if prefix {
							req = append(command("GET", "conform:pe"), req...)
						}
						if err := c.Send(req); err != nil {
							return err
						}
						if prefix {
							if err := c.ExpectRESP(req, bulk("v")); err != nil {
								return err
							}
						}
						if err := c.ExpectRESP(req, pe.want); err != nil {
							return err
						}
						if err := c.ExpectClosed("after " + showRESPRequest(req)); err != nil {
							return err
						}
						if err := by.CommandExpect(bulk("v"), "GET", "conform:pe"); err != nil {
							return fmt.Errorf("another connection, after %s: %v", showRESPRequest(req), err)
						}
					}
				}
				return by.CommandExpect(integer(1), "DEL", "conform:pe")
			},
		},
		{
			Name: "empty lines and empty arrays are skipped; a client hanging up inside a request is dropped",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.RawExpect([]byte("\r\n\r\n*0\r\n*-1\r\n"+string(command("PING"))), "+PONG\r\n"); err != nil {
					return err
				}
				for _, cut := range []string{"*2\r\n$4\r\nECHO\r\n$5\r\nab", "*3\r\n", "ECHO half"} {
					h, err := e.Dial()
					if err != nil {
						return err
					}
					if err := h.Send([]byte(cut)); err != nil {
						return err
					}
					h.Close()
				}
				return c.CommandExpect("+PONG\r\n", "PING")
			}),
		},
		{
			Name: "a request written byte by byte, and requests split at every byte across two writes",
			Hint: "a request may arrive over many reads; keep what has arrived until it is whole",
			Run: dialed(func(e *Env, c *Conn) error {
				req := command("SET", "conform:split", "one byte at a time")
				if err := c.SendBytewise(req); err != nil {
					return err
				}
				if err := c.ExpectRESP(req, okReply); err != nil {
					return err
				}
				for _, req := range [][]byte{command("ECHO", "split\r\nhere"), []byte("ECHO \"inline split\"\r\n")} {
					for i := 1; i < len(req); i++ {
						if err := c.Send(req[:i]); err != nil {
							return err
						}
						time.Sleep(time.Millisecond) // most often two reads
						if err := c.Send(req[i:]); err != nil {
							return err
						}
						want := bulk("split\r\nhere")
						if req[0] != '*' {
							want = bulk("inline split")
						}
						if err := c.ExpectRESP(req, want); err != nil {
							return fmt.Errorf("split after byte %d: %v", i, err)
						}
					}
				}
				return c.CommandExpect(integer(1), "DEL", "conform:split")
			}),
		},
	}
}

// respPipeliningChecks are the checks of pipelined and big requests.
func respPipeliningChecks() []Check {
	return []Check{
		{
			Name: "pipelining: 1000 commands, arrays and inline mixed, in one write are answered in order",
			Hint: "one read may bring many requests: answer every whole one, in order",
			Run: dialed(func(e *Env, c *Conn) error {
				var all []byte
				var reqs [][]byte
				var wants []string
				for i := range 1000 {
					var req []byte
					var want string
					k := fmt.Sprintf("conform:p%d", (i/4)%10)
					switch i % 4 {
					case 0:
						req, want = command("SET", k, strconv.Itoa(i)), okReply
					case 1:
						req, want = command("GET", k), bulk(strconv.Itoa(i-1))
					case 2:
						req, want = []byte("ECHO "+strconv.Itoa(i)+"\r\n"), bulk(strconv.Itoa(i))
					default:
						req, want = command("NOPE"), "-ERR unknown command 'NOPE', with args beginning with: \r\n"
					}
					all = append(all, req...)
					reqs, wants = append(reqs, req), append(wants, want)
				}
				if err := c.Send(all); err != nil {
					return err
				}
				for i := range reqs {
					if err := c.ExpectRESP(reqs[i], wants[i]); err != nil {
						return fmt.Errorf("reply %d of %d: %v", i+1, len(reqs), err)
					}
				}
				// One key a DEL: chapter 21's DEL is the book's, of one key.
				for i := range 10 {
					if _, err := c.CommandInt("DEL", fmt.Sprintf("conform:p%d", i)); err != nil {
						return err
					}
				}
				return nil
			}),
		},
		{
			Name:    "pipelining: 2000 GETs of a 4 KB value, read late, are all answered (writes that block)",
			Hint:    "when a reply cannot be written at once, keep it and go on when the socket is writable; do not drop or reorder",
			Timeout: 120 * time.Second,
			Run: dialed(func(e *Env, c *Conn) error {
				val := strings.Repeat("p", 4000)
				if err := c.CommandExpect(okReply, "SET", "conform:big", val); err != nil {
					return err
				}
				const count = 2000
				req := command("GET", "conform:big")
				written := c.writeRepeated(req, count)
				for i := range count {
					if err := c.ExpectRESP(req, bulk(val)); err != nil {
						return fmt.Errorf("reply %d of %d: %v", i+1, count, err)
					}
				}
				if err := <-written; err != nil {
					return err
				}
				return c.CommandExpect(integer(1), "DEL", "conform:big")
			}),
		},
		{
			Name: "big requests: a 1 MiB value, a command of 20,003 arguments, an inline line of 16 KiB",
			Hint: "a request may be far larger than one read; grow the buffer until it is whole (Redis takes bulk strings of up to 512 MB, and any number of arguments)",
			Run: dialed(func(e *Env, c *Conn) error {
				val := strings.Repeat("0123456789abcdef", 64<<10)
				if err := c.steps(ex(okReply, "SET", "conform:huge", val), ex(bulk(val), "GET", "conform:huge")); err != nil {
					return err
				}
				args := []string{"EXISTS"}
				for range 20_002 {
					args = append(args, "conform:huge")
				}
				if err := c.CommandExpect(integer(20_002), args...); err != nil {
					return err
				}
				word := strings.Repeat("w", 16<<10)
				if err := c.RawExpect([]byte("ECHO "+word+"\r\n"), bulk(word)); err != nil {
					return err
				}
				return c.CommandExpect(integer(1), "DEL", "conform:huge")
			}),
		},
	}
}

// respElements splits an aggregate reply into its elements' bytes (a
// map's keys and values alternate). It returns nil unless b is exactly one
// array or map.
func respElements(b []byte) []string {
	if len(b) == 0 || (b[0] != '*' && b[0] != '%') {
		return nil
	}
	r := bufio.NewReader(bytes.NewReader(b))
	line, err := r.ReadString('\n')
	if err != nil || len(line) < 3 || line[len(line)-2] != '\r' {
		return nil
	}
	n, err := strconv.Atoi(line[1 : len(line)-2])
	if err != nil || n < 0 {
		return nil
	}
	if b[0] == '%' {
		n *= 2
	}
	out := []string{}
	for range n {
		el, err := resp.ReadRaw(r, nil, maxRESPReply)
		if err != nil {
			return nil
		}
		out = append(out, string(el))
	}
	if r.Buffered() > 0 {
		return nil
	}
	return out
}
