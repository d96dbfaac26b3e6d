package server

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/quicklist"
)

// TestSnapshotListsInParts: big lists (of many nodes, and of few elements
// of megabytes) are written over several of the walk's steps, each a
// bounded stretch, the long elements straight from the key space (the
// snapshot never holds one); and LPUSH, RPUSH, LPOP, LSET and DEL between
// the steps, to the list being written and to others, leave the file
// holding the instant. The RDB file and the rewritten log load back as
// the key space of the instant.
func TestSnapshotListsInParts(t *testing.T) {
	for _, enc := range []snapEncoder{&rdbEncoder{}, aofEncoder{}} {
		t.Run(fmt.Sprintf("%T", enc), func(t *testing.T) {
			resetTx(t)
			tc := newTxClient(t)
			fillKeys(tc, 50)
			const bigs = 4
			for b := range bigs {
				ent := putList("big:"+strconv.Itoa(b), numbered("e", 50_000), b%2 == 0)
				if b%2 == 1 {
					entrySetTTL(ent, 3600_000)
				}
			}
			fat := strings.Repeat("f", 3<<20)
			putList("fat", []string{fat, "small", fat + "g"}, false)
			want := keySpaceLines()
			path := filepath.Join(t.TempDir(), "snapshot")
			s, err := snapshotBegin(enc, path, func(*snapshot, error) {})
			if err != nil {
				t.Fatal(err)
			}
			const budget = 200
			rng := rand.New(rand.NewPCG(5, 6))
			big := func() string { return "big:" + strconv.Itoa(rng.IntN(bigs)) }
			listSteps, worst, inPart := 0, 0, 0
			for i := 0; !s.walked; i++ {
				before := workDone
				keys, written := s.keys, s.written+int64(len(s.buf)-s.bufAt)
				s.walk(budget)
				workDone = before
				if s.part != nil && s.part.typ() == tList {
					listSteps++
				}
				if s.keys == keys {
					worst = max(worst, int(s.written+int64(len(s.buf)-s.bufAt)-written))
				}
				if i%16 != 0 { // most steps go on with the list in parts
					continue
				}
				target := big()
				if s.part != nil && s.part.typ() == tList {
					target = s.part.key() // the list being written
					inPart++
				}
				switch k := strconv.Itoa(rng.IntN(50)); i / 16 % 7 {
				case 0:
					tc.do("LPUSH", target, "new", "newer")
				case 1:
					tc.do("RPUSH", target, "tail")
				case 2:
					tc.do("LPOP", target, "3")
				case 3:
					tc.do("LSET", target, "100", "set")
				case 4:
					tc.do("RPUSH", "fat", "more")
				case 5:
					tc.do("LPUSH", "born:"+k, "during the snapshot")
				case 6:
					if i > 500 {
						tc.do("DEL", target)
					}
				}
			}
			s.finish(<-s.finished)
			if listSteps < 10 || inPart == 0 {
				t.Fatalf("%d steps with a list in parts, %d writes to one in the middle: the test did not test that", listSteps, inPart)
			}
			// A step that wrote no whole key wrote a stretch of one list:
			// about a budget's worth of bytes and a node, or a slice of a
			// long element straight.
			if limit := max(kSnapStraightBytes, budget*kWorkBytes) + 2*quicklist.NodeBytes(); worst > limit {
				t.Errorf("a step wrote %d bytes of one list, more than %d", worst, limit)
			}
			if s.peak > 2*kSnapFlushBytes {
				t.Errorf("the snapshot held %d bytes at once: a long element copied", s.peak)
			}
			checkSnapshotFile(t, enc, path, want)
			t.Logf("%d keys, %d steps with a list in parts, %d writes to one amid, at most %d bytes of one in a step, %d copied on write, peak %d", s.keys, listSteps, inPart, worst, s.kept, s.peak)
		})
	}
}
