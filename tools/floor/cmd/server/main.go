// Command server runs the floor (package floor): a server of the book's
// protocol that answers every request with a nil and does nothing else,
// the least a request can cost on this machine. tools/bench-redis.sh
// measures it beside the chapters' servers and Redis:
//
//	tools/bench-redis.sh --parts throughput ch16_performance tools/floor
//
// It listens on -addr (127.0.0.1:1234 by default) and stops on SIGINT or
// SIGTERM.
package main

import (
	"fmt"
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
	fs := cmdflag.NewFlagSet("server", usage, os.Stderr)
	addr := fs.String("addr", "127.0.0.1:1234", "the IPv4 `host:port` to listen on (port 0 picks one)")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 0 {
		if err == nil {
			fmt.Fprintf(os.Stderr, "server: unexpected argument %q\n", fs.Arg(0))
		}
		os.Exit(2)
	}
	ap, err := netip.ParseAddrPort(*addr)
	if err != nil || !ap.Addr().Is4() {
		fmt.Fprintf(os.Stderr, "server: bad -addr %q: want an IPv4 host:port\n", *addr)
		os.Exit(2)
	}
	lfd, port, err := floor.Listen(ap.Addr().As4(), int(ap.Port()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; close(stop) }()
	fmt.Fprintf(os.Stderr, "listening on %s\n", netip.AddrPortFrom(ap.Addr(), uint16(port)))
	if err := floor.Serve(lfd, stop); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}
