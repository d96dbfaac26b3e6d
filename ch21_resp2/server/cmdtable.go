package server

// The command table: one row per command, for both listeners. A command's
// facts (its name, the functions that run it, how many arguments it takes)
// are written once, here, and both listeners' dispatch (respDo and
// bookRequest) read them from the row. Nothing else compares a command's
// name.

// cmdFlags are what the dispatch must know of a command besides running it.
type cmdFlags uint32

// flagQuit: the connection stops reading once the reply is sent.
const flagQuit cmdFlags = 1

// respHandler runs a command of the RESP listener: it takes the request's
// arguments, as slices of the read buffer, and writes the reply through w.
type respHandler func(st *respState, w *respWriter, args [][]byte)

// bookHandler runs a command of the book's listener, writing the reply
// through w.
type bookHandler func(cmd [][]byte, w replyWriter)

// command is one row of the command table.
type command struct {
	// name is the command's name, in lower case.
	name string
	// arity is Redis's: the number of arguments, the name included; -n
	// means at least n.
	arity int
	flags cmdFlags
	// resp runs the command on the RESP listener; nil for a command only
	// the book's protocol has.
	resp respHandler
	// book runs the command on the book's listener, when given from
	// bookMin to bookMax arguments (the name included; bookMax 0 for no
	// limit); nil for a command only RESP has.
	book             bookHandler
	bookMin, bookMax int
}

// commands holds the table's rows by name.
var commands = map[string]*command{}

func init() {
	for _, c := range commandRows() {
		commands[c.name] = c
	}
}

// commandRows returns the table. The handlers live in commands.go and
// hashcmds.go, and those about the connection in cmd_connection.go. The
// book's commands answer RESP through the same functions (bookRow), with
// the book's arity, which for these is Redis's or a part of it.
func commandRows() []*command {
	return []*command{
		// About the connection.
		{name: "ping", arity: -1, resp: respPing},
		{name: "echo", arity: 2, resp: respEcho},
		{name: "select", arity: 2, resp: respSelect},
		{name: "quit", arity: -1, flags: flagQuit, resp: respQuit},
		// The key space.
		bookRow("del", doDel, 2),
		{name: "keys", book: doKeys, bookMin: 1, bookMax: 1}, // the book's lists them all
		bookRow("pexpire", doExpire, 3),
		bookRow("pttl", doTTL, 2),
		// Strings.
		{name: "get", arity: 2, resp: respGet, book: doGet, bookMin: 2, bookMax: 2},
		{name: "set", arity: 3, resp: respSet, book: doSet, bookMin: 3, bookMax: 3},
		// Sorted sets.
		bookRow("zadd", doZAdd, 4),
		bookRow("zrem", doZRem, 3),
		bookRow("zscore", doZScore, 3),
		{name: "zquery", book: doZQuery, bookMin: 6, bookMax: 6}, // the book's own
		// Hashes and their fields' TTLs (chapter 16).
		{name: "hset", arity: -4, resp: respBook(bookHSet), book: bookHSet, bookMin: 4},
		hashRow("hget", doHGet, 3, 3),
		hashRow("hdel", doHDel, 3, 0),
		hashRow("hlen", doHLen, 2, 2),
		hashRow("hexists", doHExists, 3, 3),
		hashRow("hgetall", doHGetAll, 2, 2),
		hashRow("hexpire", doHExpireIn(1000, false), 3, 0),
		hashRow("hpexpire", doHExpireIn(1, false), 3, 0),
		hashRow("hexpireat", doHExpireIn(1000, true), 3, 0),
		hashRow("hpexpireat", doHExpireIn(1, true), 3, 0),
		hashRow("hpersist", doHPersist, 3, 0),
		hashRow("httl", doHTTLIn(1000, false), 3, 0),
		hashRow("hpttl", doHTTLIn(1, false), 3, 0),
		hashRow("hexpiretime", doHTTLIn(1000, true), 3, 0),
		hashRow("hpexpiretime", doHTTLIn(1, true), 3, 0),
		hashRow("hsetex", doHSetEx, 3, 0),
		hashRow("hgetex", doHGetEx, 3, 0),
	}
}

// bookRow is the row of a command of the book's that RESP runs with the
// same function, and the same fixed number of arguments n.
func bookRow(name string, fn bookHandler, n int) *command {
	return &command{name: name, arity: n, resp: respBook(fn), book: fn, bookMin: n, bookMax: n}
}

// respBook runs fn, a command of the book's, on the RESP listener.
func respBook(fn bookHandler) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { fn(args, w) }
}

// hashRow is the row of a hash command (chapter 16's functions, which
// take their arguments as strings, and already have Redis's semantics).
func hashRow(name string, fn func(cmd []string, w replyWriter), bookMin, bookMax int) *command {
	arity := bookMin
	if bookMax == 0 {
		arity = -bookMin
	}
	return &command{name: name, arity: arity, resp: respHash(fn), book: bookHash(fn), bookMin: bookMin, bookMax: bookMax}
}

// lookupCommand finds the command named name, in any case (ASCII letters
// only, as cmdIs compares), or returns nil.
func lookupCommand(name []byte) *command {
	var lower [16]byte // command names are short: no allocation
	if len(name) > len(lower) {
		return nil
	}
	for i, c := range name {
		lower[i] = asciiLower(c)
	}
	return commands[string(lower[:len(name)])]
}

// respLookup finds the RESP listener's command named name, or returns nil.
func respLookup(name []byte) *command {
	if c := lookupCommand(name); c != nil && c.resp != nil {
		return c
	}
	return nil
}

// arityOK reports whether n arguments (the name included) suit an arity
// as Redis writes it.
func arityOK(arity, n int) bool {
	return arity > 0 && n == arity || arity < 0 && n >= -arity
}
