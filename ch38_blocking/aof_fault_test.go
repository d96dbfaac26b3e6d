//go:build linux

package chapter_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/testkit"
)

// limitFileSize sets the largest file the server may write (its
// RLIMIT_FSIZE, as a full disk: a write past it fails, EFBIG), or with
// size -1 lifts the limit again.
func limitFileSize(t *testing.T, pid int, size int64) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, nil, &lim); err != nil {
		t.Skipf("cannot read the server's file size limit: %v", err)
	}
	lim.Cur = lim.Max
	if size >= 0 {
		lim.Cur = uint64(size)
	}
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
		t.Skipf("cannot set the server's file size limit: %v", err)
	}
}

// TestAOFWriteError fills the disk under the server (a file size limit
// just past the log's size) and checks what Redis does: the write that
// could not be logged is kept and written later; the writes after it are
// refused with Redis's MISCONF error; reads go on; INFO says
// aof_last_write_status:err; and once there is room again the log is
// written, writes are accepted, and a restart has every acknowledged one.
// Under every policy the write whose log failed is not acknowledged
// until its log is written (under always, on disk).
func TestAOFWriteError(t *testing.T) {
	for _, policy := range []string{"everysec", "always"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			p, rdb := startAOF(t, dir, policy)
			ctx := context.Background()
			if err := rdb.Set(ctx, "before", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(dir, "appendonly.aof"))
			if err != nil {
				t.Fatal(err)
			}
			limitFileSize(t, p.Pid(), fi.Size()+10)

			big := strings.Repeat("x", 100)
			acked := make(chan error, 1)
			go func() { acked <- rdb.Set(ctx, "big", big, 0).Err() }()
			// Wait for the server to have tried (the client has no
			// answer to wait for).
			deadline := time.Now().Add(testkit.Scale(10 * time.Second))
			for !strings.Contains(rdb.Info(ctx, "persistence").Val(), "aof_last_write_status:err") {
				if time.Now().After(deadline) {
					t.Fatal("INFO persistence never said the write failed")
				}
				time.Sleep(10 * time.Millisecond)
			}
			err = rdb.Set(ctx, "during", "1", 0).Err()
			if err == nil || !strings.HasPrefix(err.Error(), "MISCONF Errors writing to the AOF file: ") {
				t.Fatalf("a write while the log cannot be written: %v, want MISCONF", err)
			}
			if v, err := rdb.Get(ctx, "before").Result(); err != nil || v != "1" {
				t.Fatalf("a read while the log cannot be written: %q, %v", v, err)
			}
			select {
			case err := <-acked:
				t.Fatalf("a write was answered (%v) before its log was written", err)
			default:
			}

			limitFileSize(t, p.Pid(), -1) // room again
			if err := <-acked; err != nil {
				t.Fatalf("the write whose log failed, once written: %v", err)
			}
			for {
				err := rdb.Set(ctx, "after", "1", 0).Err()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("writes still refused once there is room: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if info := rdb.Info(ctx, "persistence").Val(); !strings.Contains(info, "aof_last_write_status:ok") {
				t.Fatalf("INFO persistence does not say the log is written again:\n%s", info)
			}
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			_, rdb = startAOF(t, dir, policy)
			for key, want := range map[string]string{"before": "1", "big": big, "after": "1"} {
				if v, err := rdb.Get(ctx, key).Result(); err != nil || v != want {
					t.Errorf("after a restart, %s = %q, %v", key, v, err)
				}
			}
			if n := rdb.Exists(ctx, "during").Val(); n != 0 {
				t.Errorf("a refused write was applied")
			}
		})
	}
}

// TestAOFReadOnlyDir: a directory the server cannot create its log in
// stops it at start, with the error, rather than running without a log.
// Skipped as root, whom permissions do not stop.
func TestAOFReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: a read-only directory does not stop root's writes (TestAOFWriteError fills the disk instead)")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	stderr := refusedStart(t, "the server started without being able to write its log", dir, "-appendonly", "yes")
	if !strings.Contains(stderr, "opening the append-only file") {
		t.Fatalf("stderr does not say why:\n%s", stderr)
	}
}
