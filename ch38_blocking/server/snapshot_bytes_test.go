package server

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSnapshotFewBigMembersInParts: a value of few members, each big, is
// split by its bytes as one of many members is by their count: a hash of
// 40 fields of 256 KiB, a sorted set of 40 members of 256 KiB names, a
// hash of 100 fields of 32 KiB, a hash of one field of 8 MiB and a string of 8 MiB are each written over
// many of the walk's steps, no step writing more than a step's bytes and
// a stretch, and the snapshot holding no more than a stretch at once (a
// whole hash was encoded in one step, into a buffer of its size). Writes
// to such a value between the steps finish it first, and the file holds
// the instant.
func TestSnapshotFewBigMembersInParts(t *testing.T) {
	for _, enc := range []snapEncoder{&rdbEncoder{}, aofEncoder{}} {
		t.Run(fmt.Sprintf("%T", enc), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			fillKeys(tc, 20)
			val := strings.Repeat("v", 256<<10)
			h := []string{"HSET", "fewbig"}
			z := []string{"ZADD", "fewbigz"}
			for i := range 40 {
				h = append(h, "f"+strconv.Itoa(i), val)
				z = append(z, strconv.Itoa(i), fmt.Sprintf("%06d", i)+val)
			}
			tc.do(h...)
			tc.do(z...)
			mid := []string{"HSET", "midbig"} // fields copied, not written straight
			for i := range 100 {
				mid = append(mid, "f"+strconv.Itoa(i), strings.Repeat("m", 32<<10))
			}
			tc.do(mid...)
			tc.do("HSET", "onefield", "f", strings.Repeat("o", 8<<20))
			tc.do("SET", "bigstr", strings.Repeat("s", 8<<20))
			tc.do("EXPIRE", "fewbig", "3600")
			tc.do("EXPIRE", "bigstr", "3600")
			want := keySpaceLines()
			path := filepath.Join(t.TempDir(), "snapshot")
			s, err := snapshotBegin(enc, path, func(*snapshot, error) {})
			if err != nil {
				t.Fatal(err)
			}
			const budget = kSnapStepWork
			// A step writes the budget's bytes (kWorkBytes a unit), and
			// may begin with the end of a stretch and end with one more.
			limit := int64(budget*kWorkBytes + 2*kSnapFlushBytes + kSnapStraightBytes)
			steps := map[string]int{}
			changed := map[string]bool{}
			worst := int64(0)
			for !s.walked {
				before := s.written + int64(len(s.buf)-s.bufAt)
				s.walk(budget)
				worst = max(worst, s.written+int64(len(s.buf)-s.bufAt)-before)
				p := s.part
				if p == nil {
					continue
				}
				steps[p.key()]++
				// Changes in the middle, each after some steps: the
				// value is finished as it was before the change.
				if steps[p.key()] == 3 && !changed[p.key()] {
					changed[p.key()] = true
					switch p.key() {
					case "fewbig":
						tc.do("HSET", "fewbig", "f1", "changed")
					case "fewbigz":
						tc.do("ZADD", "fewbigz", "-1", "changed")
					case "midbig":
						tc.do("HSET", "midbig", "f1", "changed")
					case "onefield":
						tc.do("HDEL", "onefield", "f")
					case "bigstr":
						tc.do("SETRANGE", "bigstr", "0", "changed")
					}
					if s.part == p {
						t.Errorf("%s changed while the snapshot was writing it", p.key())
					}
				}
			}
			s.finish(<-s.finished)
			for _, k := range []string{"fewbig", "fewbigz", "midbig", "onefield", "bigstr"} {
				// 3 MiB or more in 1 MiB steps: 3 steps and the change.
				if steps[k] < 3 {
					t.Errorf("%s was written over %d steps", k, steps[k])
				}
			}
			if worst > limit {
				t.Errorf("a step wrote %d bytes, more than %d", worst, limit)
			}
			if s.peak > 2*kSnapFlushBytes {
				t.Errorf("the snapshot held %d bytes at once", s.peak)
			}
			checkSnapshotFile(t, enc, path, want)
			t.Logf("steps with each value in parts %v; at most %d bytes a step, %d held", steps, worst, s.peak)
		})
	}
}
