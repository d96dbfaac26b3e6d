package main

import (
	"bytes"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
	"example.com/byor/tools/internal/fakeserver"
	"example.com/byor/tools/internal/wire"
	"github.com/google/go-cmp/cmp"
)

// loadgen runs the command and returns its exit code, stdout and stderr.
func loadgen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// goodReply answers like the real server would for a key space that holds
// 3-byte values.
func goodReply(args []string) []byte {
	switch args[0] {
	case "set":
		return wire.AppendFrame(nil, wire.AppendNil(nil))
	case "get":
		return wire.AppendFrame(nil, wire.AppendStr(nil, "xxx"))
	case "zadd", "pexpire":
		return wire.AppendFrame(nil, wire.AppendInt(nil, 1))
	}
	return wire.AppendFrame(nil, wire.AppendErr(nil, 1, "Unknown cmd"))
}

var summaryRE = regexp.MustCompile(`^(\w+) c=(\d+) P=(\d+) n=(\d+) dur=(\d+\.\d\d)s rps=(\d+) ` +
	`p50=(\d+)us p99=(\d+)us p999=(\d+)us max=(\d+)us errors=(\d+)\n$`)

// summary parses the single output line into its named numbers.
func summary(t *testing.T, out string) map[string]float64 {
	t.Helper()
	m := summaryRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("output is not one summary line: %q", out)
	}
	s := map[string]float64{}
	for i, name := range []string{"c", "P", "n", "dur", "rps", "p50", "p99", "p999", "max", "errors"} {
		v, err := strconv.ParseFloat(m[i+2], 64)
		if err != nil {
			t.Fatal(err)
		}
		s[name] = v
	}
	if !(s["p50"] <= s["p99"] && s["p99"] <= s["p999"] && s["p999"] <= s["max"]) {
		t.Errorf("percentiles out of order: %q", out)
	}
	return s
}

func TestEndToEnd(t *testing.T) {
	cases := []struct {
		workload string
		want     map[string]int // requests the server must see, per command
	}{
		{"set", map[string]int{"set": 2000}},
		// get preloads by default: every one of the 300 keys is set first
		{"get", map[string]int{"set": 300, "get": 2000}},
		{"zadd", map[string]int{"zadd": 2000}},
		{"pexpire", map[string]int{"set": 300, "pexpire": 2000}},
	}
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			f := fakeserver.Book(t, goodReply)
			code, out, errs := loadgen(t, "-addr", f.Addr, "-t", c.workload,
				"-n", "2000", "-c", "4", "-P", "8", "-r", "300")
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errs)
			}
			if !strings.HasPrefix(out, c.workload+" c=4 P=8 n=2000 ") {
				t.Errorf("summary %q does not start with the run's parameters", out)
			}
			s := summary(t, out)
			if s["n"] != 2000 || s["errors"] != 0 {
				t.Errorf("n=%v errors=%v, want 2000 and 0", s["n"], s["errors"])
			}
			if errs != "" {
				t.Errorf("unexpected stderr: %q", errs)
			}
			if diff := cmp.Diff(c.want, f.Counts()); diff != "" {
				t.Errorf("requests seen by the server (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMixedAndPreloadFlag(t *testing.T) {
	f := fakeserver.Book(t, goodReply)
	code, out, errs := loadgen(t, "-addr", f.Addr, "-t", "mixed", "-preload=false",
		"-n", "3000", "-c", "3", "-P", "5", "-seed", "9")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if s := summary(t, out); s["n"] != 3000 || s["errors"] != 0 {
		t.Errorf("summary %q, want n=3000 errors=0", out)
	}
	seen := f.Counts()
	// No preload, so every set is part of the mix: about 10% of 3000.
	if seen["set"]+seen["get"] != 3000 || seen["set"] < 200 || seen["set"] > 400 {
		t.Errorf("mixed run sent %v, want 3000 requests with about 300 sets", seen)
	}
}

func TestDurationBounded(t *testing.T) {
	f := fakeserver.Book(t, goodReply)
	start := time.Now()
	code, out, errs := loadgen(t, "-addr", f.Addr, "-d", "300ms", "-c", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	took := time.Since(start)
	s := summary(t, out)
	if s["n"] < 1 || s["dur"] < 0.3 || took > 5*time.Second {
		t.Errorf("-d 300ms: summary %q after %v", out, took)
	}
	if got := f.Counts()["set"]; got != int(s["n"]) {
		t.Errorf("server saw %d sets, summary says n=%v", got, s["n"])
	}
}

func TestBadReplies(t *testing.T) {
	frame := func(body []byte) []byte { return wire.AppendFrame(nil, body) }
	cases := []struct {
		name      string
		workload  string
		reply     []byte // every request gets this frame; nil hangs up
		n, errors int    // expected summary counts
	}{
		{"unknown tag", "set", frame([]byte{9}), 200, 200},
		{"chapter 09 array tag", "set", frame(append([]byte{4}, 0, 0, 0, 0)), 200, 200},
		{"int for set", "set", frame(wire.AppendInt(nil, 0)), 200, 200},
		{"trailing byte", "set", frame([]byte{0, 0}), 200, 200},
		{"server error", "set", frame(wire.AppendErr(nil, 1, "Unknown cmd")), 200, 200},
		{"str of wrong size", "get", frame(wire.AppendStr(nil, "xxxx")), 200, 200},
		{"str for zadd", "zadd", frame(wire.AppendStr(nil, "1")), 200, 200},
		{"int 2 for zadd", "zadd", frame(wire.AppendInt(nil, 2)), 200, 200},
		{"truncated str", "get", frame([]byte{2, 9, 0, 0, 0, 'x'}), 200, 200},
		// Framing errors end each of the 2 connections: one error apiece.
		{"oversized frame", "set", []byte{0xff, 0xff, 0, 0}, 0, 2},
		{"hang up", "set", nil, 0, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fakeserver.Book(t, func([]string) []byte { return c.reply })
			code, out, errs := loadgen(t, "-addr", f.Addr, "-t", c.workload, "-preload=false",
				"-n", "200", "-c", "2", "-P", "4", "-r", "50")
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			s := summary(t, out)
			if s["n"] != float64(c.n) || s["errors"] != float64(c.errors) {
				t.Errorf("n=%v errors=%v, want n=%d errors=%d", s["n"], s["errors"], c.n, c.errors)
			}
			// Only the first few problems are printed.
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if errs == "" || len(lines) > maxShown+1 {
				t.Errorf("stderr should show at most %d errors, got:\n%s", maxShown, errs)
			}
		})
	}
}

func TestPreloadFailureIsRuntimeError(t *testing.T) {
	f := fakeserver.Book(t, func([]string) []byte { return wire.AppendFrame(nil, wire.AppendInt(nil, 0)) })
	code, out, errs := loadgen(t, "-addr", f.Addr, "-t", "get", "-n", "10", "-c", "1", "-r", "10")
	if code != 1 || out != "" || !strings.Contains(errs, "preload") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, no summary, a preload error", code, out, errs)
	}
}

func TestNoServerIsRuntimeError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	code, out, errs := loadgen(t, "-addr", addr, "-n", "10")
	if code != 1 || out != "" || errs == "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and an error", code, out, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	cmdflagtest.UsageErrors(t, run, "usage: loadgen", [][]string{
		{"-c", "0"},
		{"-P", "0"},
		{"-n", "0"},
		{"-d", "11m"},
		{"-d", "-1s"},
		{"-t", "del"},
		{"-r", "0"},
		{"-v", "-1"},
		{"-v", "4088"},
		{"-v", "4070", "-r", "10000000"}, // reply fits, the set request does not
		{"-nosuchflag"},
		{"extra"},
		{"-addr", "10.0.0.1:1234"},
		{"-addr", "127.0.0.1"},
		{"-proto", "http"},
		{"-pid", "-1"},
		{"-pid", "999999999"}, // no such process
	})
	cmdflagtest.Help(t, run, "usage: loadgen")
	// A failed check names the problem first, before the usage.
	if _, _, errs := loadgen(t, "-c", "0"); !strings.HasPrefix(errs, "loadgen: -c must be between 1 and 10000\nusage: loadgen") {
		t.Errorf("-c 0: stderr %q; want the problem, then the usage", errs)
	}
}

func TestBudget(t *testing.T) {
	b := &budget{total: 10}
	var got []int
	for k := b.claim(4); k > 0; k = b.claim(4) {
		got = append(got, k)
	}
	if diff := cmp.Diff([]int{4, 4, 2}, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	u := &budget{}
	if u.claim(7) != 7 {
		t.Error("unlimited budget refused a claim")
	}
	u.stop.Store(true)
	if u.claim(7) != 0 {
		t.Error("stopped budget granted a claim")
	}
}
