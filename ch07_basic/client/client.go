// Package client sends the command given on its command line, such as
// "set k v", as one request and prints the reply's status and data.
package client

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"example.com/byor/ch07_basic/proto"
	"example.com/byor/ch07_basic/sock"
)

// DefaultAddr is the server address used unless -addr says otherwise.
const DefaultAddr = "127.0.0.1:1234"

// Main runs the client with command-line arguments args and returns the
// process exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "server `host:port`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: client [-addr host:port] cmd [arg ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sa, err := sock.ParseAddr(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		fs.Usage()
		return 2
	}
	if err := run(sa, fs.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 1
	}
	return 0
}

func run(sa *unix.SockaddrInet4, cmd []string) error {
	fd, err := sock.Dial(sa)
	if err != nil {
		return err
	}
	defer unix.Close(fd)

	if err := sendReq(fd, cmd); err != nil {
		return err
	}
	return readRes(fd)
}

// sendReq sends one command as a request.
func sendReq(fd int, cmd []string) error {
	return proto.WriteMsg(fd, proto.EncodeReq(cmd))
}

// readRes reads one reply and prints its status code and data.
func readRes(fd int) error {
	rbuf := make([]byte, proto.KMaxMsg)
	reply, err := proto.ReadMsg(fd, rbuf)
	if err != nil {
		return err
	}
	if len(reply) < 4 {
		return errors.New("bad response")
	}
	rescode := binary.LittleEndian.Uint32(reply)
	// Like the book's client, a space follows the status even when there is
	// no data, so the output matches it byte for byte.
	fmt.Printf("server says: [%d] %s\n", rescode, reply[4:])
	return nil
}
