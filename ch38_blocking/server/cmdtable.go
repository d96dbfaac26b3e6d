package server

import "sort"

// The command table: one row per command, for both listeners. A command's
// facts (its name, its arity, what it does to the key space, where its
// keys are, the functions that run it) are written once, here, and every
// part of the server that needs one reads it from the row: the RESP
// listener's dispatch (respDo) and COMMAND, and the book's listener's
// dispatch (bookRequest). Nothing else compares a command's name.

// cmdFlags are a command's flags: those Redis's COMMAND INFO reports,
// with Redis's names (cmdFlagNames), and the server's own, which COMMAND
// does not show.
type cmdFlags uint32

// Flags as Redis 7.0's COMMAND INFO reports them.
const (
	flagWrite       cmdFlags = 1 << iota // may change the key space
	flagReadonly                         // only reads it
	flagDenyOOM                          // may grow memory use
	flagAdmin                            // administrative
	flagNoScript                         // not allowed in scripts
	flagLoading                          // allowed while loading data
	flagStale                            // allowed on a stale replica
	flagSkipSlowlog                      // not logged in the slow log
	flagFast                             // O(1) or O(log n)
	flagNoAuth                           // allowed before AUTH
	flagAllowBusy                        // allowed while a script runs
	flagMovableKeys                      // keys found by an argument (numkeys)

	// The server's own flags, after Redis's.

	// flagNoQueue: inside MULTI the command runs at once rather than
	// being queued (MULTI, EXEC, DISCARD, WATCH, QUIT, as in Redis).
	flagNoQueue
	// flagQuit: the connection stops reading once the reply is sent.
	flagQuit

	// Two more of Redis's, after the server's own.
	flagNoAsyncLoading // not allowed while loading data in the background
	flagNoMulti        // not allowed inside MULTI: the transaction fails
	flagBlocking       // may park the client until a key holds a value (blocking.go)
)

// cmdFlagNames are the names COMMAND gives Redis's flags, in its order.
var cmdFlagNames = []struct {
	flag cmdFlags
	name string
}{
	{flagWrite, "write"},
	{flagReadonly, "readonly"},
	{flagDenyOOM, "denyoom"},
	{flagAdmin, "admin"},
	{flagNoScript, "noscript"},
	{flagBlocking, "blocking"},
	{flagLoading, "loading"},
	{flagStale, "stale"},
	{flagSkipSlowlog, "skip_slowlog"},
	{flagFast, "fast"},
	{flagNoAuth, "no_auth"},
	{flagNoAsyncLoading, "no_async_loading"},
	{flagNoMulti, "no_multi"},
	{flagAllowBusy, "allow_busy"},
	{flagMovableKeys, "movablekeys"},
}

// Flags many rows share.
const (
	// A command about the connection, which Redis allows at any time
	// (while loading, on a stale replica, during a script).
	flagsConn = flagNoScript | flagLoading | flagStale | flagFast | flagAllowBusy
	// A read in O(1) or O(log n).
	flagsRead = flagReadonly | flagFast
	// CLIENT's and CONFIG's subcommands.
	flagsClient = flagNoScript | flagLoading | flagStale
	flagsConfig = flagAdmin | flagNoScript | flagLoading | flagStale
)

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
	// first, last and step are where the keys are, as COMMAND reports
	// them: the first key's position, the last's (negative counts from
	// the end), and the step between keys; 0 for none.
	first, last, step int
	// resp runs the command on the RESP listener; nil for a command only
	// the book's protocol has, which COMMAND does not list.
	resp respHandler
	// book runs the command on the book's listener, when given from
	// bookMin to bookMax arguments (the name included; bookMax 0 for no
	// limit); nil for a command only RESP has.
	book             bookHandler
	bookMin, bookMax int
	// refused answers the command refused before it runs (a wrong number
	// of arguments), given the error; nil for the error as it is, which
	// dooms the transaction if there is one.
	refused func(st *respState, w *respWriter, err string)
	// subs are the subcommands of a container command (CLIENT, CONFIG,
	// COMMAND), each a row of its own named container|sub, as Redis 7
	// has them: the first argument chooses one, whose arity, flags and
	// handler apply. A container's own handler, if any, runs it alone.
	subs []*command
	// cost bounds, for EXEC, the work the command may do besides its
	// arguments and its reply's bytes, and notes what it may add to the
	// data (see resp_cost.go); nil for none.
	cost func(p *execPlan, args [][]byte) int
	// aof is how the append-only file records the command, if not as
	// given (aof_rules.go).
	aof *aofRule
}

// commands holds the table's rows by name, and subcommands the rows of
// the containers' subcommands by their full name (container|sub).
var (
	commands    = map[string]*command{}
	subcommands = map[string]*command{}
)

func init() {
	for _, c := range commandRows() {
		commands[c.name] = c
		for _, sub := range c.subs {
			subcommands[sub.name] = sub
		}
	}
}

// commandRows returns the table. The handlers live in files named for
// what they work on: cmd_connection.go, cmd_keys.go, cmd_string.go,
// cmd_zset.go, cmd_hash.go and cmd_server.go for RESP, cmd_multi.go
// for transactions, commands.go and hashcmds.go for the book's protocol,
// cmd_keys_scan.go for SCAN on both, cmd_list.go for lists.
func commandRows() []*command {
	rows := []*command{
		// What clients and tools send when they connect.
		{name: "ping", arity: -1, flags: flagFast, resp: respPing},
		{name: "echo", arity: 2, flags: flagLoading | flagStale | flagFast, resp: respEcho},
		{name: "hello", arity: -1, flags: flagsConn | flagNoAuth, resp: respHello},
		{name: "auth", arity: -2, flags: flagsConn | flagNoAuth, resp: respAuth},
		{name: "client", arity: -2, subs: []*command{
			{name: "client|getname", arity: 2, flags: flagsClient, resp: respClientGetName},
			{name: "client|id", arity: 2, flags: flagsClient, resp: respClientID},
			{name: "client|info", arity: 2, flags: flagsClient, resp: respClientInfo},
			{name: "client|list", arity: -2, flags: flagAdmin | flagsClient, resp: respClientList},
			{name: "client|setinfo", arity: 4, flags: flagsClient, resp: respClientSetInfo},
			{name: "client|setname", arity: 3, flags: flagsClient, resp: respClientSetName},
			{name: "client|unblock", arity: -3, flags: flagAdmin | flagsClient, resp: respClientUnblock},
		}},
		{name: "command", arity: -1, flags: flagLoading | flagStale, resp: respCommandCmd, cost: costCommand, subs: []*command{
			{name: "command|count", arity: 2, flags: flagLoading | flagStale, resp: respCommandCount, cost: costCommand},
			{name: "command|docs", arity: -2, flags: flagLoading | flagStale, resp: respCommandDocs},
			{name: "command|info", arity: -2, flags: flagLoading | flagStale, resp: respCommandInfoCmd},
			{name: "command|list", arity: -2, flags: flagLoading | flagStale, resp: respCommandList, cost: costCommand},
		}},
		{name: "select", arity: 2, flags: flagLoading | flagStale | flagFast, resp: respSelect},
		{name: "quit", arity: -1, flags: flagsConn | flagNoAuth | flagNoQueue | flagQuit, resp: respQuit},
		{name: "config", arity: -2, subs: []*command{
			{name: "config|get", arity: -3, flags: flagsConfig, resp: respConfigGet, cost: costConfig},
			{name: "config|resetstat", arity: 2, flags: flagsConfig, resp: respConfigResetStat},
			{name: "config|rewrite", arity: 2, flags: flagsConfig, resp: respConfigUnsupported},
			{name: "config|set", arity: -4, flags: flagsConfig, resp: respConfigSetCmd},
		}},
		{name: "multi", arity: 1, flags: flagsConn | flagNoQueue, resp: respMulti},
		{name: "exec", arity: 1, flags: flagNoScript | flagLoading | flagStale | flagSkipSlowlog | flagNoQueue, resp: respExec,
			refused: respExecAbort}, // as Redis: the transaction goes
		{name: "discard", arity: 1, flags: flagsConn | flagNoQueue, resp: respDiscard},
		{name: "info", arity: -1, flags: flagLoading | flagStale, resp: respInfo, cost: costInfo},
		{name: "watch", arity: -2, flags: flagsConn | flagNoQueue, first: 1, last: -1, step: 1, resp: respWatch},
		{name: "unwatch", arity: 1, flags: flagsConn, resp: respUnwatch},
		// The key space.
		{name: "dbsize", arity: 1, flags: flagsRead, resp: respDBSize},
		{name: "flushall", arity: -1, flags: flagWrite, resp: respFlushAll, cost: costFlush, aof: ruleWhole},
		{name: "flushdb", arity: -1, flags: flagWrite, resp: respFlushAll, cost: costFlush, aof: ruleWhole},
		{name: "exists", arity: -2, flags: flagsRead, first: 1, last: -1, step: 1, resp: respExists},
		{name: "del", arity: -2, flags: flagWrite, first: 1, last: -1, step: 1, resp: respDel,
			book: doDel, bookMin: 2, bookMax: 2, cost: costDel},
		{name: "unlink", arity: -2, flags: flagWrite | flagFast, first: 1, last: -1, step: 1, resp: respDel, cost: costDel},
		{name: "keys", arity: 2, flags: flagReadonly, resp: respKeys,
			book: doKeys, bookMin: 1, bookMax: 1, cost: costKeys}, // the book's lists them all
		{name: "scan", arity: -2, flags: flagReadonly, resp: respScan,
			book: doScan, bookMin: 2, bookMax: 3, cost: costScan},
		{name: "expire", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respExpireIn(1000), cost: costExpire, aof: ruleKeyTTL},
		{name: "pexpire", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respExpireIn(1),
			book: doExpire, bookMin: 3, bookMax: 3, cost: costExpire, aof: ruleKeyTTL},
		{name: "ttl", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respTTLIn(1000)},
		{name: "pttl", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respTTLIn(1),
			book: doTTL, bookMin: 2, bookMax: 2},
		{name: "persist", arity: 2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respPersist},
		{name: "type", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respType,
			book: doType, bookMin: 2, bookMax: 2}, // beyond the book
		{name: "expireat", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respExpireAtIn(1000), cost: costExpire, aof: ruleKeyTTLRESP},
		{name: "pexpireat", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respExpireAtIn(1), cost: costExpire, aof: ruleKeyTTLRESP},
		{name: "expiretime", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respExpireTimeIn(1000)},
		{name: "pexpiretime", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respExpireTimeIn(1)},
		{name: "touch", arity: -2, flags: flagsRead, first: 1, last: -1, step: 1, resp: respExists},
		{name: "rename", arity: 3, flags: flagWrite, first: 1, last: 2, step: 1, resp: respRename(false), cost: costRename},
		{name: "renamenx", arity: 3, flags: flagWrite | flagFast, first: 1, last: 2, step: 1, resp: respRename(true), cost: costRename},
		{name: "copy", arity: -3, flags: flagWrite | flagDenyOOM, first: 1, last: 2, step: 1, resp: respCopy, cost: costCopy},
		{name: "randomkey", arity: 1, flags: flagReadonly, resp: respRandomKey, cost: costRandomKey},
		{name: "time", arity: 1, flags: flagLoading | flagStale | flagFast, resp: respTime},
		{name: "swapdb", arity: 3, flags: flagWrite | flagFast, resp: respSwapDB},
		{name: "move", arity: 3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respMove},
		{name: "object", arity: -2, subs: []*command{
			{name: "object|encoding", arity: 3, flags: flagReadonly, first: 2, last: 2, step: 1, resp: respObjectEncoding},
			{name: "object|freq", arity: 3, flags: flagReadonly, first: 2, last: 2, step: 1, resp: respObjectFreq},
			{name: "object|help", arity: 2, flags: flagLoading | flagStale, resp: respObjectHelp},
			{name: "object|idletime", arity: 3, flags: flagReadonly, first: 2, last: 2, step: 1, resp: respObjectIdleTime},
			{name: "object|refcount", arity: 3, flags: flagReadonly, first: 2, last: 2, step: 1, resp: respObjectRefCount},
		}},
		// (SAVE, SHUTDOWN and the other persistence commands are
		// snapshot.go's rows, appended below.)
		{name: "memory", arity: -2, subs: []*command{
			{name: "memory|usage", arity: -3, flags: flagReadonly, first: 2, last: 2, step: 1, resp: respMemoryUsage, cost: costMemoryUsage},
		}},
		// Strings.
		{name: "get", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respGet,
			book: doGet, bookMin: 2, bookMax: 2},
		{name: "set", arity: -3, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respSet,
			book: doSet, bookMin: 3, bookMax: 3, cost: costSet, aof: ruleString},
		{name: "incr", arity: 2, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respIncrBy(+1, false), cost: costIncr},
		{name: "decr", arity: 2, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respIncrBy(-1, false), cost: costIncr},
		{name: "incrby", arity: 3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respIncrBy(+1, true), cost: costIncr},
		{name: "decrby", arity: 3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respIncrBy(-1, true), cost: costIncr},
		{name: "mget", arity: -2, flags: flagsRead, first: 1, last: -1, step: 1, resp: respMGet},
		{name: "mset", arity: -3, flags: flagWrite | flagDenyOOM, first: 1, last: -1, step: 2, resp: respMSet, cost: costMSet},
		{name: "strlen", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respStrlen},
		{name: "append", arity: 3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respAppend, cost: costAppend},
		{name: "setex", arity: 4, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respSetEx(expEX), cost: costSetAt(3), aof: ruleStringRESP},
		{name: "psetex", arity: 4, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respSetEx(expPX), cost: costSetAt(3), aof: ruleStringRESP},
		{name: "setnx", arity: 3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respSetNX, cost: costSetAt(2)},
		{name: "getset", arity: 3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respGetSet, cost: costSetAt(2)},
		{name: "getdel", arity: 2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respGetDel, aof: ruleStringRESP},
		{name: "getex", arity: -2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respGetEx, aof: ruleKeyTTLRESP},
		{name: "getrange", arity: 4, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respGetRange},
		{name: "substr", arity: 4, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respGetRange},
		{name: "setrange", arity: 4, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respSetRange, cost: costSetRange},
		{name: "msetnx", arity: -3, flags: flagWrite | flagDenyOOM, first: 1, last: -1, step: 2, resp: respMSetNX, cost: costMSet},
		{name: "incrbyfloat", arity: 3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respIncrByFloat, cost: costIncrFloat, aof: ruleStringRESP},
		{name: "lcs", arity: -3, flags: flagReadonly, first: 1, last: 2, step: 1, resp: respLCS, cost: costLCS},
		{name: "setbit", arity: 4, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respSetBit, cost: costSetBit},
		{name: "getbit", arity: 3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respGetBit},
		{name: "bitcount", arity: -2, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respBitCount, cost: costStringLen},
		{name: "bitpos", arity: -3, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respBitPos, cost: costStringLen},
		{name: "bitop", arity: -4, flags: flagWrite | flagDenyOOM, first: 2, last: -1, step: 1, resp: respBitOp, cost: costBitOp},
		// Sorted sets.
		{name: "zadd", arity: -4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respZAdd,
			book: doZAdd, bookMin: 4, bookMax: 4, cost: costGrowBy(2, 2), aof: ruleMembers},
		{name: "zrem", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respZRem,
			book: doZRem, bookMin: 3, bookMax: 3, cost: costMembers, aof: ruleMembers},
		{name: "zscore", arity: 3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respZScore,
			book: doZScore, bookMin: 3, bookMax: 3, cost: costMembers},
		{name: "zcard", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respZCard},
		zrangeRow("zrange", -4, flagReadonly, zrangeForm{}),
		zrangeRow("zrevrange", -4, flagReadonly, zrangeForm{by: zByRank, rev: true}),
		zrangeRow("zrangebyscore", -4, flagReadonly, zrangeForm{by: zByScore}),
		zrangeRow("zrevrangebyscore", -4, flagReadonly, zrangeForm{by: zByScore, rev: true}),
		zrangeRow("zrangebylex", -4, flagReadonly, zrangeForm{by: zByLex}),
		zrangeRow("zrevrangebylex", -4, flagReadonly, zrangeForm{by: zByLex, rev: true}),
		{name: "zrangestore", arity: -5, flags: flagWrite | flagDenyOOM, first: 1, last: 2, step: 1,
			resp: respZRangeOf(zrangeForm{store: true}), cost: zrangeCost(zrangeForm{store: true}, zcostStore)},
		{name: "zremrangebyrank", arity: 4, flags: flagWrite, first: 1, last: 1, step: 1,
			resp: respZRemRangeBy(zByRank), cost: zrangeCost(zrangeForm{by: zByRank}, zcostRemove)},
		{name: "zremrangebyscore", arity: 4, flags: flagWrite, first: 1, last: 1, step: 1,
			resp: respZRemRangeBy(zByScore), cost: zrangeCost(zrangeForm{by: zByScore}, zcostRemove)},
		{name: "zremrangebylex", arity: 4, flags: flagWrite, first: 1, last: 1, step: 1,
			resp: respZRemRangeBy(zByLex), cost: zrangeCost(zrangeForm{by: zByLex}, zcostRemove)},
		{name: "zrank", arity: 3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respZRankOf(false), cost: costMembers},
		{name: "zrevrank", arity: 3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respZRankOf(true), cost: costMembers},
		{name: "zcount", arity: 4, flags: flagsRead, first: 1, last: 1, step: 1,
			resp: respZCountBy(zByScore), cost: zrangeCost(zrangeForm{by: zByScore}, zcostCount)},
		{name: "zlexcount", arity: 4, flags: flagsRead, first: 1, last: 1, step: 1,
			resp: respZCountBy(zByLex), cost: zrangeCost(zrangeForm{by: zByLex}, zcostCount)},
		{name: "zincrby", arity: 4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respZIncrBy, cost: costGrowBy(3, 1)},
		{name: "zquery", book: doZQuery, bookMin: 6, bookMax: 6}, // the book's own
		// Pops, the set algebra, ZMSCORE, ZRANDMEMBER and ZSCAN.
		{name: "zpopmin", arity: -2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respZPopOf(false), cost: costZPop},
		{name: "zpopmax", arity: -2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respZPopOf(true), cost: costZPop},
		{name: "zmpop", arity: -4, flags: flagWrite | flagMovableKeys, resp: respZMPop, cost: costZMPop, aof: ruleBlockPop},
		{name: "bzpopmin", arity: -3, flags: flagWrite | flagNoScript | flagBlocking | flagFast, first: 1, last: -2, step: 1, resp: respBZPopOf(false), cost: costBZPop, aof: ruleBlockPop},
		{name: "bzpopmax", arity: -3, flags: flagWrite | flagNoScript | flagBlocking | flagFast, first: 1, last: -2, step: 1, resp: respBZPopOf(true), cost: costBZPop, aof: ruleBlockPop},
		{name: "bzmpop", arity: -5, flags: flagWrite | flagBlocking | flagMovableKeys, resp: respBZMPop, cost: costBZMPop, aof: ruleBlockPop},
		{name: "zunion", arity: -3, flags: flagReadonly | flagMovableKeys, resp: respZAlgebraOf(zalgUnion, false), cost: costZAlgebra(zalgUnion, false)},
		{name: "zinter", arity: -3, flags: flagReadonly | flagMovableKeys, resp: respZAlgebraOf(zalgInter, false), cost: costZAlgebra(zalgInter, false)},
		{name: "zdiff", arity: -3, flags: flagReadonly | flagMovableKeys, resp: respZAlgebraOf(zalgDiff, false), cost: costZAlgebra(zalgDiff, false)},
		{name: "zunionstore", arity: -4, flags: flagWrite | flagDenyOOM | flagMovableKeys, first: 1, last: 1, step: 1, resp: respZAlgebraOf(zalgUnion, true), cost: costZAlgebra(zalgUnion, true)},
		{name: "zinterstore", arity: -4, flags: flagWrite | flagDenyOOM | flagMovableKeys, first: 1, last: 1, step: 1, resp: respZAlgebraOf(zalgInter, true), cost: costZAlgebra(zalgInter, true)},
		{name: "zdiffstore", arity: -4, flags: flagWrite | flagDenyOOM | flagMovableKeys, first: 1, last: 1, step: 1, resp: respZAlgebraOf(zalgDiff, true), cost: costZAlgebra(zalgDiff, true)},
		{name: "zintercard", arity: -3, flags: flagReadonly | flagMovableKeys, resp: respZInterCard, cost: costZInterCard},
		{name: "zmscore", arity: -3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respZMScore, cost: costMembers},
		{name: "zrandmember", arity: -2, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respZRandMember, cost: costZRandMember},
		{name: "zscan", arity: -3, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respZScan, cost: costZScan},
		// Lists (cmd_list.go).
		{name: "lpush", arity: -3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respPushOf(true, false), cost: costListPush},
		{name: "rpush", arity: -3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respPushOf(false, false), cost: costListPush},
		{name: "lpushx", arity: -3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respPushOf(true, true), cost: costListPush},
		{name: "rpushx", arity: -3, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respPushOf(false, true), cost: costListPush},
		{name: "lpop", arity: -2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respPopOf(true), cost: costListWalk},
		{name: "rpop", arity: -2, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respPopOf(false), cost: costListWalk},
		{name: "llen", arity: 2, flags: flagsRead, first: 1, last: 1, step: 1, resp: respLLen},
		{name: "lrange", arity: 4, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respLRange, cost: costListWalk},
		{name: "lindex", arity: 3, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respLIndex, cost: costListWalk},
		{name: "lset", arity: 4, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respLSet, cost: costListWalk},
		{name: "linsert", arity: 5, flags: flagWrite | flagDenyOOM, first: 1, last: 1, step: 1, resp: respLInsert, cost: costListWalk},
		{name: "lrem", arity: 4, flags: flagWrite, first: 1, last: 1, step: 1, resp: respLRem, cost: costListWalk},
		{name: "ltrim", arity: 4, flags: flagWrite, first: 1, last: 1, step: 1, resp: respLTrim, cost: costListWalk},
		{name: "lpos", arity: -3, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respLPos, cost: costListWalk},
		{name: "lmove", arity: 5, flags: flagWrite | flagDenyOOM, first: 1, last: 2, step: 1, resp: respLMove, cost: costListMove},
		{name: "rpoplpush", arity: 3, flags: flagWrite | flagDenyOOM, first: 1, last: 2, step: 1, resp: respLMove, cost: costListMove},
		{name: "lmpop", arity: -4, flags: flagWrite | flagMovableKeys, resp: respLMPop, cost: costListMPop, aof: ruleBlockPop},
		// The blocking pops (cmd_list_bpop.go), logged as the pops they do.
		{name: "blpop", arity: -3, flags: flagWrite | flagNoScript | flagBlocking, first: 1, last: -2, step: 1, resp: respBLPopOf(true), cost: costBLPop, aof: ruleBlockPop},
		{name: "brpop", arity: -3, flags: flagWrite | flagNoScript | flagBlocking, first: 1, last: -2, step: 1, resp: respBLPopOf(false), cost: costBLPop, aof: ruleBlockPop},
		{name: "blmove", arity: 6, flags: flagWrite | flagDenyOOM | flagNoScript | flagBlocking, first: 1, last: 2, step: 1, resp: respBLMove, cost: costListMove, aof: ruleBlockPop},
		{name: "brpoplpush", arity: 4, flags: flagWrite | flagDenyOOM | flagNoScript | flagBlocking, first: 1, last: 2, step: 1, resp: respBLMove, cost: costListMove, aof: ruleBlockPop},
		{name: "blmpop", arity: -5, flags: flagWrite | flagBlocking | flagMovableKeys, resp: respBLMPop, cost: costBLMPop, aof: ruleBlockPop},
		// Hashes and their fields' TTLs (chapter 16), as Redis 7.4 has them.
		{name: "hset", arity: -4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respHSet,
			book: bookHSet, bookMin: 4, cost: costHashGrowBy(2, 2)},
		hashRow("hget", 3, flagsRead, doHGet, 3, 3),
		hashRow("hdel", -3, flagWrite|flagFast, doHDel, 3, 0),
		hashRow("hlen", 2, flagsRead, doHLen, 2, 2),
		hashRow("hexists", 3, flagsRead, doHExists, 3, 3),
		{name: "hgetall", arity: 2, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respHashList(hashNames | hashValues),
			book: bookHash(doHGetAll), bookMin: 2, bookMax: 2, cost: costWalk},
		hashRow("hexpire", -6, flagWrite|flagFast, doHExpireIn(1000, false), 3, 0).logged(ruleFieldTTLs),
		hashRow("hpexpire", -6, flagWrite|flagFast, doHExpireIn(1, false), 3, 0).logged(ruleFieldTTLs),
		hashRow("hexpireat", -6, flagWrite|flagFast, doHExpireIn(1000, true), 3, 0),
		hashRow("hpexpireat", -6, flagWrite|flagFast, doHExpireIn(1, true), 3, 0),
		hashRow("hpersist", -5, flagWrite|flagFast, doHPersist, 3, 0),
		hashRow("httl", -5, flagsRead, doHTTLIn(1000, false), 3, 0),
		hashRow("hpttl", -5, flagsRead, doHTTLIn(1, false), 3, 0),
		hashRow("hexpiretime", -5, flagsRead, doHTTLIn(1000, true), 3, 0),
		hashRow("hpexpiretime", -5, flagsRead, doHTTLIn(1, true), 3, 0),
		{name: "hmget", arity: -3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respHMGet, cost: costHash},
		{name: "hincrby", arity: 4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respHIncrBy, cost: costHashGrowBy(3, 1)},
		{name: "hkeys", arity: 2, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respHashList(hashNames), cost: costWalk},
		{name: "hvals", arity: 2, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respHashList(hashValues), cost: costWalk},
		hashRow("hsetex", -6, flagWrite|flagDenyOOM|flagFast, doHSetEx, 3, 0).logged(ruleFieldPairs).withCost(costHSetEx),
		hashRow("hgetex", -5, flagWrite|flagFast, doHGetEx, 3, 0).logged(ruleFieldTTLs),
		{name: "hmset", arity: -4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respHMSet, cost: costHashGrowBy(2, 2)},
		{name: "hsetnx", arity: 4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respHSetNX, cost: costHashGrowBy(3, 1)},
		{name: "hstrlen", arity: 3, flags: flagsRead, first: 1, last: 1, step: 1, resp: respHStrLen, cost: costHash},
		{name: "hincrbyfloat", arity: 4, flags: flagWrite | flagDenyOOM | flagFast, first: 1, last: 1, step: 1, resp: respHIncrByFloat, cost: costHIncrByFloat, aof: ruleField},
		{name: "hrandfield", arity: -2, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respHRandField, cost: costHRandField},
		{name: "hscan", arity: -3, flags: flagReadonly, first: 1, last: 1, step: 1, resp: respHScan, cost: costHScan},
	}
	return append(rows, snapshotRows()...) // snapshot.go
}

// hashRow is the row of a hash command that both listeners run with the
// same function (chapter 16's, which already has Redis's semantics): its
// one key is the first argument, and it may drop the hash (costHash).
func hashRow(name string, arity int, flags cmdFlags, fn func(cmd []string, w replyWriter), bookMin, bookMax int) *command {
	return &command{name: name, arity: arity, flags: flags, first: 1, last: 1, step: 1,
		resp: respHash(fn), book: bookHash(fn), bookMin: bookMin, bookMax: bookMax, cost: costHash}
}

// withCost sets the row's cost function.
func (c *command) withCost(cost func(p *execPlan, args [][]byte) int) *command {
	c.cost = cost
	return c
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

// lookupSubcommand finds the subcommand sub of the container c, in any
// case, or returns nil.
func (c *command) lookupSubcommand(sub []byte) *command {
	var full [32]byte
	if len(c.name)+1+len(sub) > len(full) {
		return nil
	}
	n := copy(full[:], c.name)
	full[n] = '|'
	for i, b := range sub {
		full[n+1+i] = asciiLower(b)
	}
	return subcommands[string(full[:n+1+len(sub)])]
}

// lookupSubcommandName finds a subcommand by its full name
// (container|sub, in any case), or returns nil.
func lookupSubcommandName(name []byte) *command {
	for i, b := range name {
		if b == '|' {
			if c := respLookup(name[:i]); c != nil {
				return c.lookupSubcommand(name[i+1:])
			}
			break
		}
	}
	return nil
}

// onRESP reports whether the RESP listener has the command: COMMAND
// lists it.
func (c *command) onRESP() bool { return c.resp != nil || c.subs != nil }

// respCommandNames returns the names of the commands of the RESP
// listener, sorted: those COMMAND lists.
func respCommandNames() []string {
	var names []string
	for name, c := range commands {
		if c.onRESP() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// respLookup finds the RESP listener's command named name, or returns nil.
func respLookup(name []byte) *command {
	if c := lookupCommand(name); c != nil && c.onRESP() {
		return c
	}
	return nil
}

// arityOK reports whether n arguments (the name included) suit an arity
// as Redis writes it.
func arityOK(arity, n int) bool {
	return arity > 0 && n == arity || arity < 0 && n >= -arity
}
