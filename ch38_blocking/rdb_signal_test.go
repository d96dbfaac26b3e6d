package chapter_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
)

// startPlain starts the server as a reader would, with its files in dir
// and no flags but the addresses (not testkit.ServerArgs, which turn the
// saves off), then args.
func startPlain(t *testing.T, dir string, args ...string) (*testkit.Server, *redis.Client) {
	t.Helper()
	argv := append([]string{testkit.ServerProgram, "-addr", "127.0.0.1:0", "-resp-addr", "127.0.0.1:0", "-dir", dir}, args...)
	proc, err := serverproc.Launch(argv, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &testkit.Server{Process: proc}
	t.Cleanup(func() {
		if p.Running() {
			p.Kill()
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", p.Stderr())
		}
	})
	if err := p.Process.WaitListening(testkit.Scale(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	addr, err := respAddr(p)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return p, rdb
}

// signalAndWait sends sig to the server and waits for it to exit.
func signalAndWait(t *testing.T, p *testkit.Server, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(p.Pid(), sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatalf("%v did not end the server", sig)
	}
}

// TestSignalSaves: started with the default flags, the server has
// Redis's save rules, and SIGTERM and SIGINT save dump.rdb before it
// exits, so that a restart has the keys; with -save "" they save nothing.
func TestSignalSaves(t *testing.T) {
	ctx := context.Background()
	for name, sig := range map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p, rdb := startPlain(t, dir)
			got, err := rdb.ConfigGet(ctx, "save").Result()
			if err != nil || got["save"] != "3600 1 300 100 60 10000" {
				t.Fatalf("CONFIG GET save = %v, %v; want Redis's default rules", got, err)
			}
			do(t, rdb, []any{"SET", "k", "v"})
			signalAndWait(t, p, sig)
			if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
				t.Fatalf("no dump.rdb after %v: %v\n%s", sig, err, p.Stderr())
			}
			_, rdb = startPlain(t, dir)
			if v, err := rdb.Get(ctx, "k").Result(); v != "v" {
				t.Fatalf("after %v and a start, GET k = %q, %v", sig, v, err)
			}
		})
	}
	t.Run("no rules", func(t *testing.T) {
		dir := t.TempDir()
		p, rdb := startPlain(t, dir, "-save", "")
		do(t, rdb, []any{"SET", "k", "v"})
		signalAndWait(t, p, syscall.SIGTERM)
		if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); !os.IsNotExist(err) {
			t.Fatalf("-save \"\": SIGTERM left dump.rdb (%v)", err)
		}
	})
}

// TestSignalHangupIgnored: SIGHUP neither ends the server nor saves, as
// Redis ignores it. The SIGTERM sent after it finds the server serving and
// is the only signal the log tells of (the kernel delivers the lower
// signal, SIGHUP, first, so a server that took it would log it first).
func TestSignalHangupIgnored(t *testing.T) {
	dir := t.TempDir()
	p, rdb := startPlain(t, dir)
	do(t, rdb, []any{"SET", "k", "v"})
	if err := syscall.Kill(p.Pid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	signalAndWait(t, p, syscall.SIGTERM)
	if log := p.Stderr(); strings.Contains(log, "SIGHUP") || strings.Contains(log, "hangup") ||
		!strings.Contains(log, "Received SIGTERM") {
		t.Fatalf("the log after SIGHUP then SIGTERM:\n%s", log)
	}
}

// TestSignalSaveFails: a save that fails on SIGTERM (its directory was
// removed) keeps the server up and serving, with the reason logged, as
// Redis does; once the directory is back, a signal tries again (SIGINT
// here: not the second SIGINT that exits without saving) and saves.
func TestSignalSaveFails(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, rdb := startPlain(t, dir)
	do(t, rdb, []any{"SET", "k", "v"})
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(p.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitLog(regexp.MustCompile(`(?m)^Error trying to save the DB, can't exit\.$`)); err != nil {
		t.Fatal(err)
	}
	if !p.Running() {
		t.Fatal("a failed save on SIGTERM ended the server")
	}
	if v, err := rdb.Get(ctx, "k").Result(); v != "v" {
		t.Fatalf("after the failed save, GET k = %q, %v", v, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	signalAndWait(t, p, syscall.SIGINT)
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatalf("no dump.rdb after SIGINT: %v\n%s", err, p.Stderr())
	}
}

// TestStartRemovesTemps: at start the server removes the temporary files
// of saves and rewrites that earlier processes left in -dir (their PIDs
// are gone), and nothing else: not a live process's, not other names.
func TestStartRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	const dead = "2147483647" // above any pid_max: no such process
	live := strconv.Itoa(os.Getpid())
	gone := []string{"temp-" + dead + "-dump.rdb", "temp-" + dead + "-appendonly.aof"}
	kept := []string{"temp-" + live + "-dump.rdb", "temp-" + dead + "-other.rdb",
		"temp-x-dump.rdb", "temp--dump.rdb", "temp-0" + dead + "-dump.rdb", "dump.rdb.bak"}
	for _, name := range append(append([]string{}, gone...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, rdb := startPlain(t, dir, "-save", "")
	do(t, rdb, []any{"PING"})
	for _, name := range gone {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
