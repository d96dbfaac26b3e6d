package chapters

import (
	"fmt"
	"slices"

	"example.com/byor/tools/internal/wire"
)

// Protocol is a wire format a chapter's server speaks. Two chapters with
// the same Protocol answer the same bytes with the same bytes (for what
// both implement): a server of the later one passes the earlier one's
// checks.
type Protocol int

// The wire formats, in the order the chapters introduce them.
const (
	Hello    Protocol = iota // ch03: bare bytes, "hello" answered "world"
	World                    // ch04: length-prefixed messages, each answered "world"
	Echo                     // ch06: length-prefixed messages echoed, pipelined
	Status                   // ch07-ch08: lists of strings; u32 status + data replies
	Tagged9                  // ch09-ch10: serialized replies, arrays tagged 4
	Tagged11                 // ch11 on: doubles tagged 4, arrays 5
	RESP                     // Redis's protocol (ch21's second listener)
)

// protocolNames describe the wire formats, in the order of their numbers.
var protocolNames = [...]string{
	Hello:    "bare hello/world bytes (ch03)",
	World:    "length-prefixed messages answered with world (ch04)",
	Echo:     "length-prefixed messages echoed back (ch06)",
	Status:   "lists of strings with status replies (ch07-ch08)",
	Tagged9:  "serialized replies with arrays tagged 4 (ch09-ch10)",
	Tagged11: "serialized replies with doubles tagged 4 and arrays 5 (ch11 on)",
	RESP:     "Redis's protocol, RESP (ch21 on)",
}

func (p Protocol) String() string {
	if p >= 0 && int(p) < len(protocolNames) {
		return protocolNames[p]
	}
	return fmt.Sprintf("protocol(%d)", int(p))
}

// TextMessages reports whether requests and replies are length-prefixed
// text messages (ch04's "world" replies, ch06's echo).
func (p Protocol) TextMessages() bool { return p == World || p == Echo }

// Pipelined reports whether the server reads requests sent back to back
// without waiting for replies (ch06 on).
func (p Protocol) Pipelined() bool { return p >= Echo }

// Commands reports whether requests are commands on a key space: lists of
// strings from ch07 on, and RESP's arrays.
func (p Protocol) Commands() bool { return p >= Status }

// StatusReplies reports whether a reply is a u32 status and its data
// (ch07-ch08).
func (p Protocol) StatusReplies() bool { return p == Status }

// Serialized reports whether a reply is one serialized value (ch09 on, in
// the book's protocol); Tags says how its types are numbered.
func (p Protocol) Serialized() bool { return p == Tagged9 || p == Tagged11 }

// Tags is the numbering of a serialized reply's type bytes; the zero Tags
// for a protocol whose replies are not serialized.
func (p Protocol) Tags() wire.Tags {
	switch p {
	case Tagged9:
		return wire.Tags09
	case Tagged11:
		return wire.Tags11
	}
	return wire.Tags{}
}

// Feature is something a chapter's server does beyond the wire format.
type Feature uint

// The features the tools test for.
const (
	Keys          Feature = 1 << iota // ch09 on: the keys command
	KeysOrder                         // ch09-ch17: keys in the book's hashtable order
	ZSet                              // ch11 on: sorted sets
	IdleTimer                         // ch12 on: idle connections closed
	TTL                               // ch13 on: pexpire, pttl
	ThreadPool                        // ch14 on: large sets freed off the loop
	Hardened                          // ch15 on: out of descriptors, unread logs, SIGHUP, dripping clients
	FieldTTL                          // ch16 on: hash fields with TTLs
	OutputBound                       // ch17 on: a client's unsent replies bounded, and all clients' buffers in one budget
	SeededHash                        // ch18 on: keys, members and fields placed by a hash seeded at start, in salted tables
	RESPListener                      // ch21 on: a second listener speaking RESP
	RESPBounds                        // ch22 on: RESP requests and replies of any size within the budget, turns bounded by their work
	RESPHandshake                     // ch23 on: RESP3 and HELLO, the handshake commands (AUTH, CLIENT, CONFIG, COMMAND)
	RESPCommands                      // ch24 on: Redis's commands for keys, strings, sorted sets and hashes, with their options
	Scan                              // ch25 on: SCAN's cursor over the key table, TYPE
	Transactions                      // ch26 on: MULTI/EXEC/WATCH, INFO
	StringOpts                        // ch27 on: SET's options and the string family's grammar, INCRBYFLOAT, APPEND
	BitsLCS                           // ch28 on: SETBIT, BITCOUNT, BITPOS, BITOP, LCS
	KeyCommands                       // ch29 on: RENAME, COPY, RANDOMKEY, OBJECT, MEMORY USAGE, INFO commandstats
	HashCommands                      // ch30 on: the rest of the hash commands (HSCAN, HRANDFIELD, ...), ZRANK, ZCOUNT
	ZRanges                           // ch31 on: the sorted sets' ranges by rank, score and lex, and the pops
	ZAlgebra                          // ch32 on: the set algebra, ZRANDMEMBER, ZSCAN
	AppendOnly                        // ch33 on: the append-only file
	RDBFile                           // ch34 on: SAVE writes dump.rdb, loaded at start
	Snapshots                         // ch35 on: BGSAVE, the snapshot without fork; save rules
	AOFRewrite                        // ch36 on: BGREWRITEAOF, the log rewritten from a snapshot
	Lists                             // ch37 on: lists and their commands
	Blocking                          // ch38 on: BLPOP and kin, clients that wait for a key
)

// Flag is a command-line flag of a chapter's server that the tools use.
type Flag uint

// The flags.
const (
	FlagAddr        Flag = 1 << iota // -addr host:port (every chapter)
	FlagIdleTimeout                  // -idle-timeout d (ch12 on)
	FlagLogConns                     // -log-conns (ch17 on: connection lines are off by default)
	FlagRESPAddr                     // -resp-addr host:port (ch21 on)
	// FlagSave is -save rules (ch35 on). The default is Redis's, and with
	// rules SIGTERM saves dump.rdb in -dir: a tool that starts such a
	// server passes -save "" unless it wants the file.
	FlagSave
)

// Info is one chapter with a server, as the tools see it.
type Info struct {
	ID      string // "ch07"
	Num     int    // 7
	Dir     string // "ch07_basic"
	Title   string
	Section string // where in the book it comes from
	// Protocols are what its listeners speak: first the one on -addr,
	// then any other (RESP on -resp-addr, ch21 on).
	Protocols []Protocol
	Features  Feature
	Flags     Flag
}

// Protocol is what the chapter's server speaks on -addr.
func (c *Info) Protocol() Protocol { return c.Protocols[0] }

// Newest is the protocol the chapter adds, the one its own conformance
// stage checks: ch21's is RESP.
func (c *Info) Newest() Protocol { return c.Protocols[len(c.Protocols)-1] }

// Has reports whether the chapter's server has every feature in f.
func (c *Info) Has(f Feature) bool { return c.Features&f == f }

// HasFlag reports whether the chapter's server takes flag f.
func (c *Info) HasFlag(f Flag) bool { return c.Flags&f == f }

// LastBookChapter is the book's final chapter; later chapters go beyond it.
const LastBookChapter = 14

// Beyond reports whether chapter number num goes beyond the book.
func Beyond(num int) bool { return num > LastBookChapter }

const (
	ser      = Keys | KeysOrder
	zs       = ser | ZSet
	timers   = zs | IdleTimer
	ttl      = timers | TTL
	pool     = ttl | ThreadPool
	hard     = pool | Hardened
	fields   = hard | FieldTTL
	loop     = fields | OutputBound
	perf     = loop&^KeysOrder | SeededHash
	resp2    = perf | RESPListener
	bounds   = resp2 | RESPBounds
	shake    = bounds | RESPHandshake
	resp     = shake | RESPCommands
	scan     = resp | Scan
	tx       = scan | Transactions
	strs     = tx | StringOpts
	bits     = strs | BitsLCS
	keycmds  = bits | KeyCommands
	hashcmd  = keycmds | HashCommands
	zranges  = hashcmd | ZRanges
	zalg     = zranges | ZAlgebra
	aof      = zalg | AppendOnly
	rdb      = aof | RDBFile
	bgsave   = rdb | Snapshots
	rewrite  = bgsave | AOFRewrite
	lists    = rewrite | Lists
	blocking = lists | Blocking
	addr     = FlagAddr
	idle     = addr | FlagIdleTimeout
	logConn  = idle | FlagLogConns
)

// registry is every chapter with a server, in book order. A new chapter
// joins here; the tools that run chapters' servers (tools/conform, the
// hostile-client tests, the cross-chapter suites) read this list.
var registry = []*Info{
	{ID: "ch03", Num: 3, Dir: "ch03_hello", Title: "hello server/client", Section: "03. Hello Server/Client", Protocols: []Protocol{Hello}, Flags: addr},
	{ID: "ch04", Num: 4, Dir: "ch04_protocol", Title: "length-prefixed messages", Section: "04. Protocol Parsing", Protocols: []Protocol{World}, Flags: addr},
	{ID: "ch06", Num: 6, Dir: "ch06_eventloop", Title: "the event loop", Section: "06. The Event Loop Implementation", Protocols: []Protocol{Echo}, Flags: addr},
	{ID: "ch07", Num: 7, Dir: "ch07_basic", Title: "get, set, del", Section: "07. Basic Server: get, set, del", Protocols: []Protocol{Status}, Flags: addr},
	{ID: "ch08", Num: 8, Dir: "ch08_hashtable", Title: "the hashtable", Section: "08. Data Structure: Hashtables", Protocols: []Protocol{Status}, Flags: addr},
	{ID: "ch09", Num: 9, Dir: "ch09_serialize", Title: "serialized replies", Section: "09. Data Serialization", Protocols: []Protocol{Tagged9}, Features: ser, Flags: addr},
	{ID: "ch10", Num: 10, Dir: "ch10_avl", Title: "the AVL tree (no wire change)", Section: "10. The AVL Tree: Implementation & Testing", Protocols: []Protocol{Tagged9}, Features: ser, Flags: addr},
	{ID: "ch11", Num: 11, Dir: "ch11_zset", Title: "sorted sets", Section: "11. The AVL Tree and the Sorted Set", Protocols: []Protocol{Tagged11}, Features: zs, Flags: addr},
	{ID: "ch12", Num: 12, Dir: "ch12_timers", Title: "idle timers", Section: "12. The Event Loop and Timers", Protocols: []Protocol{Tagged11}, Features: timers, Flags: idle},
	{ID: "ch13", Num: 13, Dir: "ch13_heap_ttl", Title: "key TTLs", Section: "13. The Heap Data Structure and the TTL", Protocols: []Protocol{Tagged11}, Features: ttl, Flags: idle},
	{ID: "ch14", Num: 14, Dir: "ch14_threadpool", Title: "the thread pool", Section: "14. The Thread Pool & Asynchronous Tasks", Protocols: []Protocol{Tagged11}, Features: pool, Flags: idle},
	{ID: "ch15", Num: 15, Dir: "ch15_hardening", Title: "beyond the book: a server hardened against its surroundings", Section: "beyond the book: what the book's server does not survive (ch15_hardening/README.md)", Protocols: []Protocol{Tagged11}, Features: hard, Flags: idle},
	{ID: "ch16", Num: 16, Dir: "ch16_field_ttl", Title: "beyond the book: hash fields with TTLs", Section: "beyond the book: the Valkey RFC on hash field TTLs (ch16_field_ttl/README.md)", Protocols: []Protocol{Tagged11}, Features: fields, Flags: idle},
	{ID: "ch17", Num: 17, Dir: "ch17_syscalls", Title: "beyond the book: the event loop's system calls", Section: "beyond the book: the book's chapter 06 exercises, epoll, batched reads and writes (ch17_syscalls/README.md)", Protocols: []Protocol{Tagged11}, Features: loop, Flags: logConn},
	{ID: "ch18", Num: 18, Dir: "ch18_performance", Title: "beyond the book: performance", Section: "beyond the book: what a request costs in CPU and memory (ch18_performance/README.md)", Protocols: []Protocol{Tagged11}, Features: perf, Flags: logConn},
	{ID: "ch19", Num: 19, Dir: "ch19_interfaces", Title: "beyond the book: the reply writer and the framing as interfaces", Section: "beyond the book: the reply writer and the connection's framing as interfaces (ch19_interfaces/README.md)", Protocols: []Protocol{Tagged11}, Features: perf, Flags: logConn},
	{ID: "ch20", Num: 20, Dir: "ch20_cmdtable", Title: "beyond the book: the command table", Section: "beyond the book: the command table, one row per command (ch20_cmdtable/README.md)", Protocols: []Protocol{Tagged11}, Features: perf, Flags: logConn},
	{ID: "ch21", Num: 21, Dir: "ch21_resp2", Title: "beyond the book: Redis's protocol", Section: "beyond the book: RESP2, Redis's protocol, on a second listener (ch21_resp2/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: resp2, Flags: logConn | FlagRESPAddr},
	{ID: "ch22", Num: 22, Dir: "ch22_resp_bounds", Title: "beyond the book: the RESP listener's bounds", Section: "beyond the book: RESP requests and replies of any size, within bounds (ch22_resp_bounds/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: bounds, Flags: logConn | FlagRESPAddr},
	{ID: "ch23", Num: 23, Dir: "ch23_handshake", Title: "beyond the book: RESP3 and Redis's handshake", Section: "beyond the book: RESP3, HELLO and the commands clients send on connecting (ch23_handshake/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: shake, Flags: logConn | FlagRESPAddr},
	{ID: "ch24", Num: 24, Dir: "ch24_redis_commands", Title: "beyond the book: Redis's commands over RESP", Section: "beyond the book: Redis's commands for keys, strings, sorted sets and hashes, with their options (ch24_redis_commands/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: resp, Flags: logConn | FlagRESPAddr},
	{ID: "ch25", Num: 25, Dir: "ch25_scan", Title: "beyond the book: SCAN's cursor", Section: "beyond the book: SCAN, a cursor that survives the key table's resizes (ch25_scan/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: scan, Flags: logConn | FlagRESPAddr},
	{ID: "ch26", Num: 26, Dir: "ch26_transactions", Title: "beyond the book: transactions", Section: "beyond the book: MULTI, EXEC and WATCH, and INFO (ch26_transactions/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: tx, Flags: logConn | FlagRESPAddr},
	{ID: "ch27", Num: 27, Dir: "ch27_strings", Title: "beyond the book: the string family's grammar", Section: "beyond the book: SET's options and the string commands that share them (ch27_strings/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: strs, Flags: logConn | FlagRESPAddr},
	{ID: "ch28", Num: 28, Dir: "ch28_bits", Title: "beyond the book: bits and LCS", Section: "beyond the book: the bit commands and LCS, bounded (ch28_bits/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: bits, Flags: logConn | FlagRESPAddr},
	{ID: "ch29", Num: 29, Dir: "ch29_keys", Title: "beyond the book: the key commands", Section: "beyond the book: Redis's generic key commands, OBJECT and INFO's stats (ch29_keys/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: keycmds, Flags: logConn | FlagRESPAddr},
	{ID: "ch30", Num: 30, Dir: "ch30_hashes", Title: "beyond the book: the hash commands", Section: "beyond the book: the rest of Redis's hash commands, HSCAN's order, and the sorted sets' ranks (ch30_hashes/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: hashcmd, Flags: logConn | FlagRESPAddr},
	{ID: "ch31", Num: 31, Dir: "ch31_zranges", Title: "beyond the book: sorted sets, every range", Section: "beyond the book: the sorted sets' ranges and pops (ch31_zranges/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: zranges, Flags: logConn | FlagRESPAddr},
	{ID: "ch32", Num: 32, Dir: "ch32_zalgebra", Title: "beyond the book: sorted sets, the set algebra", Section: "beyond the book: the set algebra, ZRANDMEMBER and ZSCAN (ch32_zalgebra/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: zalg, Flags: logConn | FlagRESPAddr},
	{ID: "ch33", Num: 33, Dir: "ch33_aof", Title: "beyond the book: the append-only file", Section: "beyond the book: the append-only file (ch33_aof/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: aof, Flags: logConn | FlagRESPAddr},
	{ID: "ch34", Num: 34, Dir: "ch34_rdb", Title: "beyond the book: RDB files", Section: "beyond the book: RDB files, written by SAVE and loaded at start (ch34_rdb/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: rdb, Flags: logConn | FlagRESPAddr},
	{ID: "ch35", Num: 35, Dir: "ch35_bgsave", Title: "beyond the book: snapshots without fork", Section: "beyond the book: BGSAVE without fork, and the save rules (ch35_bgsave/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: bgsave, Flags: logConn | FlagRESPAddr | FlagSave},
	{ID: "ch36", Num: 36, Dir: "ch36_aof_rewrite", Title: "beyond the book: the log rewritten", Section: "beyond the book: the append-only file rewritten from a snapshot (ch36_aof_rewrite/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: rewrite, Flags: logConn | FlagRESPAddr | FlagSave},
	{ID: "ch37", Num: 37, Dir: "ch37_lists", Title: "beyond the book: lists", Section: "beyond the book: lists, kept as Redis 7.0 keeps them, and their commands (ch37_lists/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: lists, Flags: logConn | FlagRESPAddr | FlagSave},
	{ID: "ch38", Num: 38, Dir: "ch38_blocking", Title: "beyond the book: blocking pops", Section: "beyond the book: a client that waits for a key, BLPOP and kin (ch38_blocking/README.md)", Protocols: []Protocol{Tagged11, RESP}, Features: blocking, Flags: logConn | FlagRESPAddr | FlagSave},
}

// All returns every chapter with a server, in book order.
func All() []*Info { return registry }

// ByID returns the chapter "chNN", or nil.
func ByID(id string) *Info { return find(func(c *Info) bool { return c.ID == id }) }

// ByDir returns the chapter in directory dir ("ch07_basic"), or nil.
func ByDir(dir string) *Info { return find(func(c *Info) bool { return c.Dir == dir }) }

// find returns the first chapter that matches, or nil.
func find(match func(*Info) bool) *Info {
	if i := slices.IndexFunc(registry, match); i >= 0 {
		return registry[i]
	}
	return nil
}

// From returns the chapters numbered n or later, in book order.
func From(n int) []*Info {
	var out []*Info
	for _, c := range registry {
		if c.Num >= n {
			out = append(out, c)
		}
	}
	return out
}

// Dirs returns the directories of every chapter with a server, in book
// order.
func Dirs() []string {
	var out []string
	for _, c := range registry {
		out = append(out, c.Dir)
	}
	return out
}
