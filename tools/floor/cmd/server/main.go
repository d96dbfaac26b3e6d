// Command server runs the floor (package floor): a server of the book's
// protocol that answers every request with a nil and does nothing else,
// the least a request can cost on this machine. tools/bench-redis.sh
// measures it beside the chapters' servers and Redis:
//
//	tools/bench-redis.sh --parts throughput ch18_performance tools/floor
//
// It listens on -addr (127.0.0.1:1234 by default) and stops on SIGINT or
// SIGTERM.
package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"example.com/byor/tools/floor"
	"example.com/byor/tools/internal/cmdflag"
)

const usage = `usage: server [-addr host:port]

Answers every request of the book's protocol with a nil, one read and one
write per ready connection: the floor the chapters' servers are measured
against. Stops on SIGINT or SIGTERM.

flags:
`

func main() {
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; close(stop) }()
	os.Exit(run(os.Args[1:], os.Stderr, stop))
}

// run is main with its error stream and the signal to stop passed in, for the
// tests; it serves until quit is closed and returns the exit status.
func run(args []string, stderr io.Writer, quit <-chan struct{}) int {
	fs := cmdflag.NewFlagSet("server", usage, stderr)
	addr := fs.String("addr", "127.0.0.1:1234", "the IPv4 `host:port` to listen on (port 0 picks one)")
	if status, stop := cmdflag.Parse(fs, args); stop {
		return status
	}
	ap, err := netip.ParseAddrPort(*addr)
	if err != nil || !ap.Addr().Is4() {
		return cmdflag.Failf(fs, "bad -addr %q: want an IPv4 host:port", *addr)
	}
	lfd, port, err := floor.Listen(ap.Addr().As4(), int(ap.Port()))
	if err != nil {
		fmt.Fprintln(stderr, "server:", err)
		return 1
	}
	fmt.Fprintf(stderr, "listening on %s\n", netip.AddrPortFrom(ap.Addr(), uint16(port)))
	if err := floor.Serve(lfd, quit); err != nil {
		fmt.Fprintln(stderr, "server:", err)
		return 1
	}
	return 0
}
