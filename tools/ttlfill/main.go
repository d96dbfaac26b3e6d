// Command ttlfill loads a server with keys that all carry the same TTL:
// for each key it sends "set key:NNNNNN VALUE" and then
// "pexpire key:NNNNNN TTL" (with -ttl 0, the set alone), pipelined over a
// few connections, and checks every reply. It exists for the measurements in tools/bench-redis.sh: the
// memory a key with a TTL costs, and the latency of reads while a mass of
// keys expires at once (loadgen's pexpire workload always uses a TTL of an
// hour, too long for that).
//
// With -resp it connects to nothing and instead writes the same commands in
// Redis's wire format (RESP) to stdout, for `redis-cli --pipe`, so that both
// servers get exactly the same keys and values.
//
//	go run ./tools/ttlfill -addr 127.0.0.1:1234 -n 500000 -ttl 3000
//	go run ./tools/ttlfill -resp -n 1000000 -ttl 3600000 | redis-cli -p 6399 --pipe
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"example.com/byor/testkit/resp"
	"example.com/byor/tools/internal/cmdflag"
	"example.com/byor/tools/internal/loadkit"
	"example.com/byor/tools/internal/wire"
)

const usage = `usage: ttlfill [flags]

Sets keys key:NNNNNN (numbers 0 to n-1, zero-padded to -pad digits) to a value
of -v bytes and gives each a TTL of -ttl milliseconds (-ttl 0: no TTL, only
the sets), then prints one line:

  ttlfill: n=N ttl=MSms dur=SECONDSs rate=KEYS/s errors=E

The server must be on a loopback address. With -resp nothing is dialed: the
commands are written to stdout in Redis's protocol, for redis-cli --pipe.
Exit status: 0 on success, 1 if any reply was wrong or a connection failed,
2 on bad usage.

flags:
`

// Limits that keep a run bounded.
const (
	maxKeys    = 100_000_000
	maxConns   = 64
	maxBatch   = 4096
	maxTimeout = 10 * time.Minute
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is a validated set of flags.
type config struct {
	addr    string // checked loopback ip:port
	keys    int
	ttl     int64
	conns   int
	batch   int // keys per write; each key is two requests
	value   []byte
	pad     int
	timeout time.Duration
	resp    bool
}

// parseFlags reads args into a checked config. When it returns nil, the
// command stops with the exit status it returns, having said why on stderr.
func parseFlags(args []string, stderr io.Writer) (*config, int) {
	fs := cmdflag.NewFlagSet("ttlfill", usage, stderr)
	addr := fs.String("addr", "127.0.0.1:1234", "server `ip:port`; the ip must be a loopback address")
	keys := fs.Int("n", 100000, "number of keys")
	ttl := fs.Int64("ttl", 3000, "TTL of every key, in `milliseconds`; 0 sends no pexpire")
	// Many connections with large batches: the book's servers write each
	// reply on its own, so Nagle's algorithm holds back the tail of a batch's
	// replies until the client's delayed ACK (40 ms). A small batch on a few
	// connections spends most of its time in that wait; with many large ones
	// the server always has other work meanwhile.
	conns := fs.Int("c", 16, "number of connections")
	batch := fs.Int("batch", 1024, "keys per pipelined write (two requests each)")
	valSize := fs.Int("v", 3, "value size in `bytes`")
	pad := fs.Int("pad", 6, "zero-pad key numbers to this many `digits` (redis-benchmark uses 12)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this `long`; at most 10m")
	resp := fs.Bool("resp", false, "write Redis protocol to stdout instead of connecting")
	if status, stop := cmdflag.Parse(fs, args); stop {
		return nil, status
	}
	if err := cmdflag.First(
		cmdflag.Between("n", *keys, 1, maxKeys),
		cmdflag.Check(*ttl >= 0, "-ttl must not be negative"),
		cmdflag.Between("c", *conns, 1, maxConns),
		cmdflag.Between("batch", *batch, 1, maxBatch),
		cmdflag.Between("v", *valSize, 0, 1024),
		cmdflag.Between("pad", *pad, 0, 20),
		cmdflag.Check(*timeout > 0 && *timeout <= maxTimeout, "-timeout must be above 0 and at most %v", maxTimeout),
	); err != nil {
		return nil, cmdflag.Fail(fs, err)
	}
	cfg := &config{
		keys: *keys, ttl: *ttl, conns: *conns, batch: *batch,
		value: make([]byte, *valSize), pad: *pad, timeout: *timeout, resp: *resp,
	}
	for i := range cfg.value {
		cfg.value[i] = 'x'
	}
	if !cfg.resp {
		target, err := loadkit.ResolveLoopback(context.Background(), *addr, nil)
		if err != nil {
			return nil, cmdflag.Fail(fs, err)
		}
		cfg.addr = target
	}
	return cfg, 0
}

// writeRESP writes the whole load as Redis commands to w.
func writeRESP(cfg *config, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	ttl := strconv.AppendInt(nil, cfg.ttl, 10)
	var buf, key []byte
	for i := range cfg.keys {
		key = loadkit.AppendKey(key[:0], i, cfg.pad)
		buf = resp.AppendCommand(buf[:0], []byte("SET"), key, cfg.value)
		if cfg.ttl > 0 {
			buf = resp.AppendCommand(buf, []byte("PEXPIRE"), key, ttl)
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// checkSetReply and checkExpireReply verify one reply body each: set answers
// nil, and pexpire on a key that exists answers int 1.
func checkSetReply(body []byte) error {
	v, err := wire.DecodeReply(body)
	if err != nil {
		return err
	}
	if v.Tag != wire.TagNil {
		return fmt.Errorf("set: got %v, want nil", v)
	}
	return nil
}

func checkExpireReply(body []byte) error {
	v, err := wire.DecodeReply(body)
	if err != nil {
		return err
	}
	if v.Tag != wire.TagInt || v.Int != 1 {
		return fmt.Errorf("pexpire: got %v, want (int) 1", v)
	}
	return nil
}

// filler drives one connection.
type filler struct {
	cfg    *config
	conn   net.Conn
	r      *bufio.Reader
	ttl    []byte
	out    []byte
	key    []byte
	in     []byte
	errors int64
	first  error // the first problem seen, for the report
}

func (f *filler) note(err error) {
	f.errors++
	if f.first == nil {
		f.first = err
	}
}

// batch sends the set/pexpire pairs for keys [lo, hi) in one write and reads
// and checks their replies. An error means the connection is unusable.
func (f *filler) batch(lo, hi int) error {
	f.out = f.out[:0]
	for i := lo; i < hi; i++ {
		f.key = loadkit.AppendKey(f.key[:0], i, f.cfg.pad)
		var err error
		if f.out, err = wire.AppendRequest(f.out, []byte("set"), f.key, f.cfg.value); err != nil {
			return err
		}
		if f.cfg.ttl == 0 {
			continue
		}
		if f.out, err = wire.AppendRequest(f.out, []byte("pexpire"), f.key, f.ttl); err != nil {
			return err
		}
	}
	// Write from another goroutine while the replies are read: a server
	// that answers each request before reading the next would otherwise
	// block on a full socket buffer while we block writing to it.
	wrote := make(chan error, 1)
	go func(b []byte) {
		_, err := f.conn.Write(b)
		wrote <- err
	}(f.out)
	checks := []func([]byte) error{checkSetReply, checkExpireReply}
	if f.cfg.ttl == 0 {
		checks = checks[:1]
	}
	var readErr error
	for i := lo; i < hi && readErr == nil; i++ {
		for _, check := range checks {
			body, err := wire.ReadFrame(f.r, f.in)
			if err != nil {
				readErr = fmt.Errorf("reading reply: %w", err)
				break
			}
			if err := check(body); err != nil {
				f.note(fmt.Errorf("%s: %w", loadkit.AppendKey(nil, i, f.cfg.pad), err))
			}
		}
	}
	if readErr != nil {
		f.conn.Close() // unblocks the writer
	}
	if err := <-wrote; err != nil && readErr == nil {
		readErr = err
	}
	return readErr
}

// fill loads every key over cfg.conns connections and returns the number of
// bad replies, or an error if a connection failed.
func fill(cfg *config) (int64, error) {
	deadline := time.Now().Add(cfg.timeout)
	fillers := make([]*filler, cfg.conns)
	d := net.Dialer{Timeout: 5 * time.Second}
	for i := range fillers {
		conn, err := d.Dial("tcp", cfg.addr)
		if err != nil {
			for _, f := range fillers[:i] {
				f.conn.Close()
			}
			return 0, err
		}
		conn.SetDeadline(deadline)
		fillers[i] = &filler{
			cfg: cfg, conn: conn, r: bufio.NewReaderSize(conn, 64<<10),
			ttl: strconv.AppendInt(nil, cfg.ttl, 10), in: make([]byte, wire.MaxMsg),
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	failed := make([]error, len(fillers))
	for i, f := range fillers {
		wg.Go(func() {
			defer f.conn.Close()
			for {
				lo := int(next.Add(int64(cfg.batch))) - cfg.batch
				if lo >= cfg.keys {
					return
				}
				if err := f.batch(lo, min(lo+cfg.batch, cfg.keys)); err != nil {
					failed[i] = fmt.Errorf("connection %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	var bad int64
	for _, f := range fillers {
		bad += f.errors
	}
	for _, err := range failed {
		if err != nil {
			return bad, err
		}
	}
	if bad > 0 {
		for _, f := range fillers {
			if f.first != nil {
				return bad, fmt.Errorf("%d bad replies, first: %v", bad, f.first)
			}
		}
	}
	return bad, nil
}

// run executes the command and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, status := parseFlags(args, stderr)
	if cfg == nil {
		return status
	}
	if cfg.resp {
		if err := writeRESP(cfg, stdout); err != nil {
			fmt.Fprintln(stderr, "ttlfill:", err)
			return 1
		}
		return 0
	}
	start := time.Now()
	bad, err := fill(cfg)
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintln(stderr, "ttlfill:", err)
		return 1
	}
	fmt.Fprintf(stdout, "ttlfill: n=%d ttl=%dms dur=%.2fs rate=%.0f/s errors=%d\n",
		cfg.keys, cfg.ttl, elapsed.Seconds(), float64(cfg.keys)/elapsed.Seconds(), bad)
	return 0
}
