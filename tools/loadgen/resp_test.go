package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/tools/internal/fakeserver"
	"github.com/google/go-cmp/cmp"
)

// respReply answers set with OK, get with "xxx" and anything else with
// :1, unless bad (when not nil) has another reply for the command.
func respReply(bad func(cmd string) string) func(args []string) string {
	return func(args []string) string {
		cmd := strings.ToLower(args[0])
		if bad != nil {
			if b := bad(cmd); b != "" {
				return b
			}
		}
		switch cmd {
		case "set":
			return "+OK\r\n"
		case "get":
			return "$3\r\nxxx\r\n"
		}
		return ":1\r\n"
	}
}

func TestRESPEndToEnd(t *testing.T) {
	for _, workload := range []string{"set", "get", "zadd", "pexpire"} {
		t.Run(workload, func(t *testing.T) {
			f := fakeserver.RESP(t, respReply(nil))
			code, out, errs := loadgen(t, "-proto", "resp", "-addr", f.Addr, "-t", workload,
				"-n", "1000", "-c", "3", "-P", "7", "-r", "200")
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errs)
			}
			if s := summary(t, out); s["n"] != 1000 || s["errors"] != 0 {
				t.Errorf("summary %q, want n=1000 errors=0", out)
			}
			want := map[string]int{workload: 1000}
			if workload == "get" || workload == "pexpire" {
				want["set"] = 200 // the preload
			}
			if diff := cmp.Diff(want, f.Counts()); diff != "" {
				t.Errorf("commands seen by the server (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRESPBadReplies(t *testing.T) {
	for _, c := range []struct{ workload, reply, msg string }{
		{"set", "$-1\r\n", "want OK"},
		{"get", "$2\r\nxx\r\n", "bulk string of 3 bytes"},
		{"pexpire", ":2\r\n", "want integer 0 or 1"},
		{"zadd", "-ERR no\r\n", "server error"},
	} {
		f := fakeserver.RESP(t, respReply(func(cmd string) string {
			if cmd == c.workload {
				return c.reply
			}
			return ""
		}))
		code, out, errs := loadgen(t, "-proto", "resp", "-addr", f.Addr, "-t", c.workload,
			"-preload=false", "-n", "20", "-c", "1")
		if code != 1 || !strings.Contains(errs, c.msg) {
			t.Errorf("%s answered %q: exit %d, stderr %q; want exit 1 and %q", c.workload, c.reply, code, errs, c.msg)
		}
		if s := summary(t, out); s["errors"] != 20 {
			t.Errorf("%s: summary %q, want errors=20", c.workload, out)
		}
	}
}

var cpuRE = regexp.MustCompile(` errors=0 cpu_us=(\d+\.\d\d)\n$`)

// TestServerCPU reads the CPU time of a process that certainly uses some:
// the test itself, which runs the fake server.
func TestServerCPU(t *testing.T) {
	f := fakeserver.Book(t, goodReply)
	code, out, errs := loadgen(t, "-addr", f.Addr, "-pid", strconv.Itoa(os.Getpid()),
		"-n", "20000", "-c", "2", "-P", "4")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	m := cpuRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary %q does not end with cpu_us", out)
	}
	// This process is client and server at once; each request costs it
	// some microseconds, but surely less than a second.
	if us, _ := strconv.ParseFloat(m[1], 64); us >= 1e6 {
		t.Errorf("cpu_us=%v per request", us)
	}
}

func TestParseStatCPU(t *testing.T) {
	// A name with a space and a parenthesis, then state, ppid, ...; utime
	// 250 and stime 50 ticks are fields 14 and 15.
	stat := "1234 (my (server)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1 2 3\n"
	got, err := parseStatCPU([]byte(stat))
	if err != nil || got != 3*time.Second {
		t.Errorf("got %v, %v; want 3s", got, err)
	}
	for _, bad := range []string{"", "1234 (x) S 1 2", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 u 50 0"} {
		if _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		t.Errorf("own process: %v", err)
	}
}
