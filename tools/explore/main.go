// Command explore serves a page that draws the chapters' own data
// structures as commands change them: chapter 8's hashtable while it
// resizes, chapter 10's AVL tree and chapter 11's sorted sets, chapter 12's
// idle list, chapter 13's heap of timers and chapter 14's key space.
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
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to serve the page on")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: explore [-addr host:port]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "explore: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		fmt.Fprintf(os.Stderr, "explore: -addr: %v\n", err)
		fs.Usage()
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "explore: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "explore: open http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: handler(), ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "explore: %v\n", err)
		return 1
	}
	return 0
}
