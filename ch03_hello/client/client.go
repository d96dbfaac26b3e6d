// Package client is chapter 03's client: it sends "hello" and prints what
// the server answers, with one write and one read.
package client

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch03_hello/sock"
)

// DefaultAddr is the server address used unless -addr says otherwise.
const DefaultAddr = "127.0.0.1:1234"

// Main runs the client with command-line arguments args and returns the
// process exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "server `host:port`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: client [-addr host:port]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "client: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	sa, err := sock.ParseAddr(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		fs.Usage()
		return 2
	}
	if err := run(sa); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 1
	}
	return 0
}

func run(sa *unix.SockaddrInet4) error {
	fd, err := sock.Dial(sa)
	if err != nil {
		return err
	}
	defer unix.Close(fd)

	if _, err := sock.Write(fd, []byte("hello")); err != nil {
		return err
	}
	rbuf := make([]byte, 64-1)
	n, err := sock.Read(fd, rbuf)
	if err != nil {
		return err
	}
	fmt.Printf("server says: %s\n", rbuf[:n])
	return nil
}
