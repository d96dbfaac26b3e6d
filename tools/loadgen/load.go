package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"example.com/byor/testkit/resp"
	"example.com/byor/tools/internal/loadkit"
	"example.com/byor/tools/internal/wire"
)

const (
	// ioTimeout bounds each batch's round trip, so a stalled server cannot
	// hold a run open past its time limit for long.
	ioTimeout   = 10 * time.Second
	dialTimeout = 5 * time.Second
	// preloadBatch is how many sets the preload pipelines per write.
	preloadBatch = 256
	// Batches larger than this are written from a second goroutine while the
	// replies are read; otherwise a server that stops reading while its own
	// writes are blocked could deadlock with a client doing the same.
	directWriteMax = 32 << 10
	// maxShown is how many bad replies or connection errors are printed.
	maxShown = 5
	// pexpireMs is long enough that keys do not expire during a run.
	pexpireMs = "3600000"
)

// Command names and fixed arguments, kept as bytes to build requests
// without allocating.
var (
	cmdSet     = []byte("set")
	cmdGet     = []byte("get")
	cmdZadd    = []byte("zadd")
	cmdPexpire = []byte("pexpire")
	zsetKey    = []byte("loadgen:zset")
	msArg      = []byte(pexpireMs)
)

// opKind is the command of one request, which decides the reply it expects.
type opKind uint8

const (
	opSet opKind = iota
	opGet
	opZadd
	opPexpire
)

func (k opKind) String() string {
	return [...]string{"set", "get", "zadd", "pexpire"}[k]
}

// op is one request of a batch: enough to rebuild its description when its
// reply turns out wrong.
type op struct {
	kind opKind
	key  int
}

// appendKey appends the name of key number i, zero-padded to at least six
// digits like redis-benchmark's key:__rand_int__ (which pads to twelve).
func appendKey(dst []byte, i int) []byte { return loadkit.AppendKey(dst, i, 6) }

// answer is what the checks of a reply look at, in either protocol: an
// error; what set answers (nil in the book's protocol, OK in Redis's); a
// nil; a string of n bytes; an integer i.
type answer struct {
	err, setOK, null, str, isInt bool
	n                            int
	i                            int64
}

// answerWords name, in one protocol's words, what set, get and the other
// commands answer, for the errors; get's has a %d for the value's size.
type answerWords struct{ set, get, num string }

var (
	bookWords = answerWords{"nil", "nil or a str of %d bytes", "int 0 or 1"}
	respWords = answerWords{"OK", "nil or a bulk string of %d bytes", "integer 0 or 1"}
)

// problem returns "" if a is what a command of kind answers (a get, a nil
// or a value of valSize bytes; zadd and pexpire, 1 or 0), or else the
// format, with a %v for the reply, of the error that says what it is not.
func (a answer) problem(kind opKind, valSize int, w answerWords) string {
	switch {
	case a.err:
		return "server error %v"
	case kind == opSet && !a.setOK:
		return "got %v, want " + w.set
	case kind == opGet && !(a.null || a.str && a.n == valSize):
		return "got %v, want " + fmt.Sprintf(w.get, valSize)
	case kind != opSet && kind != opGet && !(a.isInt && (a.i == 0 || a.i == 1)):
		return "got %v, want " + w.num
	}
	return ""
}

// checkRESPReply verifies one reply of Redis's protocol for the command:
// the same answers as checkReply, in Redis's words (OK for set).
func checkRESPReply(kind opKind, v resp.Reply, valSize int) error {
	bulk := v.Kind == resp.Bulk
	a := answer{err: v.Kind == resp.Error, setOK: v.Kind == resp.Simple && string(v.Str) == "OK",
		null: bulk && v.Null, str: bulk && !v.Null, n: len(v.Str), isInt: v.Kind == resp.Int, i: v.Int}
	if p := a.problem(kind, valSize, respWords); p != "" {
		return fmt.Errorf(p, v)
	}
	return nil
}

// checkReply decodes one reply body and verifies its type for the command.
func checkReply(kind opKind, body []byte, valSize int) error {
	v, err := wire.DecodeReply(body)
	if err != nil {
		return err
	}
	a := answer{err: v.Tag == wire.TagErr, setOK: v.Tag == wire.TagNil, null: v.Tag == wire.TagNil,
		str: v.Tag == wire.TagStr, n: len(v.Str), isInt: v.Tag == wire.TagInt, i: v.Int}
	if p := a.problem(kind, valSize, bookWords); p != "" {
		return fmt.Errorf(p, v)
	}
	return nil
}

// reporter prints the first few errors of a run, from any connection.
type reporter struct {
	mu    sync.Mutex
	w     io.Writer
	shown int
}

func (r *reporter) report(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.shown < maxShown:
		fmt.Fprintf(r.w, "loadgen: "+format+"\n", a...)
	case r.shown == maxShown:
		fmt.Fprintln(r.w, "loadgen: further errors not shown")
	}
	r.shown++
}

// budget hands out requests to the connections until the request limit is
// reached or the run is stopped.
type budget struct {
	total  int64 // 0: no limit
	issued atomic.Int64
	stop   atomic.Bool
}

// claim reserves up to p requests and returns how many were granted; 0 ends
// the caller's loop.
func (b *budget) claim(p int) int {
	if b.stop.Load() {
		return 0
	}
	if b.total == 0 {
		return p
	}
	start := b.issued.Add(int64(p)) - int64(p)
	if start >= b.total {
		return 0
	}
	return int(min(int64(p), b.total-start))
}

// worker drives one connection.
type worker struct {
	cfg  *config
	rep  *reporter
	id   int
	conn net.Conn
	r    *bufio.Reader
	rng  *rand.Rand
	out  []byte // the batch being sent
	in   []byte // the frame being read
	key  []byte // scratch for a key name
	num  []byte // scratch for a score
	ops  []op   // the batch's requests, in order
	hist histogram
	done int64 // replies received
	errs int64 // bad replies and connection failures
}

// add appends one request to the batch.
func (w *worker) add(o op) {
	w.key = appendKey(w.key[:0], o.key)
	if w.cfg.resp {
		w.addRESP(o)
		return
	}
	var err error
	switch o.kind {
	case opSet:
		w.out, err = wire.AppendRequest(w.out, cmdSet, w.key, w.cfg.value)
	case opGet:
		w.out, err = wire.AppendRequest(w.out, cmdGet, w.key)
	case opZadd:
		w.num = strconv.AppendFloat(w.num[:0], float64(w.rng.IntN(1_000_000))/100, 'f', -1, 64)
		w.out, err = wire.AppendRequest(w.out, cmdZadd, zsetKey, w.num, w.key)
	case opPexpire:
		w.out, err = wire.AppendRequest(w.out, cmdPexpire, w.key, msArg)
	}
	if err != nil {
		// parseFlags has already checked that the largest request fits.
		panic(err)
	}
	w.ops = append(w.ops, o)
}

// addRESP appends one request in Redis's protocol; the key is in w.key.
func (w *worker) addRESP(o op) {
	switch o.kind {
	case opSet:
		w.out = resp.AppendCommand(w.out, cmdSet, w.key, w.cfg.value)
	case opGet:
		w.out = resp.AppendCommand(w.out, cmdGet, w.key)
	case opZadd:
		w.num = strconv.AppendFloat(w.num[:0], float64(w.rng.IntN(1_000_000))/100, 'f', -1, 64)
		w.out = resp.AppendCommand(w.out, cmdZadd, zsetKey, w.num, w.key)
	case opPexpire:
		w.out = resp.AppendCommand(w.out, cmdPexpire, w.key, msArg)
	}
	w.ops = append(w.ops, o)
}

// readReply reads and checks the reply to o. A bad reply is counted and
// reported; an error means the connection can no longer be used.
func (w *worker) readReply(o op) error {
	var err error
	if w.cfg.resp {
		var v resp.Reply
		if v, err = resp.ReadReply(w.r, w.in); err != nil {
			return fmt.Errorf("reading reply: %w", err)
		}
		err = checkRESPReply(o.kind, v, len(w.cfg.value))
	} else {
		body, rerr := wire.ReadFrame(w.r, w.in)
		if rerr != nil {
			return fmt.Errorf("reading reply: %w", rerr)
		}
		err = checkReply(o.kind, body, len(w.cfg.value))
	}
	w.done++
	if err != nil {
		w.errs++
		w.rep.report("%v %s: %v", o.kind, appendKey(nil, o.key), err)
	}
	return nil
}

// nextOp draws the next request of the timed workload.
func (w *worker) nextOp() op {
	o := op{key: w.rng.IntN(w.cfg.keys)}
	switch w.cfg.workload {
	case "set":
		o.kind = opSet
	case "get":
		o.kind = opGet
	case "mixed":
		o.kind = opGet
		if w.rng.IntN(10) == 0 {
			o.kind = opSet
		}
	case "zadd":
		o.kind = opZadd
	case "pexpire":
		o.kind = opPexpire
	}
	return o
}

// roundTrip writes the batch in one write and reads one reply per request,
// checking each. Bad replies are counted and reported; an error is returned
// only when the connection can no longer be used.
func (w *worker) roundTrip() error {
	if err := w.conn.SetDeadline(time.Now().Add(ioTimeout)); err != nil {
		return err
	}
	var writeErr chan error
	if len(w.out) <= directWriteMax {
		if _, err := w.conn.Write(w.out); err != nil {
			return err
		}
	} else {
		writeErr = make(chan error, 1)
		go func(b []byte) {
			_, err := w.conn.Write(b)
			writeErr <- err
		}(w.out)
	}
	var readErr error
	for _, o := range w.ops {
		if readErr = w.readReply(o); readErr != nil {
			break
		}
	}
	if writeErr != nil {
		if readErr != nil {
			w.conn.Close() // unblocks the writer
		}
		if err := <-writeErr; err != nil && readErr == nil {
			readErr = err
		}
	}
	return readErr
}

// fail ends the worker's connection after an I/O or protocol error.
func (w *worker) fail(err error) {
	w.errs++
	w.rep.report("connection %d: %v", w.id, err)
	w.conn.Close()
}

// loop runs timed batches until the budget is spent or the time is up.
func (w *worker) loop(b *budget) {
	for {
		k := b.claim(w.cfg.pipeline)
		if k == 0 {
			return
		}
		w.out, w.ops = w.out[:0], w.ops[:0]
		for range k {
			w.add(w.nextOp())
		}
		start := time.Now()
		if err := w.roundTrip(); err != nil {
			w.fail(err)
			return
		}
		w.hist.record(uint64(time.Since(start)), uint64(k))
	}
}

// preload sets keys handed out by next, in pipelined batches, until every key
// is set or the run is stopped. It returns false if its connection failed.
func (w *worker) preload(next *atomic.Int64, stop *atomic.Bool) bool {
	for !stop.Load() {
		first := next.Add(preloadBatch) - preloadBatch
		if first >= int64(w.cfg.keys) {
			return true
		}
		last := min(first+preloadBatch, int64(w.cfg.keys))
		w.out, w.ops = w.out[:0], w.ops[:0]
		for i := first; i < last; i++ {
			w.add(op{kind: opSet, key: int(i)})
		}
		if err := w.roundTrip(); err != nil {
			w.fail(err)
			return false
		}
	}
	return true
}

// result is what a timed run measured, summed over the connections.
type result struct {
	done, errors int64
	elapsed      time.Duration
	hist         histogram
	serverCPU    time.Duration // user+system time of -pid during the run

}

// execute connects, preloads if asked, and runs the timed load. An error
// means the run could not take place; bad replies are counted in the result.
func execute(cfg *config, stderr io.Writer) (*result, error) {
	rep := &reporter{w: stderr}
	workers := make([]*worker, cfg.conns)
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.conn.Close()
			}
		}
	}()
	d := net.Dialer{Timeout: dialTimeout}
	for i := range workers {
		conn, err := d.Dial("tcp", cfg.target)
		if err != nil {
			return nil, fmt.Errorf("connection %d of %d: %v", i+1, cfg.conns, err)
		}
		workers[i] = &worker{
			cfg:  cfg,
			rep:  rep,
			id:   i,
			conn: conn,
			r:    bufio.NewReaderSize(conn, 64<<10),
			// one stream per connection, so runs with the same seed repeat
			rng: rand.New(rand.NewPCG(cfg.seed, uint64(i))),
			in:  make([]byte, wire.MaxMsg),
		}
	}

	parallel := func(f func(w *worker)) {
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Go(func() { f(w) })
		}
		wg.Wait()
	}

	if cfg.preload {
		var next atomic.Int64
		var stop atomic.Bool
		timer := time.AfterFunc(maxDuration, func() { stop.Store(true) })
		failed := atomic.Bool{}
		parallel(func(w *worker) {
			if !w.preload(&next, &stop) {
				failed.Store(true)
			}
		})
		timer.Stop()
		var errs int64
		for _, w := range workers {
			errs += w.errs
			w.done, w.errs = 0, 0
		}
		switch {
		case failed.Load() || errs > 0:
			return nil, fmt.Errorf("preload of %d keys failed (%d errors)", cfg.keys, errs)
		case stop.Load():
			return nil, fmt.Errorf("preload of %d keys did not finish within %v", cfg.keys, maxDuration)
		}
	}

	var cpu0 time.Duration
	if cfg.pid > 0 {
		var err error
		if cpu0, err = procCPU(cfg.pid); err != nil {
			return nil, err
		}
	}
	b := &budget{total: cfg.total}
	start := time.Now()
	timer := time.AfterFunc(cfg.duration, func() { b.stop.Store(true) })
	parallel(func(w *worker) { w.loop(b) })
	res := &result{elapsed: time.Since(start)}
	timer.Stop()
	if cfg.pid > 0 {
		cpu1, err := procCPU(cfg.pid)
		if err != nil {
			return nil, err
		}
		res.serverCPU = cpu1 - cpu0
	}
	for _, w := range workers {
		res.done += w.done
		res.errors += w.errs
		res.hist.merge(&w.hist)
	}
	return res, nil
}
