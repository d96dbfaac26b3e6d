// Package server is chapter 04's server: still one connection at a time,
// but now it reads length-prefixed requests in a loop, answering each with
// "world", until the client hangs up or breaks the protocol.
package server

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"example.com/byor/ch04_protocol/proto"
	"example.com/byor/ch04_protocol/sock"
)

// DefaultAddr is where the server listens unless told otherwise: the book's
// port, on the loopback interface only.
const DefaultAddr = "127.0.0.1:1234"

// Main runs the server with command-line arguments args and returns the
// process exit code. It logs to stderr; what a client says goes to stdout.
func Main(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "`host:port` to listen on (port 0 picks a free port)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: server [-addr host:port]")
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

// serve accepts connections forever, serving each in turn until it ends.
func serve(fd int) error {
	for {
		connfd, err := sock.Accept(fd)
		if err != nil {
			msg("%v", err)
			continue
		}
		// Only one client is served at a time: the next waits in the
		// listen backlog until this one is done.
		for oneRequest(connfd) == nil {
		}
		unix.Close(connfd)
	}
}

// oneRequest reads one request, prints it and replies "world". Any error
// (including the client's EOF) ends the connection.
func oneRequest(connfd int) error {
	rbuf := make([]byte, proto.KMaxMsg)
	body, err := proto.ReadMsg(connfd, rbuf)
	if err != nil {
		if err == io.EOF {
			msg("EOF")
		} else {
			msg("%v", err)
		}
		return err
	}
	fmt.Printf("client says: %s\n", body)
	if err := proto.WriteMsg(connfd, []byte("world")); err != nil {
		msg("%v", err)
		return err
	}
	return nil
}
