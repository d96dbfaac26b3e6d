// Package server is chapter 37's server: chapter 36's, with lists, kept
// as nodes of packed elements linked both ways (package quicklist).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
//
// # Floor plan
//
// Every file of the package, by what it holds (floorplan_test.go checks
// that the list and the directory agree).
//
// The loop and its clients:
//   - server.go: Main, its flags, the signals, and the event loop (serve):
//     epoll, then timers, then each ready connection.
//   - accept.go: accepting connections, maxclients, and the pause when
//     accept runs out of descriptors.
//   - conn.go: a connection of either protocol, its states and buffers,
//     and serveRequests, which bounds each connection's turn.
//   - clientmem.go: the one memory budget of all that clients make the
//     server hold, and who is closed when it runs out.
//   - work.go: the work meter that every command charges as it goes.
//   - timers.go: the clocks, idle connections, and the loop's timers.
//   - warm.go: bringing a pipeline's keys into the cache before it runs.
//   - log.go: the server's own log lines, which never block the loop.
//   - stats.go: the counters INFO reports.
//
// The framing of each protocol:
//   - reply.go: replyWriter, the replies a command writes in either
//     protocol, and the book's binary framing of them.
//   - resp_conn.go: the RESP listener and its connections' requests, with
//     large arguments read in steps.
//   - resp_reply.go: respWriter, RESP2 and RESP3 replies grown within the
//     budget.
//
// One path for every request:
//   - call.go: a request from either listener or from EXEC: the row, its
//     arity, the refusals, queueing under MULTI or running, and then the
//     hooks (snapshot, log, stats) once.
//   - cmdtable.go: the command table, one row per command with all of its
//     facts (arity, flags, keys, handlers, cost, how it is logged).
//   - args.go: numbers in arguments, read as Redis reads them.
//   - resp_cost.go: what a command may cost, from its row, which EXEC
//     weighs before it runs a transaction.
//
// The key space:
//   - db.go: the table of keys, its entries and values, and the functions
//     through which every command finds, adds and removes a key.
//   - watch.go: WATCH's view of changed keys (touchKey).
//   - blocking.go: clients parked by a blocking pop until a key they wait
//     on is created (package waitq holds the queues), their timeouts,
//     CLIENT UNBLOCK.
//
// The commands, by Redis's command groups:
//   - commands.go: the book's commands (get, set, del, keys, zadd, zrem,
//     zscore, zquery, pexpire, pttl), which answer on both listeners.
//   - hashcmds.go: the hash commands with fields' own TTLs (HSET, HGET,
//     HEXPIRE, HTTL, HPERSIST, ...), on both listeners, and each hash's
//     timer.
//   - cmd_string.go, cmd_string_set.go (SET and its options),
//     cmd_string_incrfloat.go, cmd_string_range.go, cmd_string_lcs.go,
//     cmd_string_cost.go: strings.
//   - cmd_bitmap.go: bits of strings (SETBIT, BITCOUNT, BITPOS, BITOP).
//   - cmd_keys.go, cmd_keys_move.go (RENAME, COPY, MOVE, ...),
//     cmd_keys_object.go (OBJECT, MEMORY), cmd_keys_scan.go (SCAN): keys.
//   - cmd_hash.go, cmd_hash_scan.go (HSCAN, HRANDFIELD), cmd_hash_cost.go:
//     hashes on the RESP listener.
//   - cmd_zset.go, cmd_zset_range.go, cmd_zset_pop.go, cmd_zset_bpop.go,
//     cmd_zset_algebra.go, cmd_zset_rand.go, cmd_zset_scan.go: sorted sets.
//   - cmd_list.go: lists (LPUSH, LRANGE, LMOVE, ...); cmd_list_bpop.go:
//     the blocking pops of lists (BLPOP, BLMOVE, BLMPOP) and LMPOP.
//   - cmd_multi.go: MULTI, EXEC, DISCARD, WATCH.
//   - cmd_connection.go: PING, HELLO, AUTH, CLIENT, ...
//   - cmd_server.go: INFO and TYPE.
//   - floatfmt.go: long doubles, read and written as Redis does.
//
// Persistence:
//   - aof.go: the append-only log, written before the replies that need
//     it; aof_fsync.go, aof_sync_linux.go, aof_sync_other.go: its fsync.
//   - aof_rules.go: how a command whose effect depends on when it ran is
//     logged.
//   - aof_load.go: replaying the log at start.
//   - aof_rewrite.go: BGREWRITEAOF, the log rewritten from a snapshot.
//   - snapshot.go: the key space as at one instant, walked a step per turn,
//     without fork.
//   - rdb_write.go: the RDB encoder, SAVE, BGSAVE and the save rules;
//     rdb_load.go: reading an RDB file; crc64.go: its checksum.
package server
