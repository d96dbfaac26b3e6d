package server

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSnapshotSplitsBigValues: a big sorted set or hash is written over
// several of the walk's steps (no step does much more than its budget),
// and the file still holds the instant: writes between the steps to the
// value being written finish it first, and keys copied on write meanwhile
// follow it in the file. The RDB file, and the rewritten log, load back
// as the key space of the instant.
func TestSnapshotSplitsBigValues(t *testing.T) {
	for _, c := range []struct {
		enc   snapEncoder
		flush bool
	}{{&rdbEncoder{}, false}, {&rdbEncoder{}, true}, {aofEncoder{}, false}, {aofEncoder{}, true}} {
		flush := c.flush
		t.Run(fmt.Sprintf("%T/flushall=%v", c.enc, flush), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			fillKeys(tc, 100)
			const bigs, members = 6, 3 * kSnapSplitMembers
			for b := range bigs {
				args := []string{"ZADD", "big:" + strconv.Itoa(b)}
				for i := range members {
					args = append(args, strconv.Itoa(i%97), "m"+strconv.Itoa(i))
				}
				tc.do(args...)
				args = []string{"HSET", "bh:" + strconv.Itoa(b)}
				for i := range members {
					args = append(args, "f"+strconv.Itoa(i), strconv.Itoa(i%97))
				}
				tc.do(args...)
				if b%2 == 0 {
					tc.do("EXPIRE", "big:"+strconv.Itoa(b), "3600")
					tc.do("EXPIRE", "bh:"+strconv.Itoa(b), "3600")
				}
				if b%3 == 1 { // fields with TTLs, and fields expired but not yet reclaimed
					tc.do("HPEXPIRE", "bh:"+strconv.Itoa(b), "3600000", "FIELDS", "2", "f1", "f2")
					tc.do("HPEXPIRE", "bh:"+strconv.Itoa(b), "1", "FIELDS", "3", "f3", "f4", "f5")
				}
			}
			time.Sleep(5 * time.Millisecond) // f3 to f5 expire; no timer runs to reclaim them
			want := keySpaceLines()
			path := filepath.Join(t.TempDir(), "dump.rdb")
			s, err := snapshotBegin(c.enc, path, func(*snapshot, error) {})
			if err != nil {
				t.Fatal(err)
			}
			const budget = 200
			rng := rand.New(rand.NewPCG(3, 4))
			// The hashes with field TTLs are left for the walk to reach,
			// their expired fields for a read to reclaim while it writes
			// them.
			plainHash := func() string { return strconv.Itoa([]int{0, 2, 3, 5}[rng.IntN(4)]) }
			splitSteps, worst, reclaimed := 0, 0, false
			for i := 0; !s.walked; i++ {
				before := workDone
				workDone = 0
				// The walk's own work is what it returns; measure it by
				// the members written instead: at most a batch past the
				// budget, in members' visits.
				keys, written := s.keys, s.written+int64(len(s.buf))
				s.walk(budget)
				workDone = before
				if s.part != nil {
					splitSteps++
					// A read that reclaims an expired field, in the middle
					// of a hash written in parts.
					if s.part.typ() == tHash && s.part.obj.hash.VolatileLen() > 3 && !reclaimed {
						reclaimed = true
						tc.do("HGET", s.part.key(), "f3") // expired: reclaimed
					}
				}
				if s.keys == keys {
					worst = max(worst, int(s.written+int64(len(s.buf))-written))
				}
				k := strconv.Itoa(rng.IntN(100))
				switch i % 9 {
				case 0:
					tc.do("SET", "s:"+k, "changed")
				case 1:
					tc.do("ZADD", "big:"+strconv.Itoa(rng.IntN(bigs)), "1000", "new")
				case 2:
					tc.do("HSET", "h:"+k, "a", "changed")
				case 3:
					tc.do("DEL", "big:"+strconv.Itoa(rng.IntN(bigs)), "z:"+k)
				case 4:
					tc.do("SET", "new:"+k, "born during the snapshot")
				case 6:
					tc.do("HSET", "bh:"+plainHash(), "f1", "changed", "g", "new")
				case 7:
					tc.do("DEL", "bh:"+plainHash())
				case 5:
					tc.do("HRANDFIELD", "bh:"+plainHash(), "3")
				case 8:
					if flush && i > 40 {
						tc.do("FLUSHALL")
					}
				}
			}
			s.finish(<-s.finished)
			if !reclaimed && !flush { // after a FLUSHALL the old hash cannot be read
				t.Fatal("no read reclaimed a field of a hash written in parts: the test did not test that")
			}
			if splitSteps == 0 {
				t.Fatal("no sorted set was written over several steps: the test did not test that")
			}
			// A step that wrote no whole key wrote members of one set:
			// about a budget's worth (kVisitWork each), plus a batch.
			if limit := (budget/kVisitWork + kRewriteBatch) * 32; worst > limit {
				t.Errorf("a step wrote %d bytes of one sorted set, more than %d", worst, limit)
			}
			checkSnapshotFile(t, c.enc, path, want)
			if ent := lookupEntry("bh:1"); ent != nil {
				if at := ent.obj.hash.ExpireTime(getUnixMs(), "f2"); at < int64(getUnixMs())+3000_000 {
					t.Errorf("bh:1's field f2 loaded with the expiry %d", at)
				}
			}
			t.Logf("%d keys, %d steps with a value in parts, at most %d bytes of one in a step, %d copied on write", s.keys, splitSteps, worst, s.kept)
		})
	}
}

// TestCopyOnWriteBigValueInParts: a write to a big sorted set the walk
// has not reached writes it into the snapshot first, as it was, in parts
// flushed as they come: the snapshot holds about a flush's worth of it,
// not its whole record (which went to the side buffer, behind the value
// the walk was writing in parts: 3 MB and more for these 150,000
// members, outside the memory budget). The file holds the instant.
func TestCopyOnWriteBigValueInParts(t *testing.T) {
	for _, enc := range []snapEncoder{&rdbEncoder{}, aofEncoder{}} {
		t.Run(fmt.Sprintf("%T", enc), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			const members = 150_000
			for _, k := range []string{"a", "b"} {
				args := []string{"ZADD", k}
				for i := range members {
					args = append(args, strconv.Itoa(i), fmt.Sprintf("member-%06d", i))
				}
				tc.do(args...)
			}
			want := keySpaceLines()
			path := filepath.Join(t.TempDir(), "snapshot")
			s, err := snapshotBegin(enc, path, func(*snapshot, error) {})
			if err != nil {
				t.Fatal(err)
			}
			for s.part == nil && !s.walked {
				s.walk(200)
			}
			if s.part == nil {
				t.Fatal("the walk wrote no set in parts: the test did not test that")
			}
			other := "a"
			if s.part.key() == "a" {
				other = "b"
			}
			tc.do("ZADD", other, "-1", "new") // copied on write, behind the set in parts
			if s.peak > 2*kSnapFlushBytes {
				t.Errorf("the copy on write held %d bytes at once", s.peak)
			}
			for !s.walked {
				s.walk(1 << 20)
			}
			s.finish(<-s.finished)
			checkSnapshotFile(t, enc, path, want)
		})
	}
}

// TestSnapshotBigStringNotCopied: a string of more than a flush goes from
// the key space straight to the file, whether the walk reaches it or a
// write copies it first, with and without a TTL: the snapshot does not
// hold a copy of it (8 MiB here, of a value that may be 512 MB). The
// file holds the instant.
func TestSnapshotBigStringNotCopied(t *testing.T) {
	for _, enc := range []snapEncoder{&rdbEncoder{}, aofEncoder{}} {
		t.Run(fmt.Sprintf("%T", enc), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			big := strings.Repeat("b", 8<<20)
			for _, k := range []string{"walked", "copied"} {
				tc.do("SET", k, big)
				tc.do("SET", k+":small", "v")
			}
			tc.do("EXPIRE", "walked", "3600")
			tc.do("EXPIRE", "copied:small", "3600")
			want := keySpaceLines()
			path := filepath.Join(t.TempDir(), "snapshot")
			s, err := snapshotBegin(enc, path, func(*snapshot, error) {})
			if err != nil {
				t.Fatal(err)
			}
			tc.do("APPEND", "copied", "more") // copied on write first
			for !s.walked {
				s.walk(1 << 20)
			}
			if s.peak > kSnapFlushBytes {
				t.Errorf("the snapshot held %d bytes at once", s.peak)
			}
			s.finish(<-s.finished)
			checkSnapshotFile(t, enc, path, want)
		})
	}
}

// checkSnapshotFile loads the file a snapshot with enc wrote at path into
// an empty key space, and checks that it holds want (keySpaceLines).
func checkSnapshotFile(t *testing.T, enc snapEncoder, path string, want []string) {
	t.Helper()
	resetTx(t)
	var err error
	if _, ok := enc.(aofEncoder); ok {
		_, err = aofLoad(path)
	} else {
		var data []byte
		if data, err = os.ReadFile(path); err == nil {
			_, err = rdbLoad(data, int64(getUnixMs()))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := keySpaceLines(); !slices.Equal(got, want) {
		t.Errorf("loaded %d keys, the instant had %d", len(got), len(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("first difference: got %.200s, want %.200s", got[i], want[i])
			}
		}
	}
}
