package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// snapBudgetKeys fills the key space for the budget tests: small keys,
// keys of 4 KiB to copy on write into side, and two hashes big enough to
// be written in parts.
func snapBudgetKeys(tc *txClient) {
	fillKeys(tc, 50)
	for i := range 300 {
		tc.do("SET", "w:"+strconv.Itoa(i), strings.Repeat("w", 4<<10))
	}
	for _, k := range []string{"bh:0", "bh:1"} {
		args := []string{"HSET", k}
		for i := range 3 * kSnapSplitMembers {
			args = append(args, "f"+strconv.Itoa(i), strings.Repeat("v", 1000))
		}
		tc.do(args...)
	}
}

// snapHeldOthers is what inputHeld counts besides the snapshot: the
// log's buffer, when there is a log.
func snapHeldOthers() int { return aofCounted }

// snapCleanup ends a snapshot a failed test leaves running, so that the
// next test can start one.
func snapCleanup(t *testing.T) {
	t.Cleanup(func() {
		if s := gSnap; s != nil {
			for !s.walked {
				s.walk(1 << 30)
			}
			s.finish(<-s.finished)
		}
	})
}

// TestSnapshotBuffersInBudget: while a snapshot runs, the clients' memory
// budget (inputHeld, hence budgetLeft) counts what its buffers hold, the
// bytes gathered for the file and the copies made on write behind a value
// in parts, step by step as they grow and shrink, and gives it all back
// when the snapshot ends; a budget smaller than the buffers does not make
// it fail (they are counted past it), and the file holds the instant.
func TestSnapshotBuffersInBudget(t *testing.T) {
	for _, c := range []struct {
		enc   snapEncoder
		small bool
	}{{&rdbEncoder{}, false}, {aofEncoder{}, false}, {&rdbEncoder{}, true}} {
		t.Run(fmt.Sprintf("%T/smallbudget=%v", c.enc, c.small), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			snapBudgetKeys(tc)
			want := keySpaceLines()
			base, budget := inputHeld, maxOutputTotal
			path := filepath.Join(t.TempDir(), "snapshot")
			s, err := snapshotBegin(c.enc, path, func(*snapshot, error) {})
			if err != nil {
				t.Fatal(err)
			}
			snapCleanup(t)
			check := func(when string) {
				t.Helper()
				if got, held := inputHeld-base, cap(s.buf)+cap(s.side); got != held {
					t.Fatalf("%s: inputHeld counts %d bytes of the snapshot, its buffers hold %d", when, got, held)
				}
			}
			check("at the start")
			most, sideMost, copied, bigCopied := 0, 0, 0, false
			for !s.walked {
				if c.small {
					// Less than the buffers hold, while the walk runs
					// (the clients' commands between need their room).
					maxOutputTotal = outputHeld + base + 64<<10
				}
				s.walk(200)
				if c.small && budgetLeft() >= 0 && s.counted > 64<<10 {
					t.Fatalf("the budget has %d bytes left", budgetLeft())
				}
				maxOutputTotal = budget
				check("after a step")
				if s.part != nil && copied < 100 {

					// A small key the walk has not reached, copied
					// behind the value in parts.
					for k := copied; k < 300; k++ {
						key := "w:" + strconv.Itoa(k)
						if ent := lookupEntry([]byte(key)); ent != nil && s.pending(ent) {
							tc.do("APPEND", key, "x")
							copied++
							break
						}
					}
					check("after a copy on write")
				}
				if s.part != nil && copied == 20 && !bigCopied {
					// The other big hash, copied on write: the value in
					// parts is finished first, then it is written in
					// parts, all at once.
					bigCopied = true
					for _, k := range []string{"bh:0", "bh:1"} {
						if ent := lookupEntry([]byte(k)); ent != nil && s.pending(ent) && s.part != ent {
							tc.do("HSET", k, "f1", "changed")
							check("after a big copy on write")
						}
					}
				}
				most = max(most, inputHeld-base)
				sideMost = max(sideMost, cap(s.side))
			}
			if copied == 0 || sideMost == 0 {
				t.Fatal("nothing was copied on write behind a value in parts: the test did not test that")
			}
			s.finish(<-s.finished)
			if inputHeld != base {
				t.Errorf("after the snapshot inputHeld is %d, %d before it", inputHeld, base)
			}
			if most < kSnapFlushBytes {
				t.Errorf("the budget counted at most %d bytes of the snapshot", most)
			}
			checkSnapshotFile(t, c.enc, path, want)
			t.Logf("at most %d bytes counted, side at most %d, %d keys copied on write", most, sideMost, copied)
		})
	}
}

// TestSnapshotBuffersInBudgetFailed: a background save that fails (its
// directory moved away, so that the rename finds none) gives back to the
// budget all its buffers held, is logged as a failed BGSAVE, and the old
// file is left as it was.
func TestSnapshotBuffersInBudgetFailed(t *testing.T) {
	resetTx(t)
	tc := newTxClient(t)
	snapBudgetKeys(tc)
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := []byte("the old file")
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	savedDir, savedRDB := aofDir, rdbState
	aofDir, rdbState.filename = dir, "dump.rdb"
	t.Cleanup(func() { aofDir, rdbState = savedDir, savedRDB })
	snapCleanup(t)
	base := inputHeld - snapHeldOthers()
	if got := tc.do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	s := gSnap
	moved := filepath.Join(root, "moved")
	steps, most := 0, 0
	deadline := time.Now().Add(time.Minute) // only against a hang
	for gSnap != nil && time.Now().Before(deadline) {
		snapshotStep()
		if gSnap == nil {
			break
		}
		held := inputHeld - snapHeldOthers() - base
		if want := cap(s.buf) + cap(s.side); held != want {
			t.Fatalf("step %d: inputHeld counts %d bytes of the snapshot, its buffers hold %d", steps, held, want)
		}
		most = max(most, held)
		if steps++; steps == 5 {
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			tc.do("SET", "w:299", "changed") // a copy on write too
		}
	}
	if gSnap != nil {
		t.Fatal("the save did not end")
	}
	if rdbState.lastOK {
		t.Fatal("the save did not fail: the test did not test that")
	}
	if got := inputHeld - snapHeldOthers(); got != base {
		t.Errorf("after the failed save inputHeld is %d, %d before it", got, base)
	}
	if most == 0 || steps < 5 {
		t.Errorf("%d steps, at most %d bytes counted: the test did not test that", steps, most)
	}
	if b, err := os.ReadFile(filepath.Join(moved, "dump.rdb")); err != nil || string(b) != string(old) {
		t.Errorf("the old file is %q (%v)", b, err)
	}
}

// TestRewriteTailBufferInBudget: the rewrite's catch-up copies what the
// log gained through a buffer of its own, counted in the budget while it
// runs and given back at its end.
func TestRewriteTailBufferInBudget(t *testing.T) {
	rewriteWithTail(t, 3)
	s := gSnap
	tail := s.tail.(*aofTail)
	base := inputHeld - snapHeldOthers()
	if s.counted != 0 {
		t.Fatalf("after the walk the snapshot still counts %d bytes", s.counted)
	}
	most := 0
	deadline := time.Now().Add(time.Minute) // only against a hang
	for gSnap != nil && time.Now().Before(deadline) {
		snapshotStep()
		held := inputHeld - snapHeldOthers() - base
		if gSnap != nil && held != cap(tail.buf) {
			t.Fatalf("inputHeld counts %d bytes of the catch-up, its buffer holds %d", held, cap(tail.buf))
		}
		most = max(most, held)
	}
	if gSnap != nil || !aofRW.lastOK {
		t.Fatalf("the rewrite did not end well (running %v)", gSnap != nil)
	}
	if most == 0 {
		t.Fatal("the catch-up held no buffer: the test did not test that")
	}
	if got := inputHeld - snapHeldOthers(); got != base {
		t.Errorf("after the rewrite inputHeld is %d, %d before its catch-up", got, base)
	}
}
