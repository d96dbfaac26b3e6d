// Package client is chapter 06's client: it pipelines three requests,
// sending them all before reading any reply.
package client

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch06_eventloop/proto"
	"example.com/byor/ch06_eventloop/sock"
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

	queries := []string{"hello1", "hello2", "hello3"}
	for _, text := range queries {
		if err := sendReq(fd, text); err != nil {
			return err
		}
	}
	for range queries {
		if err := readRes(fd); err != nil {
			return err
		}
	}
	return nil
}

// sendReq sends one request without waiting for its reply.
func sendReq(fd int, text string) error {
	return proto.WriteMsg(fd, []byte(text))
}

// readRes reads one reply and prints it.
func readRes(fd int) error {
	rbuf := make([]byte, proto.KMaxMsg)
	reply, err := proto.ReadMsg(fd, rbuf)
	if err != nil {
		return err
	}
	fmt.Printf("server says: %s\n", reply)
	return nil
}
