package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
	"example.com/byor/tools/internal/fakeserver"
	"example.com/byor/tools/internal/loadkit"
	"example.com/byor/tools/internal/wire"
)

func TestWriteRESP(t *testing.T) {
	cfg := &config{keys: 2, ttl: 3000, value: []byte("xy"), pad: 3}
	var b bytes.Buffer
	if err := writeRESP(cfg, &b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"*3\r\n$3\r\nSET\r\n$7\r\nkey:000\r\n$2\r\nxy\r\n" +
		"*3\r\n$7\r\nPEXPIRE\r\n$7\r\nkey:000\r\n$4\r\n3000\r\n" +
		"*3\r\n$3\r\nSET\r\n$7\r\nkey:001\r\n$2\r\nxy\r\n" +
		"*3\r\n$7\r\nPEXPIRE\r\n$7\r\nkey:001\r\n$4\r\n3000\r\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("writeRESP (-want +got):\n%s", diff)
	}
}

func TestWriteRESPNoTTL(t *testing.T) {
	cfg := &config{keys: 1, ttl: 0, value: []byte("v"), pad: 2}
	var b bytes.Buffer
	if err := writeRESP(cfg, &b); err != nil {
		t.Fatal(err)
	}
	want := "*3\r\n$3\r\nSET\r\n$6\r\nkey:00\r\n$1\r\nv\r\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("writeRESP with -ttl 0 (-want +got):\n%s", diff)
	}
}

// fake records what a fill sets, answering set and pexpire as the
// chapters' servers do, one reply per request.
type fake struct {
	*fakeserver.Server
	mu   sync.Mutex // vals and ttls are read by the test while the server runs
	vals map[string]string
	ttls map[string]int64
}

// startFake starts a fake; with badTTL it answers pexpire with 0, as for a
// missing key.
func startFake(t *testing.T, badTTL bool) *fake {
	s := &fake{vals: map[string]string{}, ttls: map[string]int64{}}
	s.Server = fakeserver.Book(t, func(args []string) []byte {
		if len(args) != 3 {
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch args[0] {
		case "set":
			s.vals[args[1]] = args[2]
			return wire.AppendFrame(nil, wire.AppendNil(nil))
		case "pexpire":
			ms, _ := strconv.ParseInt(args[2], 10, 64)
			s.ttls[args[1]] = ms
			if badTTL {
				return wire.AppendFrame(nil, wire.AppendInt(nil, 0))
			}
			return wire.AppendFrame(nil, wire.AppendInt(nil, 1))
		}
		return nil
	})
	return s
}

func TestFill(t *testing.T) {
	s := startFake(t, false)
	const n = 1000
	var out, errs strings.Builder
	code := run([]string{"-addr", s.Addr, "-n", strconv.Itoa(n), "-ttl", "2500",
		"-c", "3", "-batch", "7", "-v", "4"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errs.String())
	}
	if !strings.HasPrefix(out.String(), fmt.Sprintf("ttlfill: n=%d ttl=2500ms ", n)) ||
		!strings.HasSuffix(out.String(), " errors=0\n") {
		t.Errorf("unexpected summary %q", out.String())
	}
	wantVals, wantTTLs := map[string]string{}, map[string]int64{}
	for i := range n {
		k := string(loadkit.AppendKey(nil, i, 6))
		wantVals[k] = "xxxx"
		wantTTLs[k] = 2500
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if diff := cmp.Diff(wantVals, s.vals); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantTTLs, s.ttls); diff != "" {
		t.Errorf("TTLs (-want +got):\n%s", diff)
	}
}

func TestFillNoTTL(t *testing.T) {
	s := startFake(t, false)
	var errs strings.Builder
	if code := run([]string{"-addr", s.Addr, "-n", "50", "-ttl", "0"}, io.Discard, &errs); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errs.String())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.vals) != 50 || len(s.ttls) != 0 {
		t.Errorf("got %d values and %d TTLs, want 50 and 0", len(s.vals), len(s.ttls))
	}
}

func TestFillBadReply(t *testing.T) {
	s := startFake(t, true)
	var errs strings.Builder
	code := run([]string{"-addr", s.Addr, "-n", "10", "-c", "1"}, io.Discard, &errs)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(errs.String(), "10 bad replies") {
		t.Errorf("stderr %q does not report the 10 bad replies", errs.String())
	}
}

func TestUsage(t *testing.T) {
	cmdflagtest.UsageErrors(t, run, "usage: ttlfill", [][]string{
		{"-n", "0"},
		{"-addr", "192.168.1.1:1234"},
		{"-c", "0"},
		{"extra"},
		{"-nosuchflag"},
	})
	cmdflagtest.Help(t, run, "usage: ttlfill")
}
