// Command loadgen drives a bounded, checked load against one of the
// repository's servers, in the spirit of redis-benchmark: many connections,
// optional pipelining, one command type per run, and a one-line summary with
// throughput and latency percentiles.
//
// It speaks the protocol of chapter 11 and later (doubles tagged 4, arrays 5)
// or, with -proto resp, Redis's, so that one client measures both; it only
// ever connects to a loopback address. With -pid it also reports the
// server's CPU time per request.
//
//	go run ./tools/loadgen -t get -c 50 -P 16 -n 1000000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"example.com/byor/tools/internal/cmdflag"
	"example.com/byor/tools/internal/loadkit"
	"example.com/byor/tools/internal/wire"
)

// Limits that keep every run bounded and every request within the protocol.
const (
	maxDuration = 10 * time.Minute // hard cap on the timed run, and on the preload
	maxConns    = 10000
	maxPipeline = 10000
	maxKeys     = 100_000_000
	// The largest value whose get reply still fits a message: the 4-byte
	// length header, tag and string length leave this much for the bytes.
	maxValSize = wire.MaxMsg - 4 - 5
)

// workloads lists the -t values; see usage for what each one sends.
var workloads = []string{"set", "get", "mixed", "zadd", "pexpire"}

const usage = `usage: loadgen [flags]

Sends a bounded load to a server on a loopback address, checks every reply,
and prints one summary line:

  WORKLOAD c=C P=P n=N dur=SECONDSs rps=R p50=Tus p99=Tus p999=Tus max=Tus errors=E

where n counts the replies received, rps is n/dur, and the latencies are per
batch (write of the batch to read of its last reply), counted once for each
request in the batch as redis-benchmark does with -P. With -pid PID the line
ends with cpu_us=X: the user plus system CPU time process PID (the server)
used during the timed run, from /proc/PID/stat, divided by n, in
microseconds per request. Its resolution is 10 ms of CPU time in all, so
runs should last a second or more.

-proto book (the default) speaks the chapters' protocol; -proto resp sends
the same commands to a Redis server as arrays of bulk strings (RESP2) and
checks its replies (set must answer OK).

workloads (-t); keys are key:NNNNNN drawn uniformly from -r keys:
  set      set KEY VALUE                    reply must be nil
  get      get KEY                          reply must be a str of -v bytes, or nil
  mixed    10% set, 90% get                 as above
  zadd     zadd loadgen:zset SCORE KEY      reply must be int 0 or 1
  pexpire  pexpire KEY 3600000              reply must be int 0 or 1

-preload (default on for get, mixed and pexpire) first sets every key of the
key space, pipelined and untimed, so that gets do not measure only misses.

The run stops after -n requests or after -d, whichever comes first; with -d
alone there is no request limit. It never runs longer than 10m.
Exit status: 0 on a clean run, 1 on a runtime error or if any reply or
connection failed, 2 on bad usage or a non-loopback address.

flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is a validated set of flags.
type config struct {
	target   string        // -addr, checked and resolved to the loopback ip:port that is dialed
	conns    int           // -c
	pipeline int           // -P
	total    int64         // -n; 0 means no request limit
	duration time.Duration // time limit of the timed run: -d, or maxDuration
	workload string        // -t
	keys     int           // -r
	value    []byte        // -v bytes of 'x'
	seed     uint64        // -seed
	preload  bool          // -preload, defaulted by workload
	resp     bool          // -proto resp
	pid      int           // -pid: the server process whose CPU time is read
}

// parseFlags reads args into a checked config. When it returns nil, the
// command stops with the exit status it returns, having said why on stderr.
func parseFlags(args []string, stderr io.Writer) (*config, int) {
	fs := cmdflag.NewFlagSet("loadgen", usage, stderr)
	addr := fs.String("addr", "127.0.0.1:1234", "server `host:port`; must resolve to loopback addresses only")
	conns := fs.Int("c", 50, "number of connections")
	pipeline := fs.Int("P", 1, "pipeline depth: requests sent per write on each connection")
	total := fs.Int64("n", 100000, "total requests")
	dur := fs.Duration("d", 0, "run `duration` (0: stop after -n requests); at most 10m")
	workload := fs.String("t", "set", "workload: set, get, mixed, zadd or pexpire")
	keys := fs.Int("r", 100000, "key-space size")
	valSize := fs.Int("v", 3, "value size in `bytes`")
	seed := fs.Uint64("seed", 1, "random seed for key choice and scores")
	preload := fs.Bool("preload", false, "set every key before the run (default true for get, mixed, pexpire)")
	protocol := fs.String("proto", "book", "wire protocol: book (the chapters') or resp (Redis's)")
	pid := fs.Int("pid", 0, "`PID` of the server, to report its CPU time per request (0: not reported)")
	if status, stop := cmdflag.Parse(fs, args); stop {
		return nil, status
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if err := cmdflag.First(
		cmdflag.Between("c", *conns, 1, maxConns),
		cmdflag.Between("P", *pipeline, 1, maxPipeline),
		cmdflag.Check(*total >= 1, "-n must be at least 1"),
		cmdflag.Check(*dur >= 0 && *dur <= maxDuration, "-d must be between 0 and %v", maxDuration),
		cmdflag.Between("r", *keys, 1, maxKeys),
		cmdflag.Between("v", *valSize, 0, maxValSize),
		cmdflag.Check(*protocol == "book" || *protocol == "resp", "-proto must be book or resp, not %q", *protocol),
		cmdflag.Check(*pid >= 0, "-pid must be a process id"),
		cmdflag.Check(slices.Contains(workloads, *workload), "unknown workload -t %q", *workload),
	); err != nil {
		return nil, cmdflag.Fail(fs, err)
	}
	if *pid > 0 {
		if _, err := procCPU(*pid); err != nil {
			return nil, cmdflag.Fail(fs, err)
		}
	}
	cfg := &config{
		conns:    *conns,
		pipeline: *pipeline,
		total:    *total,
		duration: maxDuration,
		workload: *workload,
		keys:     *keys,
		value:    make([]byte, *valSize),
		seed:     *seed,
		preload:  *preload,
		resp:     *protocol == "resp",
		pid:      *pid,
	}
	for i := range cfg.value {
		cfg.value[i] = 'x'
	}
	if *dur > 0 {
		cfg.duration = *dur
		if !set["n"] {
			cfg.total = 0 // -d alone: run for the duration
		}
	}
	if !set["preload"] {
		cfg.preload = *workload == "get" || *workload == "mixed" || *workload == "pexpire"
	}
	// The widest key with the full value must still make a valid request.
	if _, err := wire.AppendRequest(nil, []byte("set"), appendKey(nil, cfg.keys-1), cfg.value); err != nil {
		return nil, cmdflag.Failf(fs, "-v %d with -r %d makes a set request too large for the protocol", *valSize, *keys)
	}
	// Last, as it may ask a resolver: every other check is cheaper.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	target, err := loadkit.ResolveLoopback(ctx, *addr, loadkit.LookupHost)
	cancel()
	if err != nil {
		return nil, cmdflag.Fail(fs, err)
	}
	cfg.target = target
	return cfg, 0
}

// run executes the command and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, status := parseFlags(args, stderr)
	if cfg == nil {
		return status
	}
	res, err := execute(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	fmt.Fprintln(stdout, res.summary(cfg))
	if res.errors > 0 {
		return 1
	}
	return 0
}

// summary formats the single result line.
func (r *result) summary(cfg *config) string {
	us := func(ns uint64) uint64 { return (ns + 500) / 1000 }
	secs := r.elapsed.Seconds()
	rps := 0.0
	if secs > 0 {
		rps = float64(r.done) / secs
	}
	line := cfg.workload +
		" c=" + strconv.Itoa(cfg.conns) +
		" P=" + strconv.Itoa(cfg.pipeline) +
		" n=" + strconv.FormatInt(r.done, 10) +
		fmt.Sprintf(" dur=%.2fs rps=%.0f", secs, rps) +
		fmt.Sprintf(" p50=%dus p99=%dus p999=%dus max=%dus",
			us(r.hist.percentile(50)), us(r.hist.percentile(99)),
			us(r.hist.percentile(99.9)), us(r.hist.max)) +
		" errors=" + strconv.FormatInt(r.errors, 10)
	if cfg.pid > 0 && r.done > 0 {
		line += fmt.Sprintf(" cpu_us=%.2f", r.serverCPU.Seconds()*1e6/float64(r.done))
	}
	return line
}
