// Command explore serves a page that draws the chapters' own data
// structures as commands change them: chapter 8's hashtable while it
// resizes, chapter 10's AVL tree and chapter 11's sorted sets, chapter 12's
// idle list, chapter 13's heap of timers, chapter 14's key space,
// chapter 37's lists, nodes of listpacks, and chapter 38's clients parked
// in a queue per key by blocking pops.
//
//	go run ./tools/explore [-addr host:port]
//
// then open http://127.0.0.1:8080/. A state is a URL:
//
//	/?view=zset&cmds=zadd%20z%201%20a;zadd%20z%202%20b&step=1
//
// replays the commands, separated by ';', through the chapter's packages
// and shows the state after step of them (all of them without step);
// rehash=N makes a resizing hashtable move N keys per operation instead of
// the book's 128, so that a resize can be watched. A query over 64 KiB is
// refused (414), and the page holds the state once, in the form its step
// buttons submit.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"example.com/byor/tools/internal/cmdflag"
)

const usage = "usage: explore [-addr host:port]\n"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run is main with its error stream passed in, for the tests; it returns
// the exit status.
func run(args []string, stderr io.Writer) int {
	fs := cmdflag.NewFlagSet("explore", usage, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to serve the page on")
	if status, stop := cmdflag.Parse(fs, args); stop {
		return status
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return cmdflag.Failf(fs, "-addr: %v", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "explore: open http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: handler(), ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return 1
	}
	return 0
}
