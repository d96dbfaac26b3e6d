package server

import (
	"math"
	"strings"

	"example.com/byor/ch18_scan_multi/glob"
	"example.com/byor/ch18_scan_multi/resp"
)

// The commands clients and tools send when they connect, or about the
// connection itself: PING, ECHO, HELLO, AUTH, CLIENT, COMMAND, SELECT,
// QUIT and CONFIG GET. Transactions are in resp_multi.go.

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

// respSubcommand reports whether args name the subcommand sub with an
// arity as Redis counts it (the command and subcommand included; -n means
// at least n). A wrong number of arguments is answered here.
func respSubcommand(w *respWriter, args [][]byte, sub string, arity int) (match, ok bool) {
	if !cmdIs(args[1], sub) {
		return false, false
	}
	if arity > 0 && len(args) != arity || arity < 0 && len(args) < -arity {
		w.err(errArity(respLookup(args[0]).name + "|" + sub))
		return true, false
	}
	return true, true
}

// errSubcommand is Redis's error for a subcommand it does not have.
func errSubcommand(args [][]byte) string {
	return "ERR unknown subcommand '" + string(args[1][:min(len(args[1]), 128)]) +
		"'. Try " + strings.ToUpper(respLookup(args[0]).name) + " HELP."
}

// respClient: CLIENT SETNAME, GETNAME, ID, and SETINFO (Redis 7.2's, which
// clients send and which is accepted and ignored).
func respClient(st *respState, w *respWriter, args [][]byte) {
	if m, ok := respSubcommand(w, args, "setname", 3); m {
		if ok && st.setName(w, args[2]) {
			w.simple("OK")
		}
	} else if m, ok := respSubcommand(w, args, "getname", 2); m {
		switch {
		case ok && st.name == "":
			w.outNil()
		case ok:
			w.outStr(st.name)
		}
	} else if m, ok := respSubcommand(w, args, "id", 2); m {
		if ok {
			w.outInt(st.id)
		}
	} else if m, ok := respSubcommand(w, args, "setinfo", 4); m {
		if ok {
			w.simple("OK")
		}
	} else {
		w.err(errSubcommand(args))
	}
}

// respCommandCmd: COMMAND, COMMAND COUNT, COMMAND INFO, COMMAND LIST,
// COMMAND DOCS. The table describes the commands of respCommands, each by
// its name, arity and key positions (no flags, categories or key specs),
// so COMMAND and COMMAND COUNT agree.
func respCommandCmd(st *respState, w *respWriter, args [][]byte) {
	if len(args) == 1 {
		names := respCommandNames()
		w.outArr(len(names))
		for _, name := range names {
			respCommandInfo(w, respCommands[name])
		}
		return
	}
	if m, ok := respSubcommand(w, args, "count", 2); m {
		if ok {
			w.outInt(int64(len(respCommands)))
		}
	} else if m, ok := respSubcommand(w, args, "list", -2); m {
		if ok {
			names := respCommandNames()
			w.outArr(len(names))
			for _, name := range names {
				w.outStr(name)
			}
		}
	} else if m, ok := respSubcommand(w, args, "info", -2); m {
		if ok {
			w.outArr(len(args) - 2)
			for _, name := range args[2:] {
				respCommandInfo(w, respLookup(name))
			}
		}
	} else if m, ok := respSubcommand(w, args, "docs", -2); m {
		if ok {
			w.outMap(0) // no documentation, which clients accept
		}
	} else {
		w.err(errSubcommand(args))
	}
}

// respCommandInfo writes one command's entry in COMMAND's reply, in Redis
// 7's shape, or null for no such command.
func respCommandInfo(w *respWriter, c *respCommand) {
	if c == nil {
		w.outNil()
		return
	}
	w.outArr(10)
	w.outStr(c.name)
	w.outInt(int64(c.arity))
	w.outArr(0) // flags
	w.outInt(int64(c.first))
	w.outInt(int64(c.last))
	w.outInt(int64(c.step))
	w.outArr(0) // ACL categories
	w.outArr(0) // tips
	w.outArr(0) // key specs
	w.outArr(0) // subcommands
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
// for before it starts (no snapshots, no append-only file: this server
// keeps nothing on disk).
var respConfigParams = [][2]string{{"save", ""}, {"appendonly", "no"}}

// respConfig: CONFIG GET parameter... replies the parameters asked for.
// As in Redis, a name without glob characters is looked up in any case
// and answered under the name given; a pattern is matched in any case and
// answered with the parameter's own name.
func respConfig(st *respState, w *respWriter, args [][]byte) {
	m, ok := respSubcommand(w, args, "get", -3)
	if !m {
		for _, sub := range []string{"SET", "RESETSTAT", "REWRITE"} {
			if cmdIs(args[1], sub) {
				w.err("ERR CONFIG " + sub + " is not supported: this server has no settings to change")
				return
			}
		}
		w.err(errSubcommand(args))
	}
	if !ok {
		return
	}
	var found [][2]string
	for _, p := range respConfigParams {
		for _, pat := range args[2:] {
			if !strings.ContainsAny(string(pat), "*?[") && cmdIs(pat, p[0]) {
				found = append(found, [2]string{string(pat), p[1]})
				break
			}
			lower := make([]byte, len(pat)) // the names are in lower case
			for i, c := range pat {
				lower[i] = asciiLower(c)
			}
			if glob.Match(string(lower), p[0]) {
				found = append(found, p)
				break
			}
		}
	}
	w.outMap(len(found))
	for _, p := range found {
		w.outStr(p[0])
		w.outStr(p[1])
	}
}
