// Package client is chapter 04's client: it sends three length-prefixed
// requests on one connection, printing each reply before sending the next.
package client

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch04_protocol/proto"
	"example.com/byor/ch04_protocol/sock"
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

	for _, text := range []string{"hello1", "hello2", "hello3"} {
		if err := query(fd, text); err != nil {
			return err
		}
	}
	return nil
}

// query sends one request and prints the reply.
func query(fd int, text string) error {
	if err := proto.WriteMsg(fd, []byte(text)); err != nil {
		return err
	}
	rbuf := make([]byte, proto.KMaxMsg)
	reply, err := proto.ReadMsg(fd, rbuf)
	if err != nil {
		return err
	}
	fmt.Printf("server says: %s\n", reply)
	return nil
}
