// Package server is chapter 12's server: connections idle for too long are
// closed, driven by timers that set poll()'s timeout.
package server

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch12_timers/sock"
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

// msg logs one line to stderr, like the book's msg().
func msg(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// exitOnSignal ends the process with status 0 on SIGINT or SIGTERM. The
// kernel closes every socket of an exiting process, so there is nothing to
// tear down by hand.
func exitOnSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		msg("%v: shutting down", <-sigs)
		os.Exit(0)
	}()
}

// serve is the event loop: wait with poll() until some sockets are ready,
// then do on each only what will not block.
func serve(fd int) error {
	gData.idleList.Init()

	if err := sock.SetNonblock(fd); err != nil {
		return err
	}

	var pollArgs []unix.PollFd
	for {
		// The listening socket goes first, then every connection, asking
		// for the one direction its state needs.
		pollArgs = append(pollArgs[:0], unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
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

// acceptNewConn accepts one connection and starts it reading requests.
func acceptNewConn(fd int) {
	connfd, err := sock.Accept(fd)
	if err != nil {
		msg("%v", err)
		return
	}
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
