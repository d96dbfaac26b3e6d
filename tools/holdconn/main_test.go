package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
)

// listen returns a loopback listener whose accepted connections are handed
// to serve.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

func TestServerHangsUp(t *testing.T) {
	got := make(chan []byte, 1)
	addr := listen(t, func(c net.Conn) {
		b := make([]byte, 3)
		io.ReadFull(c, b)
		got <- b
		c.Close()
	})
	var out, errb bytes.Buffer
	if code := run([]string{"-addr", addr, "-send", "3", "-for", "1m"}, &out, &errb, nil); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if b := <-got; !bytes.Equal(b, []byte{0, 0, 0}) {
		t.Errorf("server received %v, want three zero bytes", b)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "connected to "+addr+", sent 3 bytes") ||
		!strings.HasPrefix(lines[1], "the server closed the connection after ") {
		t.Errorf("output %q, want a connected line and a closed line", out.String())
	}
}

func TestGivesUpAndInterrupt(t *testing.T) {
	addr := listen(t, func(c net.Conn) { time.Sleep(time.Minute); c.Close() })
	var out bytes.Buffer
	if code := run([]string{"-addr", addr, "-for", "50ms"}, &out, io.Discard, nil); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "still open after") {
		t.Errorf("output %q, want it to give up", out.String())
	}
	out.Reset()
	sig := make(chan os.Signal, 1)
	sig <- os.Interrupt
	if code := run([]string{"-addr", addr}, &out, io.Discard, sig); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "interrupted after") {
		t.Errorf("output %q, want an interrupt", out.String())
	}
}

func TestUsageAndDialErrors(t *testing.T) {
	noInterrupt := func(args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr, nil) }
	cmdflagtest.UsageErrors(t, noInterrupt, "usage: holdconn", [][]string{{"-send", "-1"}, {"-send", "2000"}, {"-for", "0s"}, {"extra"}, {"-nosuch"}})
	cmdflagtest.Help(t, noInterrupt, "usage: holdconn")
	// A port nothing listens on: take one and close it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var errb bytes.Buffer
	if code := run([]string{"-addr", addr}, io.Discard, &errb, nil); code != 1 || !strings.Contains(errb.String(), "refused") {
		t.Errorf("dial to a closed port = %d, %q; want 1 and connection refused", code, errb.String())
	}
}
