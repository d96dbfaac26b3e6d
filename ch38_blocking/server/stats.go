package server

import (
	"bytes"
	"sort"
	"time"

	"example.com/byor/ch38_blocking/hashes"
)

// gStats holds the counters INFO reports. Each is a plain integer that
// the event loop bumps where the event happens: no lock (there is one
// thread), no allocation.
var gStats struct {
	connsReceived int64 // connections accepted, on either listener
	connsOpen     int64 // connections open now
	commands      int64 // requests answered, on either listener
	expiredKeys   int64 // keys removed because their TTL was due
	errorReplies  int64 // error replies of the RESP listener
	// Samples of commands for instantaneous_ops_per_sec (see opsPerSec).
	opsAt    time.Time
	opsCount int64
	opsRates [kOpsSamples]float64
	opsNext  int
}

// cmdStat is what INFO's commandstats reports of one command or
// subcommand of the RESP listener: the times it ran, the microseconds it
// took (a transaction's EXEC counts those of the commands it runs), the
// times it was refused before running (a wrong number of arguments) and
// the times it ran and answered an error.
type cmdStat struct {
	calls, usec, rejected, failed int64
}

// cmdStats holds every row's counters, made once (init): counting
// allocates nothing.
var cmdStats = map[*command]*cmdStat{}

// init runs after cmdtable.go's (files in name order), whose rows it
// finds in commands.
func init() {
	for _, c := range commands {
		cmdStats[c] = &cmdStat{}
		for _, sub := range c.subs {
			cmdStats[sub] = &cmdStat{}
		}
	}
}

// statsOf returns the counters of the row c.
func statsOf(c *command) *cmdStat {
	s := cmdStats[c]
	if s == nil { // a row made after init, in tests
		s = &cmdStat{}
		cmdStats[c] = s
	}
	return s
}

// cmdRan counts a run of c that started at startUs (getMonotonicUsec) and
// wrote its reply from w.buf[at]: a reply that is an error counts as
// failed. The duration is the difference of two whole-microsecond
// readings, as Redis takes it: a command of 0.3 µs counts 1 µs three
// times in ten and 0 otherwise, so the sum stays right on average, where
// truncating each duration would count every such command as 0. One
// monotonic reading on each side is also the cheapest: time.Now reads
// the wall clock as well.
func cmdRan(c *command, w *respWriter, at int, startUs uint64) {
	s := statsOf(c)
	s.calls++
	s.usec += int64(getMonotonicUsec() - startUs)
	if at < len(w.buf) && w.buf[at] == '-' {
		s.failed++
		countError(w.buf[at+1:])
	}
}

// cmdRefused counts a request for c refused before it ran, with the error
// text it was answered.
func cmdRefused(c *command, text string) {
	if c != nil {
		statsOf(c).rejected++
	}
	countError([]byte(text))
}

// errorStats counts the error replies by their kind, the first word of
// the text (ERR, WRONGTYPE, EXECABORT...), for INFO's errorstats. As in
// Redis, at most kMaxErrorKinds kinds are kept; the others count in
// total_error_replies only.
var errorStats = map[string]int64{}

const kMaxErrorKinds = 128

// countError counts one error reply whose text (without its '-') starts
// text.
func countError(text []byte) {
	gStats.errorReplies++
	kind := text
	if i := bytes.IndexAny(text[:min(len(text), 64)], " \r\n"); i >= 0 {
		kind = text[:i]
	}
	if n, ok := errorStats[string(kind)]; ok {
		errorStats[string(kind)] = n + 1
	} else if len(errorStats) < kMaxErrorKinds {
		errorStats[string(kind)] = 1
	}
}

// sortedStats returns the rows that have run or been refused, by name,
// with their counters.
func sortedStats() []*command {
	var rows []*command
	for c, s := range cmdStats {
		if s.calls > 0 || s.rejected > 0 || s.failed > 0 {
			rows = append(rows, c)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	return rows
}

// resetStats is CONFIG RESETSTAT: the counters INFO reports as totals
// since the start go back to zero, as in Redis; what is true now (the
// connections open, the keys) stays.
func resetStats() {
	gStats.connsReceived = 0
	gStats.commands = 0
	gStats.expiredKeys = 0
	gStats.opsAt, gStats.opsCount = time.Now(), 0
	gStats.opsRates, gStats.opsNext = [kOpsSamples]float64{}, 0
	connsRefused = 0
	hashes.Expired = 0
	gStats.errorReplies = 0
	for _, st := range cmdStats {
		*st = cmdStat{}
	}
	clear(errorStats)
	rdbState.saves, aofRW.rewrites = 0, 0 // INFO persistence's rdb_saves, aof_rewrites
}
