package server

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"example.com/byor/ch17_resp/proto"
	"example.com/byor/ch17_resp/resp"
	"example.com/byor/ch17_resp/zset"
)

// respCommand is one command of the RESP listener: its arity as Redis
// counts it (the command name included; -n means at least n), and the
// function that appends its reply.
type respCommand struct {
	arity int
	fn    func(st *respState, args [][]byte, out []byte) []byte
}

// respCommands maps Redis's command names (lower case) onto this server's
// commands. Where the book's command has Redis's semantics the request is
// passed to it as it is (see book); where they differ (SET replies OK and
// drops a TTL, DEL takes many keys, ZRANGE instead of zquery) a small
// function adapts it, still running the book's code for the work.
var respCommands map[string]respCommand

func init() {
	passThrough := func(arity int, asMap bool) respCommand {
		return respCommand{arity, func(st *respState, args [][]byte, out []byte) []byte {
			return st.book(out, asMap, args...)
		}}
	}
	respCommands = map[string]respCommand{
		// What clients and tools send when they connect.
		"ping":    {-1, respPing},
		"echo":    {2, func(st *respState, args [][]byte, out []byte) []byte { return resp.AppendBulk(out, args[1]) }},
		"hello":   {-1, respHello},
		"client":  {-2, respClient},
		"command": {-1, respCommandCmd},
		"select":  {2, respSelect},
		"quit":    {-1, func(st *respState, args [][]byte, out []byte) []byte { return resp.AppendSimple(out, "OK") }},
		"config":  {-2, respConfig},
		// The key space.
		"dbsize": {1, func(st *respState, args [][]byte, out []byte) []byte {
			return resp.AppendInt(out, int64(gData.db.Len()))
		}},
		"flushall": {-1, respFlushAll},
		"flushdb":  {-1, respFlushAll},
		"exists":   {-2, respExists},
		"del":      {-2, respDel},
		"unlink":   {-2, respDel},
		"keys":     {2, respKeys},
		"get":      passThrough(2, false),
		"set":      {-3, respSet},
		"pexpire":  {-3, respExpire},
		"expire":   {-3, respExpire},
		"pttl":     passThrough(2, false),
		"ttl":      {2, respTTL},
		"persist":  {2, respPersist},
		// Sorted sets.
		"zadd":   {-4, respZAdd},
		"zrem":   {-3, respZRem},
		"zscore": passThrough(3, false),
		"zcard":  {2, respZCard},
		"zrange": {-4, respZRange},
		// Hashes and their fields' TTLs (chapter 15): already Redis's.
		"hset":         {-4, respHSet},
		"hget":         passThrough(3, false),
		"hdel":         passThrough(-3, false),
		"hlen":         passThrough(2, false),
		"hexists":      passThrough(3, false),
		"hgetall":      passThrough(2, true),
		"hexpire":      passThrough(-6, false),
		"hpexpire":     passThrough(-6, false),
		"hexpireat":    passThrough(-6, false),
		"hpexpireat":   passThrough(-6, false),
		"hpersist":     passThrough(-5, false),
		"httl":         passThrough(-5, false),
		"hpttl":        passThrough(-5, false),
		"hexpiretime":  passThrough(-5, false),
		"hpexpiretime": passThrough(-5, false),
		"hsetex":       passThrough(-6, false),
		"hgetex":       passThrough(-5, false),
	}
}

// respDo runs one request of a RESP connection and appends its reply.
func respDo(conn *Conn, args [][]byte, out []byte) []byte {
	var lower [16]byte // command names are short: no allocation
	name := args[0]
	if len(name) <= len(lower) {
		for i, c := range name {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		name = lower[:len(name)]
	}
	c, ok := respCommands[string(name)]
	if !ok {
		return resp.AppendError(out, unknownCommand(args))
	}
	if c.arity > 0 && len(args) != c.arity || c.arity < 0 && len(args) < -c.arity {
		return resp.AppendError(out, "ERR wrong number of arguments for '"+string(name)+"' command")
	}
	out = c.fn(conn.resp, args, out)
	if string(name) == "quit" {
		stopReading(conn) // once the OK is sent
	}
	return out
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

// book runs a command of the book's protocol and appends its reply,
// translated into RESP (see respTranslate).
func (st *respState) book(out []byte, asMap bool, args ...[]byte) []byte {
	st.scratch = doRequest(args, st.scratch[:0])
	return respTranslate(st.scratch, out, st.ver, asMap)
}

// bookInt runs a command of the book's protocol that replies an integer,
// and returns it. ok is false if it replied something else (an error).
func (st *respState) bookInt(args ...[]byte) (n int64, ok bool) {
	st.scratch = doRequest(args, st.scratch[:0])
	if st.scratch[0] != proto.SerInt {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(st.scratch[1:])), true
}

// The names of the book's commands, as the arguments doRequest takes.
var (
	bDel     = []byte("del")
	bSet     = []byte("set")
	bPExpire = []byte("pexpire")
	bPTTL    = []byte("pttl")
	bZAdd    = []byte("zadd")
	bZRem    = []byte("zrem")
	bMinus1  = []byte("-1")
)

// upper upper-cases the ASCII letters of an option name only, as Redis's
// strcasecmp compares them: strings.ToUpper would also turn a long s
// (U+017F) into an S.
func upper(b []byte) string {
	u := append([]byte(nil), b...)
	for i, c := range u {
		if 'a' <= c && c <= 'z' {
			u[i] = c - ('a' - 'A')
		}
	}
	return string(u)
}

// respDbl reads a float argument of a Redis command. The book's str2dbl
// follows C's strtod with its leniencies (" 1", "" and "1e400" are
// numbers); Redis refuses those, so the RESP side keeps strconv's strict
// reading, without NaN or Go's digit separators.
func respDbl(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsNaN(f) && !strings.Contains(s, "_")
}

func respPing(st *respState, args [][]byte, out []byte) []byte {
	switch len(args) {
	case 1:
		return resp.AppendSimple(out, "PONG")
	case 2:
		return resp.AppendBulk(out, args[1])
	}
	return resp.AppendError(out, "ERR wrong number of arguments for 'ping' command")
}

// respHello: HELLO [protover [AUTH user pass] [SETNAME name]]. Switches
// the connection's protocol and describes the server, as a map.
func respHello(st *respState, args [][]byte, out []byte) []byte {
	ver := st.ver
	if len(args) > 1 {
		v, err := strconv.ParseInt(string(args[1]), 10, 64)
		if err != nil {
			return resp.AppendError(out, "ERR Protocol version is not an integer or out of range")
		}
		if v != resp.RESP2 && v != resp.RESP3 {
			return resp.AppendError(out, "NOPROTO unsupported protocol version")
		}
		ver = int(v)
	}
	name := st.name
	for i := 2; i < len(args); i++ {
		switch opt := upper(args[i]); {
		case opt == "AUTH" && i+2 < len(args):
			i += 2 // no password is configured: any credentials pass
		case opt == "SETNAME" && i+1 < len(args):
			name = string(args[i+1])
			i++
		default:
			return resp.AppendError(out, "ERR Syntax error in HELLO option '"+string(args[i])+"'")
		}
	}
	st.ver, st.name = ver, name
	out = resp.AppendMap(out, 7, ver)
	out = resp.AppendBulk(out, "server")
	out = resp.AppendBulk(out, "redis")
	out = resp.AppendBulk(out, "version")
	out = resp.AppendBulk(out, "7.4.0") // the Redis whose commands these follow
	out = resp.AppendBulk(out, "proto")
	out = resp.AppendInt(out, int64(ver))
	out = resp.AppendBulk(out, "id")
	out = resp.AppendInt(out, st.id)
	out = resp.AppendBulk(out, "mode")
	out = resp.AppendBulk(out, "standalone")
	out = resp.AppendBulk(out, "role")
	out = resp.AppendBulk(out, "master")
	out = resp.AppendBulk(out, "modules")
	return resp.AppendArray(out, 0)
}

// respClient: CLIENT SETNAME, SETINFO (accepted and ignored), GETNAME, ID.
func respClient(st *respState, args [][]byte, out []byte) []byte {
	sub := upper(args[1])
	switch {
	case sub == "SETNAME" && len(args) == 3:
		st.name = string(args[2])
		return resp.AppendSimple(out, "OK")
	case sub == "SETINFO" && len(args) == 4:
		return resp.AppendSimple(out, "OK")
	case sub == "GETNAME" && len(args) == 2:
		if st.name == "" {
			return resp.AppendNull(out, st.ver)
		}
		return resp.AppendBulk(out, st.name)
	case sub == "ID" && len(args) == 2:
		return resp.AppendInt(out, st.id)
	case sub == "SETNAME" || sub == "SETINFO" || sub == "GETNAME" || sub == "ID":
		return resp.AppendError(out, "ERR wrong number of arguments for 'client|"+strings.ToLower(sub)+"' command")
	}
	return resp.AppendError(out, "ERR unknown subcommand '"+string(args[1])+"'. Try CLIENT HELP.")
}

// respCommandCmd: COMMAND, COMMAND COUNT, COMMAND DOCS. Clients ask for
// the command table to learn about commands; an empty one tells them
// nothing, which they accept.
func respCommandCmd(st *respState, args [][]byte, out []byte) []byte {
	if len(args) == 1 {
		return resp.AppendArray(out, 0)
	}
	switch sub := upper(args[1]); {
	case sub == "COUNT" && len(args) == 2:
		return resp.AppendInt(out, int64(len(respCommands)))
	case sub == "COUNT":
		return resp.AppendError(out, "ERR wrong number of arguments for 'command|count' command")
	case sub == "DOCS":
		return resp.AppendMap(out, 0, st.ver)
	case sub == "INFO":
		return resp.AppendArray(out, 0)
	}
	return resp.AppendError(out, "ERR unknown subcommand '"+string(args[1])+"'. Try COMMAND HELP.")
}

// respSelect: SELECT 0. There is one database, as in Redis Cluster.
func respSelect(st *respState, args [][]byte, out []byte) []byte {
	n, err := strconv.ParseInt(string(args[1]), 10, 64)
	switch {
	case err != nil:
		return resp.AppendError(out, errNotInt)
	case n != 0:
		return resp.AppendError(out, "ERR DB index is out of range")
	}
	return resp.AppendSimple(out, "OK")
}

// respConfigParams are what CONFIG GET reports: what redis-benchmark asks
// for before it starts (no snapshots, no append-only file: this server
// keeps nothing on disk).
var respConfigParams = [][2]string{{"save", ""}, {"appendonly", "no"}}

// respConfig: CONFIG GET pattern... replies the matching parameters.
func respConfig(st *respState, args [][]byte, out []byte) []byte {
	if sub := upper(args[1]); sub == "SET" || sub == "RESETSTAT" || sub == "REWRITE" {
		return resp.AppendError(out, "ERR CONFIG "+sub+" is not supported: this server has no settings to change")
	} else if sub != "GET" {
		return resp.AppendError(out, "ERR unknown subcommand '"+string(args[1])+"'. Try CONFIG HELP.")
	}
	if len(args) < 3 {
		return resp.AppendError(out, "ERR wrong number of arguments for 'config|get' command")
	}
	var found [][2]string
	for _, p := range respConfigParams {
		for _, pat := range args[2:] {
			if globMatch(strings.ToLower(string(pat)), p[0]) {
				found = append(found, p)
				break
			}
		}
	}
	out = resp.AppendMap(out, len(found), st.ver)
	for _, p := range found {
		out = resp.AppendBulk(out, p[0])
		out = resp.AppendBulk(out, p[1])
	}
	return out
}

// allKeys returns every key, walking the key table itself: the book's
// keys command refuses a reply over 4 KiB, so it cannot list a key space
// of more than a few hundred keys.
func allKeys() []string {
	keys := make([]string, 0, gData.db.Len())
	gData.db.All(func(ent *Entry) { keys = append(keys, ent.key()) })
	return keys
}

// respFlushAll: FLUSHALL [ASYNC|SYNC] deletes every key.
func respFlushAll(st *respState, args [][]byte, out []byte) []byte {
	if len(args) > 2 || len(args) == 2 && upper(args[1]) != "ASYNC" && upper(args[1]) != "SYNC" {
		return resp.AppendError(out, errSyntax)
	}
	for _, k := range allKeys() {
		st.bookInt(bDel, []byte(k))
	}
	return resp.AppendSimple(out, "OK")
}

// respKeys: KEYS pattern, with Redis's glob patterns. A reply that would
// be over kRESPMaxReply is refused as soon as the keys matched so far
// tell, rather than built and dropped.
func respKeys(st *respState, args [][]byte, out []byte) []byte {
	pattern := string(args[1])
	var match []string
	size := 0
	gData.db.All(func(ent *Entry) {
		if k := ent.key(); size <= kRESPMaxReply && globMatch(pattern, k) {
			match = append(match, k)
			size += len(k) + 5 // at least "$n\r\n" and "\r\n" around it
		}
	})
	if size > kRESPMaxReply {
		return resp.AppendError(out, "ERR response is too big")
	}
	out = resp.AppendArray(out, len(match))
	for _, k := range match {
		out = resp.AppendBulk(out, k)
	}
	return out
}

// respExists: EXISTS key... counts the keys that exist.
func respExists(st *respState, args [][]byte, out []byte) []byte {
	n := int64(0)
	for _, k := range args[1:] {
		if lookupEntry(k) != nil {
			n++
		}
	}
	return resp.AppendInt(out, n)
}

// respDel: DEL key... deletes each key, and counts those that existed.
func respDel(st *respState, args [][]byte, out []byte) []byte {
	n := int64(0)
	for _, k := range args[1:] {
		d, _ := st.bookInt(bDel, k)
		n += d
	}
	return resp.AppendInt(out, n)
}

// respSet: SET key value [NX|XX] [EX s|PX ms|KEEPTTL]. Unlike the book's
// set it replaces a value of any type, and drops the key's TTL unless
// told to keep it; it replies OK, or null when NX or XX stopped it.
func respSet(st *respState, args [][]byte, out []byte) []byte {
	var nx, xx, keepTTL bool
	ttlMs := int64(-1)
	for i := 3; i < len(args); i++ {
		switch opt := upper(args[i]); {
		case opt == "NX" && !xx:
			nx = true
		case opt == "XX" && !nx:
			xx = true
		case opt == "KEEPTTL" && ttlMs < 0:
			keepTTL = true
		case (opt == "EX" || opt == "PX") && !keepTTL && ttlMs < 0 && i+1 < len(args):
			i++
			n, err := strconv.ParseInt(string(args[i]), 10, 64)
			if err != nil {
				return resp.AppendError(out, errNotInt)
			}
			if opt == "EX" && n > math.MaxInt64/1000 || n <= 0 {
				return resp.AppendError(out, "ERR invalid expire time in 'set' command")
			}
			if ttlMs = n; opt == "EX" {
				ttlMs = n * 1000
			}
		default:
			return resp.AppendError(out, errSyntax)
		}
	}
	ent := lookupEntry(args[1])
	if nx && ent != nil || xx && ent == nil {
		return resp.AppendNull(out, st.ver)
	}
	if ent != nil && ent.typ() != tStr {
		st.bookInt(bDel, args[1]) // the book's set refuses other types
	}
	st.scratch = doRequest([][]byte{bSet, args[1], args[2]}, st.scratch[:0])
	switch {
	case ttlMs >= 0:
		var num [20]byte
		st.bookInt(bPExpire, args[1], strconv.AppendInt(num[:0], ttlMs, 10))
	case !keepTTL && ent != nil:
		st.bookInt(bPExpire, args[1], bMinus1) // the book's way to drop a TTL
	}
	return resp.AppendSimple(out, "OK")
}

// respExpire: EXPIRE key seconds, PEXPIRE key ms. As in Redis, a time not
// in the future deletes the key (the book's pexpire takes a negative time
// to mean "no TTL" instead).
func respExpire(st *respState, args [][]byte, out []byte) []byte {
	if len(args) > 3 {
		return resp.AppendError(out, "ERR Unsupported option "+string(args[3]))
	}
	n, err := strconv.ParseInt(string(args[2]), 10, 64)
	if err != nil {
		return resp.AppendError(out, errNotInt)
	}
	if upper(args[0]) == "EXPIRE" {
		if n > math.MaxInt64/1000 || n < math.MinInt64/1000 {
			return resp.AppendError(out, "ERR invalid expire time in 'expire' command")
		}
		n *= 1000
	}
	if n <= 0 {
		d, _ := st.bookInt(bDel, args[1])
		return resp.AppendInt(out, d)
	}
	var num [20]byte
	r, _ := st.bookInt(bPExpire, args[1], strconv.AppendInt(num[:0], n, 10))
	return resp.AppendInt(out, r)
}

// respTTL: TTL key, the book's pttl in seconds, rounded as Redis rounds.
func respTTL(st *respState, args [][]byte, out []byte) []byte {
	ms, _ := st.bookInt(bPTTL, args[1])
	if ms >= 0 {
		ms = (ms + 500) / 1000
	}
	return resp.AppendInt(out, ms)
}

// respPersist: PERSIST key drops the key's TTL; replies 1 if it had one.
func respPersist(st *respState, args [][]byte, out []byte) []byte {
	if ms, _ := st.bookInt(bPTTL, args[1]); ms < 0 {
		return resp.AppendInt(out, 0) // no key, or no TTL
	}
	st.bookInt(bPExpire, args[1], bMinus1)
	return resp.AppendInt(out, 1)
}

// lookupZSetRESP finds the sorted set at key: nil if there is none, and
// an error reply appended to out if the key holds another type.
func lookupZSetRESP(key []byte, out []byte) (*Entry, []byte, bool) {
	ent, wrongType := lookupZSet(key)
	if wrongType {
		return nil, resp.AppendError(out, errWrongType), false
	}
	return ent, out, true
}

// respZAdd: ZADD key score member [score member ...]. Every score is
// checked before anything is added; replies how many members are new.
func respZAdd(st *respState, args [][]byte, out []byte) []byte {
	if len(args)%2 != 0 {
		return resp.AppendError(out, errSyntax)
	}
	for i := 2; i < len(args); i += 2 {
		if _, ok := respDbl(string(args[i])); !ok {
			return resp.AppendError(out, "ERR value is not a valid float")
		}
	}
	if _, out2, ok := lookupZSetRESP(args[1], out); !ok {
		return out2
	}
	added := int64(0)
	for i := 2; i < len(args); i += 2 {
		n, _ := st.bookInt(bZAdd, args[1], args[i], args[i+1])
		added += n
	}
	return resp.AppendInt(out, added)
}

// respZRem: ZREM key member... replies how many members were removed.
func respZRem(st *respState, args [][]byte, out []byte) []byte {
	ent, out2, ok := lookupZSetRESP(args[1], out)
	if !ok {
		return out2
	}
	removed := int64(0)
	for _, m := range args[2:] {
		if ent == nil {
			break // the book's zrem replies nil for a missing key
		}
		n, _ := st.bookInt(bZRem, args[1], m)
		removed += n
	}
	return resp.AppendInt(out, removed)
}

// respZCard: ZCARD key.
func respZCard(st *respState, args [][]byte, out []byte) []byte {
	ent, out2, ok := lookupZSetRESP(args[1], out)
	if !ok {
		return out2
	}
	if ent == nil {
		return resp.AppendInt(out, 0)
	}
	return resp.AppendInt(out, int64(ent.obj.zset.Len()))
}

// parseScoreBound reads a ZRANGE BYSCORE bound: a number, "(" and a
// number for an exclusive bound, or -inf/+inf.
func parseScoreBound(b []byte) (f float64, exclusive bool, ok bool) {
	s := string(b)
	if exclusive = strings.HasPrefix(s, "("); exclusive {
		s = s[1:]
	}
	f, ok = respDbl(s)
	return f, exclusive, ok
}

// respZRange: ZRANGE key start stop [BYSCORE] [LIMIT offset count]
// [WITHSCORES]. By rank, or with BYSCORE by score: seek to the first
// member at or above min, step offset places and take up to count
// members, which is the book's zquery. REV and BYLEX are not supported.
func respZRange(st *respState, args [][]byte, out []byte) []byte {
	var byScore, withScores, limit bool
	offset, count := int64(0), int64(-1)
	for i := 4; i < len(args); i++ {
		switch opt := upper(args[i]); {
		case opt == "BYSCORE":
			byScore = true
		case opt == "WITHSCORES":
			withScores = true
		case opt == "LIMIT" && i+2 < len(args):
			o, err1 := strconv.ParseInt(string(args[i+1]), 10, 64)
			c, err2 := strconv.ParseInt(string(args[i+2]), 10, 64)
			if err1 != nil || err2 != nil {
				return resp.AppendError(out, errNotInt)
			}
			offset, count, limit = o, c, true
			i += 2
		default:
			return resp.AppendError(out, errSyntax)
		}
	}
	if limit && !byScore {
		return resp.AppendError(out, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	}
	var nodes []*zset.ZNode
	if byScore {
		lo, loEx, ok1 := parseScoreBound(args[2])
		hi, hiEx, ok2 := parseScoreBound(args[3])
		if !ok1 || !ok2 {
			return resp.AppendError(out, "ERR min or max is not a float")
		}
		ent, out2, ok := lookupZSetRESP(args[1], out)
		if !ok {
			return out2
		}
		if ent == nil || offset < 0 {
			return resp.AppendArray(out, 0)
		}
		node := ent.obj.zset.SeekGE(lo, "")
		for loEx && node != nil && node.Score() == lo {
			node = ent.obj.zset.Offset(node, +1)
		}
		if node != nil && offset > 0 {
			node = ent.obj.zset.Offset(node, offset)
		}
		for node != nil && (node.Score() < hi || !hiEx && node.Score() == hi) &&
			(count < 0 || int64(len(nodes)) < count) {
			nodes = append(nodes, node)
			node = ent.obj.zset.Offset(node, +1)
		}
	} else {
		start, err1 := strconv.ParseInt(string(args[2]), 10, 64)
		stop, err2 := strconv.ParseInt(string(args[3]), 10, 64)
		if err1 != nil || err2 != nil {
			return resp.AppendError(out, errNotInt)
		}
		ent, out2, ok := lookupZSetRESP(args[1], out)
		if !ok {
			return out2
		}
		if ent == nil {
			return resp.AppendArray(out, 0)
		}
		n := int64(ent.obj.zset.Len())
		if start < 0 {
			start = max(n+start, 0)
		}
		if stop < 0 {
			stop = n + stop
		}
		stop = min(stop, n-1)
		if start <= stop {
			node := ent.obj.zset.Offset(ent.obj.zset.SeekGE(math.Inf(-1), ""), start)
			for ; node != nil && start <= stop; start++ {
				nodes = append(nodes, node)
				node = ent.obj.zset.Offset(node, +1)
			}
		}
	}
	switch {
	case !withScores:
		out = resp.AppendArray(out, len(nodes))
	case st.ver == resp.RESP3:
		out = resp.AppendArray(out, len(nodes)) // [member, score] pairs
	default:
		out = resp.AppendArray(out, 2*len(nodes))
	}
	for _, node := range nodes {
		if withScores && st.ver == resp.RESP3 {
			out = resp.AppendArray(out, 2)
		}
		out = resp.AppendBulk(out, node.Name())
		if withScores {
			out = resp.AppendDouble(out, node.Score(), st.ver)
		}
	}
	return out
}

// respHSet: HSET key field value [field value ...].
func respHSet(st *respState, args [][]byte, out []byte) []byte {
	if len(args)%2 != 0 {
		return resp.AppendError(out, "ERR wrong number of arguments for 'hset' command")
	}
	return st.book(out, false, args...)
}
