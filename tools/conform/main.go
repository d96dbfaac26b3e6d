// Command conform checks a server, written in any language, against the
// wire behaviour of the book's chapters, stage by stage.
//
// Usage:
//
//	go run ./tools/conform [flags] chNN...
//
// Flags:
//
//	-addr host:port   where the server listens (default 127.0.0.1:1234, the
//	                  book's port; the book's programs listen on 0.0.0.0:1234)
//	-server 'COMMAND' start the server with COMMAND (split on blanks; single
//	                  quotes group words), restart it before each check that
//	                  needs an empty key space, and stop its process group at
//	                  the end. {addr} and {port} in COMMAND become a free
//	                  loopback address; if COMMAND names neither, the server
//	                  is expected on -addr.
//	-upto chNN        run every stage a chNN server can pass, in order: from
//	                  the first stage that speaks chNN's wire format up to
//	                  chNN (ch14: ch11 ... ch14), saying which earlier
//	                  stages it skips and why; it stops at the first
//	                  stage that fails
//	-strict           report the book's own known bugs (warnings) as failures
//	-edition E        2023 (default: the edition the chapters follow) or
//	                  newer (the newer edition's wire values, as far as public
//	                  sources agree; values resting on one source are
//	                  reported as "unverified" and never fail)
//	-v                show raw hex of requests and replies in failures
//
// Stages: ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14, and
// beyond the book ch15 (hardening), ch16 (hash field TTLs), ch17 (the
// event loop's system calls), ch18 (performance), ch19 (the reply writer and the framing as
// interfaces, nothing new on the wire), ch20 (the command table), ch21
// (Redis's protocol, RESP: point it at the RESP listener), ch22 (RESP's
// bounds: values of any size), ch23 (RESP3, HELLO and the handshake),
// ch24 (Redis's commands over RESP), ch25 (SCAN), ch26 (transactions,
// INFO), ch27 (the string commands), ch28 (bits and LCS), ch29 (the key
// commands), ch30 (the hash commands), ch31 (sorted-set ranges), ch32
// (their pops and algebra), ch33 (the append-only file), ch34 (RDB
// files), ch35 (BGSAVE), ch36 (BGREWRITEAOF), ch37 (lists) and ch38
// (blocking pops), all over RESP. Each prints one line per check, e.g.
// "ch07 set, get, del answer with the chapter's replies ... ok"; a
// failure adds the request, the expected and received replies as the
// chapter's client prints them, the book section and a hint. The book's
// sessions are read from the chapters' chNN_*/testdata/script files, so
// run it inside the repository.
//
// Without -server, checks that need an empty key space (the order of keys)
// are skipped and say so; the others use keys named conform:*.
//
// Exit status: 0 if every check passed (warnings, skips and unverified
// checks included), 1 if one failed, 2 for usage errors.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"example.com/byor/tools/internal/cmdflag"
	"example.com/byor/tools/internal/conform"
)

// usage is the first line of the usage text; the stages and the flags
// follow it.
const usage = "usage: conform [-addr host:port | -server 'COMMAND'] [-upto chNN] [-strict] [-edition 2023|newer] [-v] chNN...\n"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := cmdflag.NewFlagSet("conform", usage+"stages: "+strings.Join(conform.StageIDs(), " ")+"\n", stderr)
	addr := fs.String("addr", "127.0.0.1:1234", "`host:port` where the server listens")
	server := fs.String("server", "", "`command` that starts the server ({addr}/{port} replaced by a free loopback address)")
	upto := fs.String("upto", "", "run every stage a `chNN` server can pass (from the first of its wire format), stopping at the first failing one")
	strict := fs.Bool("strict", false, "report known bugs of the book's code (warnings) as failures")
	edition := fs.String("edition", "2023", "`edition` whose wire values to expect: 2023 or newer")
	verbose := fs.Bool("v", false, "show raw hex in failure reports")
	if status, stop := cmdflag.ParseArgs(fs, args); stop {
		return status
	}
	ids := fs.Args()
	stop := false
	switch {
	case *upto != "" && len(ids) > 0:
		return cmdflag.Failf(fs, "give either -upto or stage names, not both")
	case *upto != "":
		plan, err := conform.UpTo(*upto)
		if err != nil {
			return cmdflag.Fail(fs, err)
		}
		ids, stop = plan.IDs, true
		if len(plan.Skipped) > 0 {
			fmt.Fprintf(stdout, "skipping %s: %s\n", strings.Join(plan.Skipped, " "), plan.Why)
		}
	case len(ids) == 0:
		return cmdflag.Failf(fs, "no stage named")
	}
	for _, id := range ids {
		if conform.StageByID(id) == nil {
			return cmdflag.Failf(fs, "unknown stage %q", id)
		}
	}
	if *edition != "2023" && *edition != "newer" {
		return cmdflag.Failf(fs, "unknown edition %q", *edition)
	}
	cfg := conform.Config{
		Addr:    *addr,
		Strict:  *strict,
		Verbose: *verbose,
		Edition: conform.Edition(*edition),
		Out:     stdout,
	}
	if *server != "" {
		words, err := splitCommand(*server)
		if err != nil || len(words) == 0 {
			return cmdflag.Failf(fs, "bad -server command %q", *server)
		}
		cfg.Server = words
	}
	sum, err := conform.Run(cfg, ids, stop)
	if err != nil {
		fmt.Fprintf(stderr, "conform: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d ok, %d failed, %d warnings, %d skipped, %d unverified\n",
		sum.Count(conform.OK), sum.Count(conform.Failed), sum.Count(conform.Warned), sum.Count(conform.Skipped), sum.Count(conform.Unverified))
	if sum.Failed {
		return 1
	}
	return 0
}

// splitCommand splits a command line on blanks; single quotes group words.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, in = true, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
