package server

import (
	"math"
	"sort"
	"strings"

	"example.com/byor/ch18_scan_multi/cnum"
)

// respCommand is one command of the RESP listener: its name, its arity as
// Redis counts it (the name included; -n means at least n), where its keys
// are (for COMMAND: the first, the last, counting from the end if
// negative, and the step; 0 for none), and the function that runs it.
//
// The functions take the request's arguments, as slices of the read
// buffer, and write the reply through w. Those with Redis's semantics of
// the book's commands call the book's functions with w as their
// replyWriter (doGet, doZScore, the hash commands); the others call the
// key space's functions themselves (lookupEntry, entrySetTTL, ...).
type respCommand struct {
	name              string
	arity             int
	first, last, step int
	fn                func(st *respState, w *respWriter, args [][]byte)
}

// respCommands maps Redis's command names, in lower case, to this server's
// commands, which live in files named for what they work on:
// resp_handshake.go, resp_keys.go, resp_strings.go, resp_zset.go,
// resp_hash.go and resp_info.go.
var respCommands = map[string]*respCommand{}

func init() {
	for _, c := range []respCommand{
		// What clients and tools send when they connect.
		{"ping", -1, 0, 0, 0, respPing},
		{"echo", 2, 0, 0, 0, respEcho},
		{"hello", -1, 0, 0, 0, respHello},
		{"auth", -2, 0, 0, 0, respAuth},
		{"client", -2, 0, 0, 0, respClient},
		{"command", -1, 0, 0, 0, respCommandCmd},
		{"select", 2, 0, 0, 0, respSelect},
		{"quit", -1, 0, 0, 0, respQuit},
		{"config", -2, 0, 0, 0, respConfig},
		{"multi", 1, 0, 0, 0, respMulti},
		{"exec", 1, 0, 0, 0, respExec},
		{"discard", 1, 0, 0, 0, respDiscard},
		{"info", -1, 0, 0, 0, respInfo},
		{"watch", -2, 1, -1, 1, respWatch},
		{"unwatch", 1, 0, 0, 0, respUnwatch},
		// The key space.
		{"dbsize", 1, 0, 0, 0, respDBSize},
		{"flushall", -1, 0, 0, 0, respFlushAll},
		{"flushdb", -1, 0, 0, 0, respFlushAll},
		{"exists", -2, 1, -1, 1, respExists},
		{"del", -2, 1, -1, 1, respDel},
		{"unlink", -2, 1, -1, 1, respDel},
		{"keys", 2, 0, 0, 0, respKeys},
		{"scan", -2, 0, 0, 0, respScan},
		{"expire", -3, 1, 1, 1, respExpire},
		{"pexpire", -3, 1, 1, 1, respExpire},
		{"ttl", 2, 1, 1, 1, respTTL},
		{"pttl", 2, 1, 1, 1, respTTL},
		{"persist", 2, 1, 1, 1, respPersist},
		{"type", 2, 1, 1, 1, respType},
		// Strings.
		{"get", 2, 1, 1, 1, respGet},
		{"set", -3, 1, 1, 1, respSet},
		{"incr", 2, 1, 1, 1, respIncr},
		{"decr", 2, 1, 1, 1, respIncr},
		{"incrby", 3, 1, 1, 1, respIncr},
		{"decrby", 3, 1, 1, 1, respIncr},
		{"mget", -2, 1, -1, 1, respMGet},
		{"mset", -3, 1, -1, 2, respMSet},
		{"strlen", 2, 1, 1, 1, respStrlen},
		{"append", 3, 1, 1, 1, respAppend},
		// Sorted sets.
		{"zadd", -4, 1, 1, 1, respZAdd},
		{"zrem", -3, 1, 1, 1, respZRem},
		{"zscore", 3, 1, 1, 1, respZScore},
		{"zcard", 2, 1, 1, 1, respZCard},
		{"zrange", -4, 1, 1, 1, respZRange},
		{"zrevrange", -4, 1, 1, 1, respZRange},
		{"zrank", 3, 1, 1, 1, respZRank},
		{"zrevrank", 3, 1, 1, 1, respZRank},
		{"zcount", 4, 1, 1, 1, respZCount},
		{"zincrby", 4, 1, 1, 1, respZIncrBy},
		// Hashes and their fields' TTLs (chapter 15).
		{"hset", -4, 1, 1, 1, respHSet},
		{"hget", 3, 1, 1, 1, respHash},
		{"hdel", -3, 1, 1, 1, respHash},
		{"hlen", 2, 1, 1, 1, respHash},
		{"hexists", 3, 1, 1, 1, respHash},
		{"hgetall", 2, 1, 1, 1, respHGetAll},
		{"hmget", -3, 1, 1, 1, respHMGet},
		{"hincrby", 4, 1, 1, 1, respHIncrBy},
		{"hkeys", 2, 1, 1, 1, respHKeysVals},
		{"hvals", 2, 1, 1, 1, respHKeysVals},
		{"hexpire", -6, 1, 1, 1, respHash},
		{"hpexpire", -6, 1, 1, 1, respHash},
		{"hexpireat", -6, 1, 1, 1, respHash},
		{"hpexpireat", -6, 1, 1, 1, respHash},
		{"hpersist", -5, 1, 1, 1, respHash},
		{"httl", -5, 1, 1, 1, respHash},
		{"hpttl", -5, 1, 1, 1, respHash},
		{"hexpiretime", -5, 1, 1, 1, respHash},
		{"hpexpiretime", -5, 1, 1, 1, respHash},
		{"hsetex", -6, 1, 1, 1, respHash},
		{"hgetex", -5, 1, 1, 1, respHash},
	} {
		respCommands[c.name] = &c
	}
}

// respCommandNames returns the names of the commands, sorted.
func respCommandNames() []string {
	names := make([]string, 0, len(respCommands))
	for name := range respCommands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// respLookup finds the command named name, in any case, or returns nil.
func respLookup(name []byte) *respCommand {
	var lower [16]byte // command names are short: no allocation
	if len(name) > len(lower) {
		return nil
	}
	for i, c := range name {
		lower[i] = asciiLower(c)
	}
	return respCommands[string(lower[:len(name)])]
}

// respDo runs one request of a RESP connection, writing its reply to the
// connection's respWriter.
func respDo(conn *conn, st *respState, args [][]byte) {
	w := &st.w
	c := respLookup(args[0])
	switch {
	case c == nil:
		w.err(unknownCommand(args))
		st.multiFailed()
	case c.arity > 0 && len(args) != c.arity || c.arity < 0 && len(args) < -c.arity:
		if c.name == "exec" {
			respExecAbort(st, w, errArity(c.name)[len("ERR "):]) // as Redis
			break
		}
		w.err(errArity(c.name))
		st.multiFailed()
	case st.inMulti && c.name != "exec" && c.name != "discard" && c.name != "multi" && c.name != "quit" && c.name != "watch":
		// Inside MULTI, commands are queued for EXEC (see resp_multi.go);
		// those that end or nest a transaction, and QUIT, run now.
		st.queueCommand(w, c, args)
	default:
		c.fn(st, w, args)
		if c.name == "quit" {
			stopReading(conn) // once the OK is sent
		}
	}
}

// errArity is Redis's error for a command given too few or too many
// arguments.
func errArity(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// unknownCommand is Redis's error for a command it does not have, quoting
// the first arguments (up to about 128 bytes of them).
func unknownCommand(args [][]byte) string {
	var b strings.Builder
	b.WriteString("ERR unknown command '")
	b.Write(args[0][:min(len(args[0]), 128)])
	b.WriteString("', with args beginning with: ")
	quoted := 0
	for _, a := range args[1:] {
		if quoted >= 128 {
			break
		}
		a = a[:min(len(a), 128-quoted)]
		b.WriteString("'")
		b.Write(a)
		b.WriteString("' ")
		quoted += len(a) + 3
	}
	return b.String()
}

// respInt parses an integer argument as Redis does (string2ll): an
// optional minus sign and decimal digits, nothing else, no leading zero
// (but "0" itself), no "-0", and within int64. So " 1", "+5", "005", "-0"
// and "" are not integers, where the book's strtoll takes them all.
func respInt(b []byte) (int64, bool) {
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true // -v wraps to the right int64, MinInt64 too
	case !neg && v <= math.MaxInt64:
		return int64(v), true
	}
	return 0, false
}

// respFloat parses a float argument as Redis does (getDoubleFromObject):
// C's strtod must take the whole argument, with no white space first, and
// the result must not be NaN, nor overflow to an infinity or underflow to
// zero. So "0x10" (16), "inf" and "1e-310" are numbers, and " 1", "1e400"
// and "1e-400" are not.
func respFloat(b []byte) (float64, bool) {
	s := string(b)
	f, n := cnum.Strtod(s)
	if len(s) == 0 || n != len(s) || isSpaceC(s[0]) || math.IsNaN(f) {
		return 0, false
	}
	if math.IsInf(f, 0) && asciiLower(s[len(s)-1]) != 'f' && asciiLower(s[len(s)-1]) != 'y' {
		return 0, false // overflow, not "inf" or "infinity": strtod's ERANGE
	}
	if f == 0 && !zeroMantissa(s) {
		return 0, false // underflow to zero: strtod's ERANGE
	}
	return f, true
}

// isSpaceC is C's isspace in the C locale.
func isSpaceC(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// zeroMantissa reports whether the number strtod read from s is written
// as zero (every digit before any exponent is 0), so a result of zero is
// exact and not an underflow.
func zeroMantissa(s string) bool {
	s = strings.TrimLeft(s, "+-")
	hex := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	if hex {
		s = s[2:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !hex && (c == 'e' || c == 'E'), hex && (c == 'p' || c == 'P'):
			return true
		case c == '.' || c == '0':
		default:
			return false
		}
	}
	return true
}

// respBound parses a ZRANGE BYSCORE bound as Redis does (zslParseRange):
// "(" first makes it exclusive, and the rest goes to strtod, which must
// use all of it (up to a NUL) and not give NaN. Unlike a score, white
// space first, an infinity by overflow and even nothing at all (0) pass.
func respBound(b []byte) (f float64, exclusive bool, ok bool) {
	s := string(b)
	if exclusive = strings.HasPrefix(s, "("); exclusive {
		s = s[1:]
	}
	f, n := cnum.Strtod(s)
	return f, exclusive, (n == len(s) || s[n] == 0) && !math.IsNaN(f)
}
