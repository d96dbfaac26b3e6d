// Package server is chapter 15's server: the book's, hardened against what
// surrounds it: file descriptors running out, a log nobody reads, a
// hang-up, and clients that drip requests or ask for replies too big to
// send.
package server

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch15_hardening/sock"
	"example.com/byor/ch15_hardening/threadpool"
)

// DefaultAddr is where the server listens unless told otherwise: the book's
// port, on the loopback interface only.
const DefaultAddr = "127.0.0.1:1234"

// Main runs the server with command-line arguments args and returns the
// process exit code. It logs to stderr; what a client says goes to stdout.
func Main(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "`host:port` to listen on (port 0 picks a free port)")
	idle := fs.Duration("idle-timeout", 5*time.Second, "close connections idle for this `long`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: server [-addr host:port] [-idle-timeout duration]")
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
	if *idle < time.Millisecond {
		msg("server: -idle-timeout must be at least 1ms")
		fs.Usage()
		return 2
	}
	idleTimeoutMs = uint64(idle.Milliseconds())

	// Signals are handled before the listener exists: connections
	// complete as soon as listen() returns, and whoever connects may
	// signal the server at once.
	exitOnSignal()
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
	msg("listening on %s", bound)
	if err := serve(fd); err != nil {
		msg("server: %v", err)
		return 1
	}
	return 0
}

// exitOnSignal ends the process with status 0 on SIGINT or SIGTERM. The
// kernel closes every socket of an exiting process, so there is nothing to
// tear down by hand. SIGHUP (the terminal went away) ends it the same way,
// with a log line, rather than killing it silently.
func exitOnSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		msg("%v: shutting down", <-sigs)
		logFlush(time.Second)
		os.Exit(0)
	}()
}

// serve is the event loop: wait with poll() until some sockets are ready,
// then do on each only what will not block.
func serve(fd int) error {
	gData.idleList.Init()
	gData.tp = threadpool.New(4)

	if err := sock.SetNonblock(fd); err != nil {
		return err
	}

	var pollArgs []unix.PollFd
	for {
		// The listening socket goes first, then every connection, asking
		// for the one direction its state needs. While accepting is paused
		// the listener's slot holds -1, which poll() skips: the socket
		// stays readable, and would wake the loop at once.
		listener := int32(fd)
		if acceptPaused() {
			listener = -1
		}
		pollArgs = append(pollArgs[:0], unix.PollFd{Fd: listener, Events: unix.POLLIN})
		for _, conn := range gData.fd2conn {
			if conn == nil {
				continue
			}
			pfd := unix.PollFd{Fd: int32(conn.fd), Events: unix.POLLIN}
			if conn.state == stateRes {
				pfd.Events = unix.POLLOUT
			}
			pfd.Events |= unix.POLLERR
			pollArgs = append(pollArgs, pfd)
		}

		// Sleep no longer than until the nearest timer is due.
		if _, err := unix.Poll(pollArgs, nextTimerMs()); err != nil {
			if err == unix.EINTR {
				continue // a signal arrived; poll() is never restarted
			}
			return os.NewSyscallError("poll", err)
		}

		for _, pfd := range pollArgs[1:] {
			if pfd.Revents == 0 {
				continue
			}
			conn := gData.fd2conn[pfd.Fd]
			connectionIO(conn)
			if conn.state == stateEnd {
				// The client hung up or broke the protocol.
				connDone(conn)
			}
		}

		// Fire the timers that are due.
		processTimers()

		if pollArgs[0].Revents != 0 {
			acceptNewConn(fd)
		}
	}
}

// connPut stores conn at index conn.fd, growing the table as needed.
func connPut(fd2conn *[]*conn, conn *conn) {
	for len(*fd2conn) <= conn.fd {
		*fd2conn = append(*fd2conn, nil)
	}
	(*fd2conn)[conn.fd] = conn
}

// connDone closes a connection and forgets it, timer included.
func connDone(conn *conn) {
	gData.fd2conn[conn.fd] = nil
	unix.Close(conn.fd)
	conn.idleList.Detach()
}

// acceptNewConn accepts every pending connection (see acceptAll).
func acceptNewConn(fd int) {
	acceptAll(fd, startConn)
}

// startConn starts a newly accepted connection reading requests.
func startConn(connfd int) {
	if err := sock.SetNonblock(connfd); err != nil {
		msg("%v", err)
		unix.Close(connfd)
		return
	}
	conn := &conn{fd: connfd, state: stateReq}
	conn.idleList.Owner = conn
	conn.idleStart = getMonotonicUsec()
	gData.idleList.InsertBefore(&conn.idleList)
	connPut(&gData.fd2conn, conn)
}
