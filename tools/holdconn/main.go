// Command holdconn opens one connection to a server, sends nothing (or the
// bytes given with -send), and holds it open until the server closes it or
// the user presses Ctrl-C, saying which happened and after how long. It
// stands in for `nc host port` in the guides: in chapter 06 it keeps a
// connection open while another client is served; in chapter 12 it shows
// the server hanging up on an idle connection.
//
//	go run ./tools/holdconn                       # 127.0.0.1:1234, silent
//	go run ./tools/holdconn -send 3 -for 10s      # 3 of a length prefix's 4 bytes
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"time"

	"example.com/byor/tools/internal/cmdflag"
)

const usage = `usage: holdconn [-addr host:port] [-send N] [-for duration]

Connects to the server, sends N zero bytes (default none: an idle client;
fewer than 4 is part of a length prefix), then waits until the server closes
the connection, -for has passed, or Ctrl-C. Prints one line when connected
and one when done. Exit status: 0 when done, 1 if the connection failed,
2 on bad usage.

flags:
`

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, stop))
}

// run is main with its streams and the interrupt signal passed in, for the
// tests.
func run(args []string, stdout, stderr io.Writer, interrupt <-chan os.Signal) int {
	fs := cmdflag.NewFlagSet("holdconn", usage, stderr)
	addr := fs.String("addr", "127.0.0.1:1234", "server address")
	send := fs.Int("send", 0, "zero bytes to send after connecting (0 to 1024)")
	hold := fs.Duration("for", time.Hour, "give up waiting after this long")
	if status, stop := cmdflag.Parse(fs, args); stop {
		return status
	}
	if err := cmdflag.First(
		cmdflag.Between("send", *send, 0, 1024),
		cmdflag.Check(*hold > 0, "-for must be above 0"),
	); err != nil {
		return cmdflag.Fail(fs, err)
	}
	conn, err := net.DialTimeout("tcp", *addr, 5*time.Second)
	if err != nil {
		fmt.Fprintf(stderr, "holdconn: %v\n", err)
		return 1
	}
	defer conn.Close()
	if *send > 0 {
		if _, err := conn.Write(make([]byte, *send)); err != nil {
			fmt.Fprintf(stderr, "holdconn: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "connected to %s, sent %d bytes; holding the connection\n", conn.RemoteAddr(), *send)
	start := time.Now()
	closed := make(chan error, 1)
	go func() {
		// Whatever the server sends is read and dropped; EOF or an error
		// means it hung up.
		_, err := io.Copy(io.Discard, conn)
		closed <- err
	}()
	elapsed := func() string { return time.Since(start).Round(100 * time.Millisecond).String() }
	select {
	case err := <-closed:
		how := "closed the connection"
		if err != nil && !strings.Contains(err.Error(), "use of closed") {
			how = "reset the connection (" + err.Error() + ")"
		}
		fmt.Fprintf(stdout, "the server %s after %s\n", how, elapsed())
	case <-time.After(*hold):
		fmt.Fprintf(stdout, "still open after %s; closing it\n", elapsed())
	case <-interrupt:
		fmt.Fprintf(stdout, "interrupted after %s; closing the connection\n", elapsed())
	}
	return 0
}
