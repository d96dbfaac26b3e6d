package server

// The command table: one row per command. A command's facts (its name,
// the function that runs it, how many arguments it takes) are written
// once, here, and the dispatch (bookRequest) reads them from the row.
// Nothing else compares a command's name.

// bookHandler runs a command of the book's listener, writing the reply
// through w.
type bookHandler func(cmd [][]byte, w replyWriter)

// command is one row of the command table.
type command struct {
	// name is the command's name, in lower case.
	name string
	// book runs the command, when given from bookMin to bookMax
	// arguments (the name included; bookMax 0 for no limit).
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
// hashcmds.go.
func commandRows() []*command {
	return []*command{
		// The key space.
		{name: "del", book: doDel, bookMin: 2, bookMax: 2},
		{name: "keys", book: doKeys, bookMin: 1, bookMax: 1}, // the book's lists them all
		{name: "pexpire", book: doExpire, bookMin: 3, bookMax: 3},
		{name: "pttl", book: doTTL, bookMin: 2, bookMax: 2},
		// Strings.
		{name: "get", book: doGet, bookMin: 2, bookMax: 2},
		{name: "set", book: doSet, bookMin: 3, bookMax: 3},
		// Sorted sets.
		{name: "zadd", book: doZAdd, bookMin: 4, bookMax: 4},
		{name: "zrem", book: doZRem, bookMin: 3, bookMax: 3},
		{name: "zscore", book: doZScore, bookMin: 3, bookMax: 3},
		{name: "zquery", book: doZQuery, bookMin: 6, bookMax: 6},
		// Hashes and their fields' TTLs (chapter 16).
		{name: "hset", book: bookHSet, bookMin: 4},
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

// hashRow is the row of a hash command (chapter 16's functions, which
// take their arguments as strings).
func hashRow(name string, fn func(cmd []string, w replyWriter), bookMin, bookMax int) *command {
	return &command{name: name, book: bookHash(fn), bookMin: bookMin, bookMax: bookMax}
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
