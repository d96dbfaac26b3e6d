package chapter_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
)

// startPlain starts the server as a reader would, with its files in dir
// and no flags but the addresses, then args.
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

// TestStartRemovesTemps: at start the server removes the temporary files
// of saves that earlier processes left in -dir (their PIDs are gone), and
// nothing else: not a live process's, not other names.
func TestStartRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	const dead = "2147483647" // above any pid_max: no such process
	live := strconv.Itoa(os.Getpid())
	gone := []string{"temp-" + dead + "-dump.rdb"}
	kept := []string{"temp-" + live + "-dump.rdb", "temp-" + dead + "-other.rdb", "temp-" + dead + "-appendonly.aof",
		"temp-x-dump.rdb", "temp--dump.rdb", "temp-0" + dead + "-dump.rdb", "dump.rdb.bak"}
	for _, name := range append(append([]string{}, gone...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, rdb := startPlain(t, dir)
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
