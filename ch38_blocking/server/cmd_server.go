package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/hashes"
	"example.com/byor/ch38_blocking/resp"
)

// TYPE and INFO: what tools ask a server about its keys and itself.

// respType: TYPE key replies the kind of value the key holds, or none.
func respType(st *respState, w *respWriter, args [][]byte) {
	w.simple(typeName(lookupEntry(args[1])))
}

// serverStart is when the server started, for uptime_in_seconds; runID
// tells one run of it from another, as Redis's run_id does.
var (
	serverStart = time.Now()
	runID       = newRunID()
)

func newRunID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// infoVersion is the version INFO reports, the same as HELLO's: clients
// read it to tell which commands they may send.
const infoVersion = "7.4.0"

// kOpsSamples rates, each over at least kOpsPeriod, are averaged into
// instantaneous_ops_per_sec, as Redis does with its 16 samples a tenth of
// a second apart.
const (
	kOpsSamples = 16
	kOpsPeriod  = 100 * time.Millisecond
)

// opsPerSec returns the commands per second over the last samples. Redis
// samples on a timer ten times a second; here the samples are taken when
// INFO asks, and a gap of k periods counts as k samples of the rate over
// it (at most all of them), which gives the same average without waking
// the event loop when nothing else needs it.
func opsPerSec(now time.Time) int64 {
	s := &gStats
	if s.opsAt.IsZero() {
		s.opsAt, s.opsCount = serverStart, 0
	}
	if gap := now.Sub(s.opsAt); gap >= kOpsPeriod {
		rate := float64(s.commands-s.opsCount) / gap.Seconds()
		for range min(int(gap/kOpsPeriod), kOpsSamples) {
			s.opsRates[s.opsNext] = rate
			s.opsNext = (s.opsNext + 1) % kOpsSamples
		}
		s.opsAt, s.opsCount = now, s.commands
	}
	sum := 0.0
	for _, r := range s.opsRates {
		sum += r
	}
	return int64(sum/kOpsSamples + 0.5)
}

// The sections of INFO, in the order Redis writes them. Those in
// infoDefault are the ones INFO with no argument writes; "all" and
// "everything" write all of them. Sections this server has nothing for
// (Modules, Latencystats, ...) are written as headers alone, as Redis
// writes an empty one, so that a client looking for the header finds it.
var infoSections = []string{"server", "clients", "memory", "persistence", "stats", "replication",
	"cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"}

var infoDefault = map[string]bool{"server": true, "clients": true, "memory": true, "persistence": true,
	"stats": true, "replication": true, "cpu": true, "modules": true, "errorstats": true, "cluster": true, "keyspace": true}

// respInfo: INFO [section ...]. Names are in any case; unknown ones
// select nothing, so INFO nosuch replies an empty string. Sections come
// in their own order whatever the order asked. The reply is text, "# Name"
// lines heading "field:value" lines, a bulk string in RESP2 and a
// verbatim string in RESP3, as in Redis.
func respInfo(st *respState, w *respWriter, args [][]byte) {
	want := map[string]bool{}
	if len(args) == 1 {
		want = infoDefault
	}
	for _, a := range args[1:] {
		switch name := strings.ToLower(string(a)); name {
		case "default":
			for s := range infoDefault {
				want[s] = true
			}
		case "all", "everything":
			for _, s := range infoSections {
				want[s] = true
			}
		default:
			want[name] = true
		}
	}
	var b strings.Builder
	for _, s := range infoSections {
		if want[s] {
			workDone += kInfoSectionWork + infoLines(s)
			if b.Len() > 0 {
				b.WriteString("\r\n")
			}
			infoSection(&b, s)
		}
	}
	w.outText(b.String())
}

// outText writes text, a bulk string in RESP2 and a verbatim string in
// RESP3, as Redis answers INFO and CLIENT LIST.
func (w *respWriter) outText(text string) {
	if w.ver == resp.RESP3 {
		// A verbatim string: its length counts the "txt:" before the text.
		if w.room(respHeaderMax + 4 + len(text)) {
			w.buf = append(w.buf, '=')
			w.buf = strconv.AppendInt(w.buf, int64(len(text)+4), 10)
			w.buf = append(w.buf, "\r\ntxt:"...)
			w.buf = append(w.buf, text...)
			w.buf = append(w.buf, "\r\n"...)
		}
		return
	}
	w.outStr(text)
}

// kInfoSectionWork is what writing one section of INFO counts in the
// work meter, beside its bytes: its fields are formatted one by one, and
// some take a system call (getrusage, getrlimit, getsockname). The
// sections that list the commands or the kinds of error count one more
// for each line (infoLines).
const kInfoSectionWork = 24

// infoLines is the work of the lines of commandstats and errorstats
// beyond kInfoSectionWork: the rows listed, sorted, and each formatted.
func infoLines(section string) int {
	switch section {
	case "commandstats":
		return 4 * len(cmdStats)
	case "errorstats":
		return 4 * len(errorStats)
	}
	return 0
}

// infoSection writes one section of INFO, its header first.
func infoSection(b *strings.Builder, name string) {
	field := func(k string, v any) { fmt.Fprintf(b, "%s:%v\r\n", k, v) }
	title := strings.ToUpper(name[:1]) + name[1:]
	if name == "cpu" {
		title = "CPU"
	}
	b.WriteString("# " + title + "\r\n")
	now := time.Now()
	switch name {
	case "server":
		field("redis_version", infoVersion)
		field("redis_mode", "standalone")
		field("os", runtime.GOOS+" "+runtime.GOARCH)
		field("arch_bits", strconv.IntSize)
		field("go_version", runtime.Version())
		field("process_id", os.Getpid())
		field("run_id", runID)
		field("tcp_port", infoPort())
		field("server_time_usec", now.UnixMicro())
		field("uptime_in_seconds", int64(now.Sub(serverStart).Seconds()))
		field("uptime_in_days", int64(now.Sub(serverStart).Hours()/24))
		field("executable", executable())
	case "clients":
		field("connected_clients", gStats.connsOpen)
		field("maxclients", maxClients)
		field("blocked_clients", blockedClients)
		field("tracking_clients", 0)
	case "memory":
		used := heapBytes()
		field("used_memory", used)
		field("used_memory_human", bytesToHuman(used))
		field("maxmemory", 0)
		field("maxmemory_human", "0B")
		field("maxmemory_policy", "noeviction")
		field("mem_allocator", "go")
	case "persistence":
		aofInfo(field) // aof.go
	case "stats":
		field("total_connections_received", gStats.connsReceived)
		field("total_commands_processed", gStats.commands)
		field("instantaneous_ops_per_sec", opsPerSec(now))
		field("rejected_connections", connsRefused)
		field("expired_keys", gStats.expiredKeys)
		// Hash fields removed by their TTL, under Redis 7.4's name and
		// Valkey 9.0's.
		field("expired_subkeys", hashes.Expired)
		field("expired_fields", hashes.Expired)
		field("evicted_keys", 0)
		field("total_error_replies", gStats.errorReplies)
	case "replication":
		// A primary with no replicas and no backlog, as Redis reports
		// one: tools read the offsets to tell how far a replica is.
		field("role", "master")
		field("connected_slaves", 0)
		field("master_failover_state", "no-failover")
		field("master_replid", runID)
		field("master_replid2", strings.Repeat("0", len(runID)))
		field("master_repl_offset", 0)
		field("second_repl_offset", -1)
		field("repl_backlog_active", 0)
		field("repl_backlog_size", 0)
		field("repl_backlog_first_byte_offset", 0)
		field("repl_backlog_histlen", 0)
	case "cpu":
		for _, who := range []struct {
			id     int
			suffix string
		}{{unix.RUSAGE_SELF, ""}, {unix.RUSAGE_CHILDREN, "_children"}} {
			var ru unix.Rusage
			if unix.Getrusage(who.id, &ru) == nil {
				field("used_cpu_sys"+who.suffix, fmt.Sprintf("%d.%06d", ru.Stime.Sec, ru.Stime.Usec))
				field("used_cpu_user"+who.suffix, fmt.Sprintf("%d.%06d", ru.Utime.Sec, ru.Utime.Usec))
			}
		}
	case "commandstats":
		// Every command or subcommand that has run or been refused, by
		// name; a subcommand as container|sub, as in Redis 7.
		for _, c := range sortedStats() {
			st := cmdStats[c]
			perCall := 0.0
			if st.calls > 0 {
				perCall = float64(st.usec) / float64(st.calls)
			}
			fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
				c.name, st.calls, st.usec, perCall, st.rejected, st.failed)
		}
	case "errorstats":
		kinds := make([]string, 0, len(errorStats))
		for k := range errorStats {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", k, errorStats[k])
		}
	case "cluster":
		field("cluster_enabled", 0)
	case "keyspace":
		// One database; the keys with a TTL are those with a timer.
		// Redis's avg_ttl is an estimate from sampling: none here.
		if n := gData.db.Len(); n > 0 {
			fmt.Fprintf(b, "db0:keys=%d,expires=%d,avg_ttl=0", n, len(gData.heap))
			// The hashes with a field that has a TTL are those with a
			// field timer: Redis 7.4 calls them subexpiry, Valkey 9.0
			// keys_with_volatile_items. Written only when there are
			// some, the line is Redis 7.0's otherwise.
			if v := len(gData.fieldHeap); v > 0 {
				fmt.Fprintf(b, ",subexpiry=%d,keys_with_volatile_items=%d", v, v)
			}
			b.WriteString("\r\n")
		}
	}
}

// infoPort is the port of the RESP listener, 0 if there is none.
func infoPort() int {
	if respListenFd < 0 {
		return 0
	}
	if sa, err := unix.Getsockname(respListenFd); err == nil {
		if in4, ok := sa.(*unix.SockaddrInet4); ok {
			return in4.Port
		}
	}
	return 0
}

func executable() string {
	path, _ := os.Executable()
	return path
}

// heapBytes is the memory the Go heap's objects take, live or not yet
// collected: the nearest to what Redis counts as used_memory (what its
// allocator handed out). runtime/metrics reads it without stopping the
// world, which runtime.ReadMemStats does.
func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// bytesToHuman writes a size as Redis's INFO does: 1023B, 1.50K, 2.00M.
func bytesToHuman(n uint64) string {
	if n < 1024 {
		return strconv.FormatUint(n, 10) + "B"
	}
	f := float64(n)
	for _, unit := range []string{"K", "M", "G", "T", "P"} {
		f /= 1024
		if f < 1024 || unit == "P" {
			return strconv.FormatFloat(f, 'f', 2, 64) + unit
		}
	}
	return "" // not reached
}
