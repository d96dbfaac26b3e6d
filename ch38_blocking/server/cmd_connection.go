package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"example.com/byor/ch38_blocking/glob"
	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/sock"
)

// The commands clients and tools send when they connect, or about the
// connection itself: PING, ECHO, HELLO, AUTH, CLIENT, COMMAND, SELECT,
// QUIT and CONFIG GET. Transactions are in cmd_multi.go.

func respPing(st *respState, w *respWriter, args [][]byte) {
	switch len(args) {
	case 1:
		w.simple("PONG")
	case 2:
		w.outBulk(args[1])
	default:
		w.err(errArity("ping"))
	}
}

func respEcho(st *respState, w *respWriter, args [][]byte) { w.outBulk(args[1]) }

func respQuit(st *respState, w *respWriter, args [][]byte) { w.simple("OK") }

// errWrongPass is Redis's answer to credentials it does not accept.
const errWrongPass = "WRONGPASS invalid username-password pair or user is disabled."

// respCheckAuth answers as a Redis with no password configured does: its
// one user, "default", needs none, so any password passes for it, and any
// other user name is refused. The server has no -requirepass: a client
// configured with credentials for "default" connects, one configured with
// other credentials is told they are wrong, on both paths (AUTH, and
// HELLO's AUTH option).
func respCheckAuth(w *respWriter, user []byte) bool {
	if string(user) != "default" {
		w.err(errWrongPass)
		return false
	}
	return true
}

// respAuth: AUTH [username] password.
func respAuth(st *respState, w *respWriter, args [][]byte) {
	switch len(args) {
	case 2:
		w.err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	case 3:
		if respCheckAuth(w, args[1]) {
			w.simple("OK")
		}
	default:
		w.err(errSyntax)
	}
}

// respHello: HELLO [protover [AUTH username password] [SETNAME name]].
// Switches the connection's protocol and describes the server, as a map.
func respHello(st *respState, w *respWriter, args [][]byte) {
	ver := w.ver
	if len(args) > 1 {
		v, ok := respInt(args[1])
		if !ok {
			w.err("ERR Protocol version is not an integer or out of range")
			return
		}
		if v != resp.RESP2 && v != resp.RESP3 {
			w.err("NOPROTO unsupported protocol version")
			return
		}
		ver = int(v)
	}
	var user, name []byte
	for i := 2; i < len(args); i++ {
		switch more := len(args) - 1 - i; {
		case cmdIs(args[i], "auth") && more >= 2:
			user = args[i+1]
			i += 2
		case cmdIs(args[i], "setname") && more >= 1:
			name = args[i+1]
			i++
		default:
			w.err("ERR Syntax error in HELLO option '" + string(args[i]) + "'")
			return
		}
	}
	if user != nil && !respCheckAuth(w, user) {
		return
	}
	if name != nil && !st.setName(w, name) {
		return
	}
	w.ver = ver
	w.outMap(7)
	w.outStr("server")
	w.outStr("redis")
	w.outStr("version")
	w.outStr("7.4.0") // the Redis whose hash field TTL commands these follow
	w.outStr("proto")
	w.outInt(int64(ver))
	w.outStr("id")
	w.outInt(st.id)
	w.outStr("mode")
	w.outStr("standalone")
	w.outStr("role")
	w.outStr("master")
	w.outStr("modules")
	w.outArr(0)
}

// setName names the connection, as CLIENT SETNAME and HELLO SETNAME do,
// or answers why it cannot: Redis allows only the printable ASCII
// characters other than space. An empty name removes the name.
func (st *respState) setName(w *respWriter, name []byte) bool {
	for _, c := range name {
		if c < '!' || c > '~' {
			w.err("ERR Client names cannot contain spaces, newlines or special characters.")
			return false
		}
	}
	// A name is held for as long as the connection lasts: it counts in
	// the bound over all connections' memory.
	if grow := len(name) - len(st.name); grow > 0 && !budgetMake(st.conn, grow) {
		w.err(errClientMemory[:strings.Index(errClientMemory, ":")] + ": name refused")
		return false
	}
	inputHeld += len(name) - len(st.name)
	st.name = string(name)
	return true
}

// errSubcommand is Redis's error for a subcommand the container command c
// does not have.
func errSubcommand(c *command, sub []byte) string {
	return "ERR unknown subcommand '" + string(sub[:min(len(sub), 128)]) +
		"'. Try " + strings.ToUpper(c.name) + " HELP."
}

// respClientSetName: CLIENT SETNAME name.
func respClientSetName(st *respState, w *respWriter, args [][]byte) {
	if st.setName(w, args[2]) {
		w.simple("OK")
	}
}

// respClientGetName: CLIENT GETNAME, null for no name.
func respClientGetName(st *respState, w *respWriter, args [][]byte) {
	if st.name == "" {
		w.outNil()
		return
	}
	w.outStr(st.name)
}

// respClientID: CLIENT ID.
func respClientID(st *respState, w *respWriter, args [][]byte) { w.outInt(st.id) }

// respClientList: CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id
// [id ...]]: a line for each RESP connection (or those named), in Redis's
// fields; those of what this server does not have (pub/sub, databases,
// users) have the values Redis gives a client without them. Every
// connection is looked at, charged.
func respClientList(st *respState, w *respWriter, args [][]byte) {
	var ids map[int64]bool
	normal := true
	for i := 2; i < len(args); i++ {
		switch {
		case cmdIs(args[i], "type") && i+1 < len(args):
			i++
			switch t := strings.ToLower(string(args[i])); t {
			case "normal":
			case "master", "replica", "slave", "pubsub":
				normal = false
			default:
				w.err("ERR Unknown client type '" + string(args[i]) + "'")
				return
			}
		case cmdIs(args[i], "id") && i+1 < len(args):
			ids = map[int64]bool{}
			for i++; i < len(args); i++ {
				id, ok := respInt(args[i])
				if !ok || id <= 0 {
					w.err("ERR Invalid client ID")
					return
				}
				ids[id] = true
			}
		default:
			w.err(errSyntax)
			return
		}
	}
	var b strings.Builder
	for _, c := range gData.fd2conn {
		workDone++
		if other, ok := c.respState(); ok && normal && (ids == nil || ids[other.id]) {
			clientLine(&b, other)
		}
	}
	w.outText(b.String())
}

// respClientInfo: CLIENT INFO, the connection's own line of CLIENT LIST.
func respClientInfo(st *respState, w *respWriter, args [][]byte) {
	var b strings.Builder
	clientLine(&b, st)
	w.outText(b.String())
}

// clientLine writes st's line of CLIENT LIST. Its flags: b while a
// blocking command parks it, x inside MULTI, d once a key it watches has
// changed, N for none.
func clientLine(b *strings.Builder, st *respState) {
	conn := st.conn
	if st.addr == "" {
		workDone += kInfoSectionWork // two system calls, once
		st.addr, _ = sock.PeerAddr(conn.fd)
		st.laddr, _ = sock.LocalAddr(conn.fd)
	}
	flags := ""
	if st.block != nil {
		flags += "b"
	}
	if st.tx.dirty {
		flags += "d"
	}
	if st.inMulti {
		flags += "x"
	}
	if flags == "" {
		flags = "N"
	}
	multi := -1
	if st.inMulti {
		multi = len(st.tx.queue)
	}
	cmd := "NULL"
	if st.w.cmd != nil {
		cmd = st.w.cmd.name
	}
	events := ""
	if conn.events&sock.In != 0 {
		events += "r"
	}
	if conn.events&sock.Out != 0 {
		events += "w"
	}
	now := getMonotonicUsec()
	qbuf := len(st.buf) - st.start
	fmt.Fprintf(b, "id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=0 sub=0 psub=0 ssub=0 multi=%d qbuf=%d qbuf-free=%d argv-mem=0 multi-mem=%d rbs=%d rbp=%d obl=0 oll=0 omem=%d tot-mem=%d events=%s cmd=%s user=default redir=-1 resp=%d\n",
		st.id, st.addr, st.laddr, conn.fd, st.name, (now-st.created)/1e6, (now-conn.idleStart)/1e6, flags,
		multi, qbuf, cap(st.buf)-len(st.buf), st.tx.held, cap(st.buf), qbuf, conn.pending(), conn.memory(), events, cmd, st.w.ver)
}

// respClientSetInfo: CLIENT SETINFO (Redis 7.2's), which clients send
// and which is accepted and ignored.
func respClientSetInfo(st *respState, w *respWriter, args [][]byte) { w.simple("OK") }

// respCommandCmd: COMMAND, from the command table: each RESP command by
// its name, arity, flags and key positions (no ACL categories or key
// specs), so COMMAND and COMMAND COUNT agree.
func respCommandCmd(st *respState, w *respWriter, args [][]byte) {
	workDone += kCommandRowWork * len(commands) // the rows walked, and written
	names := respCommandNames()
	w.outArr(len(names))
	for _, name := range names {
		respCommandInfo(w, commands[name])
	}
}

// respCommandCount: COMMAND COUNT.
func respCommandCount(st *respState, w *respWriter, args [][]byte) {
	workDone += kCommandRowWork * len(commands)
	w.outInt(int64(len(respCommandNames())))
}

// respCommandList: COMMAND LIST (no filter).
func respCommandList(st *respState, w *respWriter, args [][]byte) {
	workDone += kCommandRowWork * len(commands)
	names := respCommandNames()
	w.outArr(len(names))
	for _, name := range names {
		w.outStr(name)
	}
}

// respCommandInfoCmd: COMMAND INFO name..., a subcommand's name
// (container|sub) too.
func respCommandInfoCmd(st *respState, w *respWriter, args [][]byte) {
	w.outArr(len(args) - 2)
	for _, name := range args[2:] {
		c := respLookup(name)
		if c == nil {
			c = lookupSubcommandName(name)
		}
		respCommandInfo(w, c)
	}
}

// respCommandDocs: COMMAND DOCS: no documentation, which clients accept.
func respCommandDocs(st *respState, w *respWriter, args [][]byte) { w.outMap(0) }

// kCommandRowWork is what one row of the table counts in the work meter
// when COMMAND lists it, beside its bytes: its name sorted, its fields and
// flags written one by one.
const kCommandRowWork = 8

// respCommandInfo writes one command's entry in COMMAND's reply, in Redis
// 7's shape, or null for no such command.
func respCommandInfo(w *respWriter, c *command) {
	if c == nil {
		w.outNil()
		return
	}
	w.outArr(10)
	w.outStr(c.name)
	w.outInt(int64(c.arity))
	n := 0
	for _, f := range cmdFlagNames {
		if c.flags&f.flag != 0 {
			n++
		}
	}
	w.outSet(n)
	for _, f := range cmdFlagNames {
		if c.flags&f.flag != 0 {
			w.simple(f.name)
		}
	}
	w.outInt(int64(c.first))
	w.outInt(int64(c.last))
	w.outInt(int64(c.step))
	w.outSet(0) // ACL categories
	w.outSet(0) // tips
	w.outArr(0) // key specs
	w.outArr(len(c.subs))
	for _, sub := range c.subs {
		respCommandInfo(w, sub)
	}
}

// outSet starts a set of n elements, as COMMAND's flags are: RESP3 has
// sets; in RESP2 it is an array.
func (w *respWriter) outSet(n int) {
	if w.ver != resp.RESP3 {
		w.outArr(n)
	} else if w.room(respHeaderMax) {
		w.buf = append(strconv.AppendInt(append(w.buf, '~'), int64(n), 10), "\r\n"...)
	}
}

// respSelect: SELECT 0. There is one database, as in Redis Cluster; the
// others Redis has (1 to 15) are out of range here.
func respSelect(st *respState, w *respWriter, args [][]byte) {
	n, ok := respInt(args[1])
	switch {
	case !ok:
		w.err(errNotInt)
	case n < math.MinInt32 || n > math.MaxInt32:
		w.err("ERR value is out of range, value must between -2147483648 and 2147483647")
	case n != 0:
		w.err("ERR DB index is out of range")
	default:
		w.simple("OK")
	}
}

// respConfigParams are what CONFIG GET reports: what redis-benchmark asks
// for before it starts (no snapshots; the append-only file's settings
// are set from the flags, aof.go).
var respConfigParams = [][2]string{{"save", ""}, {"appendonly", "no"}}

// configIsPattern reports whether CONFIG GET matches name as a pattern:
// as in Redis, only if it holds one of *, ? or [ (a \ alone escapes
// nothing in a name looked up).
func configIsPattern(name []byte) bool { return strings.ContainsAny(string(name), "*?[") }

// configGetWork is the most work a CONFIG GET may do, which EXEC weighs
// before running it (costConfig): each pattern's steps against each name (package glob's bound, the pattern's length
// times the name's), up to kConfigMatchMaxSteps and the one set that may
// take the matches past it. A name looked up costs none.
func configGetWork(args [][]byte) int {
	steps, longest := 0, 0
	for _, pat := range args[2:] {
		if configIsPattern(pat) {
			longest = max(longest, len(pat))
			for _, p := range respConfigParams {
				steps += (len(pat) + 2) * (len(p[0]) + 2)
			}
		}
	}
	return min(steps, kConfigMatchMaxSteps+longest) / kMatchStepsPerItem
}

// kConfigMatchMaxSteps bounds the steps of one CONFIG GET's matches, as
// kMatchMaxSteps bounds KEYS's, but lower: the names are few and short,
// so a pattern a person writes takes some hundreds of steps, and 2^18
// still lets any pattern of 8 KiB through, while a refused request costs
// about what reading its 512 KiB does (at KEYS's bound, several times
// that, for a pattern such as "*[<512 KiB>]z").
const kConfigMatchMaxSteps = 1 << 18

// errConfigMatchTooCostly refuses a CONFIG GET whose patterns would take
// more than kConfigMatchMaxSteps to match against the parameters' names.
var errConfigMatchTooCostly = "ERR the pattern would take more than " + strconv.Itoa(kConfigMatchMaxSteps) + " steps to match against the parameters' names: use a shorter pattern"

// respConfigGet: CONFIG GET parameter... replies the parameters asked
// for. As in Redis, a name without glob characters is looked up in any
// case and answered under the name given; a pattern is matched in any
// case and answered with the parameter's own name. A pattern's matches
// are bounded (kConfigMatchMaxSteps) and counted as KEYS's are: a set of
// 512 KiB is walked once per byte a * tries, and a pipeline of such
// requests would otherwise hold the event loop uncounted.
func respConfigGet(st *respState, w *respWriter, args [][]byte) {
	// Each pattern is lowered once (the names are in lower case), not once
	// per parameter.
	patterns := make([]string, len(args)-2)
	for i, pat := range args[2:] {
		if configIsPattern(pat) {
			lower := make([]byte, len(pat))
			for j, c := range pat {
				lower[j] = asciiLower(c)
			}
			patterns[i] = string(lower)
		}
	}
	var found [][2]string
	steps := 0
params:
	for _, p := range respConfigParams {
		for i, pat := range args[2:] {
			if patterns[i] == "" {
				if cmdIs(pat, p[0]) {
					found = append(found, [2]string{string(pat), p[1]})
					break
				}
				continue
			}
			ok, n, _ := glob.MatchLimit(patterns[i], p[0], kConfigMatchMaxSteps-steps)
			steps += n
			if steps > kConfigMatchMaxSteps {
				break params // a set may take it past by its length, no more
			}
			if ok {
				found = append(found, p)
				break
			}
		}
	}
	workDone += steps / kMatchStepsPerItem
	if steps > kConfigMatchMaxSteps {
		w.err(errConfigMatchTooCostly)
		return
	}
	w.outMap(len(found))
	for _, p := range found {
		w.outStr(p[0])
		w.outStr(p[1])
	}
}

// respConfigResetStat: CONFIG RESETSTAT zeroes INFO's totals (stats.go).
func respConfigResetStat(st *respState, w *respWriter, args [][]byte) {
	resetStats()
	w.simple("OK")
}

// respConfigUnsupported: CONFIG REWRITE, which Redis has and this server
// refuses: its settings are its flags, and it has no file of them.
func respConfigUnsupported(st *respState, w *respWriter, args [][]byte) {
	w.err("ERR " + strings.ToUpper(strings.Replace(w.cmd.name, "|", " ", 1)) +
		" is not supported: this server's settings are its flags, and it has no configuration file")
}

// configSettable are the settings CONFIG SET changes, by Redis's names:
// each reads its value and returns what applies it, or Redis's reason
// for refusing it.
var configSettable = map[string]func(v string) (apply func(), reason string){
	// save: the rules, read as -save's (Redis's test suite sets save ""
	// before each of its servers).
	"save": func(v string) (func(), string) {
		rules, err := parseSaveRules(v)
		if err != nil {
			return nil, "Invalid save parameters"
		}
		return func() { rdbState.rules, rdbState.rulesArg = rules, v }, ""
	},
}

// respConfigSetCmd: CONFIG SET parameter value [parameter value ...]
// changes the settings of configSettable. Every pair is checked before
// any applies, as in Redis; another name is answered as Redis answers
// one it does not know.
func respConfigSetCmd(st *respState, w *respWriter, args [][]byte) {
	if len(args)%2 != 0 {
		w.err(errSyntax)
		return
	}
	var applies []func()
	for i := 2; i < len(args); i += 2 {
		name := strings.ToLower(string(args[i]))
		check, ok := configSettable[name]
		if !ok {
			w.err("ERR Unknown option or number of arguments for CONFIG SET - '" + string(args[i]) + "'")
			return
		}
		apply, reason := check(string(args[i+1]))
		if apply == nil {
			w.err("ERR CONFIG SET failed (possibly related to argument '" + string(args[i]) + "') - " + reason)
			return
		}
		applies = append(applies, apply, func() { respConfigSet(name, string(args[i+1])) })
	}
	for _, apply := range applies {
		apply()
	}
	w.simple("OK")
}
