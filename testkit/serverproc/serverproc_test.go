package serverproc

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBuildStartStop builds a real chapter's server, starts it on a free
// loopback port given through {addr}, and stops it cleanly.
func TestBuildStartStop(t *testing.T) {
	srv, cli, err := Build("../../ch07_basic", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(cli, "ch07_basic-client") {
		t.Errorf("client path %q", cli)
	}
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	argv, used := Expand([]string{srv, "-addr", "{addr}"}, addr)
	if !used || argv[2] != addr {
		t.Fatalf("Expand gave %q, %v", argv, used)
	}
	p, err := Start(argv, addr, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatalf("stop: %v\n%s", err, p.Stderr())
	}
	if p.Running() {
		t.Fatal("still running after Stop")
	}
}

// TestStartFailsWhenProcessExits checks that a program that exits without
// listening is reported at once, with what it printed.
func TestStartFailsWhenProcessExits(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Start([]string{"sh", "-c", "echo boom >&2; exit 3"}, addr, 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want one that shows the program's stderr", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v to notice the exit", time.Since(start))
	}
}

// TestFreeAddrNeverRepeats checks that FreeAddr does not hand one port to
// two servers: the kernel, left alone, repeats ports within a few hundred
// calls.
func TestFreeAddrNeverRepeats(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		addr, err := FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		if seen[addr] {
			t.Fatalf("FreeAddr returned %s twice", addr)
		}
		seen[addr] = true
	}
}

// TestFreeAddrOutsideEphemeralRange checks that FreeAddr's ports are
// none that the kernel could hand to another socket meanwhile.
func TestFreeAddrOutsideEphemeralRange(t *testing.T) {
	lo, hi := fixedPorts()
	if lo == hi {
		t.Skip("the kernel's ephemeral port range is unknown here, or leaves no room")
	}
	for range 200 {
		addr, err := FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		_, p, _ := net.SplitHostPort(addr)
		if port, _ := strconv.Atoi(p); port < lo || port >= hi {
			t.Fatalf("FreeAddr returned %s, outside the ports %d to %d below or above the ephemeral range", addr, lo, hi-1)
		}
	}
}

func TestCappedBuffer(t *testing.T) {
	b := cappedBuffer{limit: MaxOutput}
	b.Write([]byte(strings.Repeat("x", MaxOutput-2)))
	b.Write([]byte("abcd"))
	s := b.String()
	if !strings.HasPrefix(s, strings.Repeat("x", MaxOutput-2)+"ab\n") || !strings.Contains(s, "2 more bytes") {
		t.Fatalf("capped output ends %q", s[len(s)-40:])
	}
}

func TestUncappedBuffer(t *testing.T) {
	var b cappedBuffer // limit 0: everything is kept
	b.Write([]byte(strings.Repeat("x", 2*MaxOutput)))
	if s := b.String(); s != strings.Repeat("x", 2*MaxOutput) {
		t.Fatalf("uncapped buffer kept %d bytes, want %d", len(s), 2*MaxOutput)
	}
}
