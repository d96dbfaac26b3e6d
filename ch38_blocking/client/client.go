// Package client sends the command given on its command line, such as
// "zadd z 1 n", as one request and prints the serialized reply, one line per
// value, as (nil), (err), (str), (int), (dbl) or (arr).
package client

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/proto"
	"example.com/byor/ch38_blocking/sock"
)

// DefaultAddr is the server address used unless -addr says otherwise.
const DefaultAddr = "127.0.0.1:1234"

// Main runs the client with command-line arguments args and returns the
// process exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "server `host:port`")
	drip := fs.Duration("drip", 0, "send the request one byte at a time, waiting this `long` between bytes, as a slow or hostile client would")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: client [-addr host:port] [-drip duration] cmd [arg ...]")
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
	if err := run(sa, fs.Args(), *drip); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 1
	}
	return 0
}

func run(sa *unix.SockaddrInet4, cmd []string, drip time.Duration) error {
	fd, err := sock.Dial(sa)
	if err != nil {
		return err
	}
	defer unix.Close(fd)

	if drip > 0 {
		return dripReq(fd, cmd, drip)
	}
	if err := sendReq(fd, cmd); err != nil {
		return err
	}
	return readRes(fd, os.Stdout)
}

// errClosedEarly is what a dripping client reports when the server
// closes the connection before the request is whole.
var errClosedEarly = errors.New("the server closed the connection before the request was whole")

// dripReq sends one command as a request a byte at a time, pause apart,
// then prints the reply. A write fails once the server has closed the
// connection (the one before draws the reset), and a read finds the end.
func dripReq(fd int, cmd []string, pause time.Duration) error {
	req := proto.EncodeReq(cmd)
	if len(req) > proto.KMaxMsg {
		return proto.ErrTooLong
	}
	msg := binary.LittleEndian.AppendUint32(nil, uint32(len(req)))
	for _, b := range append(msg, req...) {
		if err := sock.WriteAll(fd, []byte{b}); err != nil {
			return errClosedEarly
		}
		time.Sleep(pause)
	}
	err := readRes(fd, os.Stdout)
	if errors.Is(err, io.EOF) || errors.Is(err, unix.ECONNRESET) {
		return errClosedEarly
	}
	return err
}

// sendReq sends one command as a request.
func sendReq(fd int, cmd []string) error {
	return proto.WriteMsg(fd, proto.EncodeReq(cmd))
}

// errBadResponse reports a reply that is not exactly one well-formed value.
var errBadResponse = errors.New("bad response")

// readRes reads one reply and prints it to w.
func readRes(fd int, w io.Writer) error {
	rbuf := make([]byte, proto.KMaxMsg)
	reply, err := proto.ReadMsg(fd, rbuf)
	if err != nil {
		return err
	}
	n, err := onResponse(reply, w)
	if err == nil && n != len(reply) {
		err = errBadResponse // bytes left over after the value
	}
	return err
}

// onResponse prints the serialized value at the front of data, one line
// per value, and returns the number of bytes it took up. It checks every
// length against what is left, so no input can make it read out of bounds;
// a length is compared before it becomes an int, which on a 32-bit machine
// would turn one of 2^31 or more negative.
func onResponse(data []byte, w io.Writer) (int, error) {
	if len(data) < 1 {
		return 0, errBadResponse
	}
	switch data[0] {
	case proto.SerNil:
		fmt.Fprintln(w, "(nil)")
		return 1, nil
	case proto.SerErr:
		if len(data) < 1+8 {
			return 0, errBadResponse
		}
		code := int32(binary.LittleEndian.Uint32(data[1:]))
		n := binary.LittleEndian.Uint32(data[1+4:])
		if uint64(n) > uint64(len(data)-(1+8)) {
			return 0, errBadResponse
		}
		end := 1 + 8 + int(n)
		fmt.Fprintf(w, "(err) %d %s\n", code, data[1+8:end])
		return end, nil
	case proto.SerStr:
		if len(data) < 1+4 {
			return 0, errBadResponse
		}
		n := binary.LittleEndian.Uint32(data[1:])
		if uint64(n) > uint64(len(data)-(1+4)) {
			return 0, errBadResponse
		}
		end := 1 + 4 + int(n)
		fmt.Fprintf(w, "(str) %s\n", data[1+4:end])
		return end, nil
	case proto.SerInt:
		if len(data) < 1+8 {
			return 0, errBadResponse
		}
		fmt.Fprintf(w, "(int) %d\n", int64(binary.LittleEndian.Uint64(data[1:])))
		return 1 + 8, nil
	case proto.SerDbl:
		if len(data) < 1+8 {
			return 0, errBadResponse
		}
		fmt.Fprintf(w, "(dbl) %s\n", formatG(math.Float64frombits(binary.LittleEndian.Uint64(data[1:]))))
		return 1 + 8, nil
	case proto.SerArr:
		if len(data) < 1+4 {
			return 0, errBadResponse
		}
		n := binary.LittleEndian.Uint32(data[1:])
		fmt.Fprintf(w, "(arr) len=%d\n", n)
		pos := 1 + 4
		for i := uint32(0); i < n; i++ {
			used, err := onResponse(data[pos:], w)
			if err != nil {
				return 0, err
			}
			pos += used
		}
		fmt.Fprintln(w, "(arr) end")
		return pos, nil
	default:
		return 0, errBadResponse
	}
}

// formatG formats a float as C's printf("%g") does, which is what the
// book's client prints: six significant digits, trailing zeros dropped,
// an exponent for very large or small numbers, and "inf"/"nan".
func formatG(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
