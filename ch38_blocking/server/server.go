package server

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/resp"
	"example.com/byor/ch38_blocking/sock"
	"example.com/byor/ch38_blocking/threadpool"
)

// DefaultAddr is where the server listens unless told otherwise: the book's
// port, on the loopback interface only.
const DefaultAddr = "127.0.0.1:1234"

// Main runs the server with command-line arguments args and returns the
// process exit code. It logs to stderr; what a client says goes to stdout.
func Main(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "`host:port` to listen on (port 0 picks a free port)")
	respAddr := fs.String("resp-addr", DefaultRESPAddr, "`host:port` to speak Redis's protocol (RESP) on; \"\" for none")
	idle := fs.Duration("idle-timeout", 5*time.Second, "close connections of the book's protocol idle for this `long`")
	timeout := fs.Int("timeout", 0, "close RESP connections idle for this many `seconds`, as Redis's timeout; 0 for never")
	gcPercent := fs.Int("gc-percent", 25, "let the heap grow this `percent` past the live data between garbage collections (as GOGC; Go's default is 100)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file` until the server exits (for go tool pprof)")
	logConnsFlag := fs.Bool("log-conns", false, "log a line for every connection that ends (hangs up, breaks the protocol, is idle too long)")
	maxOutputMB := fs.Int("max-output-mb", maxOutputTotal>>20, "let the connections hold at most this many `MiB` in all (buffers, replies waiting for slow readers, requests arriving, transactions, client names); past it the one holding the most is closed")
	maxClientsFlag := fs.Int("maxclients", maxClients, "serve at most `n` connections at once (fewer if the descriptor limit is lower); more are refused")
	aofCheck := aofFlags(fs)
	rdbCheck := rdbFlags(fs) // rdb_write.go
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: server [-addr host:port] [-resp-addr host:port] [-idle-timeout duration] [-timeout seconds] [-gc-percent n] [-max-output-mb n] [-maxclients n] [-log-conns] [-cpuprofile file] [-appendonly yes|no] [-dir dir] [-appendfilename name] [-appendfsync always|everysec|no] [-dbfilename name] [-save rules]")
		fs.PrintDefaults()
	}
	defer logFlush(time.Second)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		msg("server: unexpected argument %q", fs.Arg(0))
		fs.Usage()
		return 2
	}
	sa, err := sock.ParseAddr(*addr)
	if err != nil {
		msg("server: %v", err)
		fs.Usage()
		return 2
	}
	respSA, err := parseRESPAddr(*respAddr)
	if err != nil {
		msg("server: -resp-addr: %v", err)
		fs.Usage()
		return 2
	}
	if *idle < time.Millisecond {
		msg("server: -idle-timeout must be at least 1ms")
		fs.Usage()
		return 2
	}
	idleTimeoutMs = uint64(idle.Milliseconds())
	if *gcPercent < 1 {
		msg("server: -gc-percent must be at least 1")
		fs.Usage()
		return 2
	}
	if *maxOutputMB < 1 || *maxOutputMB > 1<<20 {
		msg("server: -max-output-mb must be between 1 and 1048576")
		fs.Usage()
		return 2
	}
	maxOutputTotal = *maxOutputMB << 20
	if *maxClientsFlag < 1 {
		msg("server: -maxclients must be at least 1")
		fs.Usage()
		return 2
	}
	maxClients = clampMaxClients(*maxClientsFlag)
	if *timeout < 0 || *timeout > 1<<31/1000 {
		msg("server: -timeout must be between 0 and %d", 1<<31/1000)
		fs.Usage()
		return 2
	}
	respTimeoutMs = uint64(*timeout) * 1000
	respConfigSet("timeout", strconv.Itoa(*timeout))
	respConfigSet("maxclients", strconv.Itoa(maxClients))
	respConfigSet("proto-max-bulk-len", strconv.Itoa(resp.MaxBulkLen))
	logConns = *logConnsFlag
	if err := rdbCheck(); err != nil {
		msg("server: %v", err)
		fs.Usage()
		return 2
	}
	if err := aofCheck(); err != nil {
		msg("server: %v", err)
		fs.Usage()
		return 2
	}
	// The garbage collector lets the heap grow by this percentage of the
	// live data before it collects again. Go's default, 100, lets a server
	// holding 1 GiB of keys take 2 GiB. This server allocates next to
	// nothing per request, so collections are rare whatever the setting,
	// and a smaller headroom costs little CPU: it is the memory per key.
	debug.SetGCPercent(*gcPercent)

	atExit := snapshotTempsRemove
	if *cpuProfile != "" {
		// The profile is written when the server exits, on SIGINT or
		// SIGTERM: run a load, stop the server, then go tool pprof.
		f, err := os.Create(*cpuProfile)
		if err != nil {
			msg("server: %v", err)
			return 1
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			msg("server: %v", err)
			return 1
		}
		atExit = func() {
			snapshotTempsRemove()
			pprof.StopCPUProfile()
			f.Close()
		}
	}
	// Signals are handled before the listeners exist: connections
	// complete as soon as listen() returns, and whoever connects may
	// signal the server at once.
	exitOnSignal(atExit)
	// The log is replayed before the listeners open: no client sees the
	// key space half loaded. The thread pool is there already: a replayed
	// FLUSHALL or DEL of a large value hands it the old values.
	gData.tp = threadpool.New(4)
	snapshotTempsClean()
	if err := aofStart(); err != nil {
		msg("server: %v", err)
		return 1
	}
	// Without the log, the last snapshot (rdb_load.go).
	if err := rdbStart(); err != nil {
		msg("server: %v", err)
		return 1
	}
	fd, err := sock.Listen(sa)
	if err != nil {
		msg("server: %v", err)
		return 1
	}
	bound, err := sock.LocalAddr(fd)
	if err != nil {
		msg("server: %v", err)
		return 1
	}
	// Redis's protocol, on a second listener of the same event loop.
	if err := respListen(respSA); err != nil {
		msg("server: %v", err)
		return 1
	}
	msg("listening on %s", bound)
	// serve returns only when the event loop fails.
	msg("server: %v", serve(fd))
	return 1
}

// wakePipe makes the pipe a signal wakes the loop through, both ends
// nonblocking and closed on exec. (pipe2 does it in one call, but macOS
// has no pipe2.)
func wakePipe(p *[2]int) error {
	if err := unix.Pipe(p[:]); err != nil {
		return err
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if err := sock.SetNonblock(fd); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return err
		}
	}
	return nil
}

// exitOnSignal ends the process with status 0 on SIGINT or SIGTERM, after
// calling atExit. The kernel closes every socket of an exiting process, so
// there is nothing else to tear down by hand. SIGHUP is ignored, as Redis
// ignores it: a server whose terminal went away keeps serving. With -save
// rules the loop saves first, as SHUTDOWN does (signalShutdown): the
// goroutine only wakes it, since the key space is the loop's alone. A
// second SIGINT while that waits exits at once.
func exitOnSignal(atExit func()) {
	sigs := make(chan os.Signal, 2)
	signal.Ignore(syscall.SIGHUP)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var wake [2]int
	saves := len(rdbState.rules) > 0 // fixed once the flags are parsed
	if saves {
		if err := wakePipe(&wake); err != nil {
			msg("server: %v: signals exit without saving", err)
			saves = false
		} else {
			sigWakeFd = wake[0]
		}
	}
	shutdownHook = atExit // SHUTDOWN's exit, and the loop's on a signal
	go func() {
		for sig := range sigs {
			asked := sigPending.Load()
			if saves && !(asked && sig == os.Interrupt) {
				msg("Received %s scheduling shutdown...", unix.SignalName(sig.(syscall.Signal)))
				sigPending.Store(true)
				unix.Write(wake[1], []byte{0}) // full only if the loop owes a wakeup already
				continue
			}
			if asked {
				msg("%v again: exiting now, without saving", sig)
				atExit()
				logFlush(time.Second)
				os.Exit(1)
			}
			msg("%v: shutting down", sig)
			atExit()
			logFlush(time.Second)
			os.Exit(0)
		}
	}()
}

// sigWakeFd is the pipe's end the loop reads when a signal asks for a
// shutdown with a save; -1 without -save rules. sigPending is set while
// that shutdown waits for the loop.
var (
	sigWakeFd  = -1
	sigPending atomic.Bool
)

// signalShutdown is the loop's half of a signal: it saves and exits, or,
// when the save fails, logs why and goes on serving, as Redis does.
func signalShutdown() {
	var b [64]byte
	for {
		if n, _ := unix.Read(sigWakeFd, b[:]); n < len(b) {
			break
		}
	}
	if !shutdown(true, false) { // rdb_write.go
		sigPending.Store(false) // the next signal tries again, as Redis
	}
}

// kMaxEvents is how many ready sockets one Wait reports at most; any
// others are reported by the next call.
const kMaxEvents = 256

// serve is the event loop: wait with epoll until some sockets are ready,
// then do on each only what will not block.
//
// poll() takes the whole list of sockets on every call, so each loop
// iteration costs O(connections) in the server and in the kernel even when
// one socket is ready. epoll keeps the set in the kernel instead: a socket
// is registered once, its interest changed only when it changes, and
// epoll_wait returns only the ready ones. It is level-triggered (the
// default), like poll(): a socket is reported for as long as it is ready,
// so a connection need not drain it in one go. macOS and FreeBSD have
// kqueue for the same; package sock hides the two behind one Poller (and
// has a fallback on poll() itself, for other systems and for tests).
func serve(fd int) error {
	gData.idleList.Init()

	if err := sock.SetNonblock(fd); err != nil {
		return err
	}
	poller, err := sock.NewPoller()
	if err != nil {
		return err
	}
	gData.poller = poller
	// The listening socket is registered once, for reading (a pending
	// connection makes it readable).
	if err := poller.Add(fd, sock.In); err != nil {
		return err
	}
	if err := respRegister(poller); err != nil {
		return err
	}
	if sigWakeFd >= 0 {
		if err := poller.Add(sigWakeFd, sock.In); err != nil {
			return err
		}
	}

	events := make([]sock.Event, kMaxEvents)
	listenerWatched := true
	for {
		// While accepting is paused the listening socket is not watched:
		// it stays readable, and would wake the loop at once.
		// Both listeners pause together: they draw on the same descriptors.
		if watch := !acceptPaused(); watch != listenerWatched {
			for _, lfd := range []int{fd, respListenFd} {
				if lfd < 0 {
					continue // no RESP listener
				}
				if err := poller.Modify(lfd, inIf(listenerWatched), inIf(watch)); err != nil {
					return err
				}
			}
			listenerWatched = watch
		}

		// Sleep no longer than until the nearest timer is due.
		n, err := poller.Wait(events, nextTimerMs())
		if err == unix.EINTR {
			continue // a signal arrived; go round and recompute the timeout
		}
		if err != nil {
			return err
		}

		listenerReady, respListenerReady, sigReady := false, false, false
		for _, ev := range events[:n] {
			if int(ev.Fd) == fd {
				listenerReady = true
				continue
			}
			if int(ev.Fd) == respListenFd {
				respListenerReady = true
				continue
			}
			if int(ev.Fd) == sigWakeFd {
				sigReady = true
				continue
			}
			conn := gData.fd2conn[ev.Fd]
			if conn == nil {
				continue // closed earlier in this batch, for the memory it held (see budgetMake)
			}
			connReady(conn, ev.Events)
		}

		// Serve the parked clients a turn left waiting, and unpark some
		// keys of those that hung up (blocking.go).
		if blockReady.Len() > 0 {
			blockServeReady(nil)
		}
		blockUnparkGone(kUnparkStep)
		// Fire the timers that are due.
		processTimers()
		// Stop watching some keys of the connections closed (watch.go).
		unwatchClosed(kMaxUnwatch)
		// Write the log, fsync it, send the replies that waited for it.
		aofBeforeSleep()
		// A snapshot's step: the next keys, to the file (snapshot.go).
		snapshotStep()

		if sigReady {
			signalShutdown() // returns only if the save failed
		}
		if listenerReady {
			acceptNewConn(fd)
		}
		if respListenerReady {
			acceptNewConn(respListenFd)
		}
	}
}

// inIf returns sock.In if watch, else no events: what a listening socket
// is watched for.
func inIf(watch bool) sock.Events {
	if watch {
		return sock.In
	}
	return 0
}

// connEvents returns the events a connection waits for: input while
// it may answer more requests, room to write while replies are unsent, or
// while requests left over from its last turn wait (see kMaxTurn): its
// socket then has room, or will once the client reads, so epoll reports it
// again and it is not forgotten. Errors and hang-ups need no asking;
// epoll always reports them, and the next read or write finds the error.
func connEvents(conn *conn) sock.Events {
	var events sock.Events
	if parkedRoom(conn) {
		events |= sock.In // its EOF (see connectionIO)
	}
	if conn.canAnswer() {
		events |= sock.In
		if conn.framing.requestReady(conn) {
			events |= sock.Out
		}
	}
	if conn.pending() > 0 {
		events |= sock.Out
	}
	if aofWaits(conn) {
		// Its replies wait for the log, not for room to write: the
		// loop sends them (aof.go), and must not spin meanwhile.
		events &^= sock.Out
	}
	return events
}

// connWatch tells epoll what the connection now waits for, with a syscall
// only when that differs from what it waited for before: a client whose
// replies go out in full at once only ever waits for input, and then
// costs no epoll_ctl at all.
func connWatch(conn *conn) {
	want := connEvents(conn)
	if want == conn.events {
		return
	}
	if err := gData.poller.Modify(conn.fd, conn.events, want); err != nil {
		panic(err) // the fd is registered; cannot fail
	}
	conn.events = want
}

// connReady does for a connection epoll reported ready what it asks:
// reads, answers and writes; then closes it if it is done, or watches it
// for what it waits for next.
func connReady(conn *conn, events sock.Events) {
	connectionIO(conn, events)
	if conn.state == stateEnd {
		// The client hung up or broke the protocol.
		connHungUp(conn)
	} else {
		connWatch(conn)
	}
}

// connPut stores conn at index conn.fd, growing the table as needed.
func connPut(fd2conn *[]*conn, conn *conn) {
	for len(*fd2conn) <= conn.fd {
		*fd2conn = append(*fd2conn, nil)
	}
	(*fd2conn)[conn.fd] = conn
}

// connDone closes a connection and forgets it, timer included. Closing
// the fd also takes it out of the epoll set: the kernel drops a socket from
// every epoll set once its last file descriptor is closed, and nothing here
// duplicates these fds (no dup, no fork), so no EPOLL_CTL_DEL is needed.
// (Forget costs nothing then; only the poll() fallback needs it.)
//
// A RESP connection's watched keys are unwatched at once, a map operation
// each: budgetMake closes a connection to have its memory back now.
// A connection that ends by itself goes through connHungUp instead.
func connDone(conn *conn) {
	if st, ok := conn.framing.(*respState); ok {
		st.release()
	}
	connClose(conn)
}

// connHungUp is connDone for a connection that ended by itself: it hung
// up, broke the protocol, or stayed idle too long. Its watched keys are
// unwatched over the next loop iterations (see unwatchClosed), so that
// many watchers closing together do not stall the loop.
func connHungUp(conn *conn) {
	if st, ok := conn.framing.(*respState); ok {
		st.releaseLater()
	}
	connClose(conn)
}

// connClose closes a connection and forgets it, once its framing has
// given back what it held (connDone).
func connClose(conn *conn) {
	gData.fd2conn[conn.fd] = nil
	gStats.connsOpen--
	outputHeld -= cap(conn.wbuf)
	inputHeld -= cap(conn.rbuf)
	conn.rbuf, conn.wbuf = nil, nil
	bufForget(conn)
	connsOpen--
	gData.poller.Forget(conn.fd)
	unix.Close(conn.fd)
	conn.idleList.Detach()
}

// acceptNewConn accepts every pending connection (see acceptAll).
func acceptNewConn(fd int) {
	acceptAll(fd, func(connfd int) { startConn(connfd, fd == respListenFd) })
}

// startConn starts a newly accepted connection reading requests. It came
// from accept4 already nonblocking (see acceptAll); resp says it came from
// the RESP listener.
func startConn(connfd int, resp bool) {
	if connsOpen >= maxClients {
		refuseConn(connfd, resp)
		return
	}
	// Send replies as soon as they are written. With Nagle's algorithm on,
	// the kernel holds back a small segment while an earlier one is
	// unacknowledged, and the client, which has nothing to send until it
	// has all its replies, delays that acknowledgement (up to 40 ms on
	// Linux): a pipelined batch answered in two writes stalls for it.
	if err := sock.SetNoDelay(connfd); err != nil {
		msg("%v", err)
		unix.Close(connfd)
		return
	}
	conn := newConn(connfd)
	if resp {
		conn.framing = newRESPState(conn)
	}
	// Register the connection once; connWatch changes its events later.
	conn.events = connEvents(conn)
	if err := gData.poller.Add(connfd, conn.events); err != nil {
		msg("%v", err)
		unix.Close(connfd)
		return
	}
	conn.idleStart = getMonotonicUsec()
	idleListOf(conn).InsertBefore(&conn.idleList)
	connPut(&gData.fd2conn, conn)
	connsOpen++
	gStats.connsReceived++
	gStats.connsOpen++
}
