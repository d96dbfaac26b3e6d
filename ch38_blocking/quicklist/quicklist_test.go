package quicklist

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// check compares l with the model want, and checks every node: its
// listpack's header, its end byte, every entry read forwards and
// backwards, the counts and the bytes the list keeps.
func check(t *testing.T, l *List, want []string) {
	t.Helper()
	var got []string
	nodes, bytes := 0, 0
	var prev *node
	for n := l.head; n != nil; prev, n = n, n.next {
		nodes++
		bytes += len(n.lp)
		if n.prev != prev {
			t.Fatalf("node %d: prev link wrong", nodes)
		}
		if n.n == 0 {
			t.Fatalf("node %d is empty", nodes)
		}
		if int(binary.LittleEndian.Uint32(n.lp)) != len(n.lp) || int(binary.LittleEndian.Uint16(n.lp[4:])) != n.n {
			t.Fatalf("node %d: header says %d bytes, %d elements; has %d, %d", nodes,
				binary.LittleEndian.Uint32(n.lp), binary.LittleEndian.Uint16(n.lp[4:]), len(n.lp), n.n)
		}
		if n.lp[len(n.lp)-1] != lpEnd {
			t.Fatalf("node %d: no end byte", nodes)
		}
		if len(n.lp) > NodeBytes() && n.n > 1 || Fill >= 0 && n.n > max(Fill, 1) {
			t.Fatalf("node %d: %d bytes in %d elements, past Fill %d", nodes, len(n.lp), n.n, Fill)
		}
		var fwd []string
		for off := lpHeader; n.lp[off] != lpEnd; {
			v, size := entryAt(n.lp, off)
			fwd = append(fwd, string(v))
			off += size
		}
		var back []string
		for off := len(n.lp) - 1; off > lpHeader; {
			off = prevOff(n.lp, off)
			v, _ := entryAt(n.lp, off)
			back = append(back, string(v))
		}
		slices.Reverse(back)
		if len(fwd) != n.n || !slices.Equal(fwd, back) {
			t.Fatalf("node %d: %d elements forwards %q, backwards %q", nodes, n.n, fwd, back)
		}
		got = append(got, fwd...)
	}
	if l.tail != prev {
		t.Fatal("tail wrong")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("list %q, want %q", got, want)
	}
	if l.Len() != len(want) || l.Nodes() != nodes || l.Bytes() != bytes {
		t.Fatalf("counts %d elements, %d nodes, %d bytes; have %d, %d, %d", l.Len(), l.Nodes(), l.Bytes(), len(want), nodes, bytes)
	}
}

// value returns a random element: mostly short, some around the
// encodings' and the backward lengths' thresholds, a few bigger than a
// node.
func value(r *rand.Rand, i int) string {
	sizes := []int{0, 1, 5, 63, 64, 125, 126, 127, 128, 4095, 4096, 9000, 16380, 16400}
	n := r.Intn(12)
	if r.Intn(8) == 0 {
		n = sizes[r.Intn(len(sizes))]
	}
	return strings.Repeat(string(rune('a'+i%26)), n)
}

func TestListAgainstModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	t.Cleanup(func() { Fill = -2 })
	for round := 0; round < 40; round++ {
		// Nodes by bytes, and by count (Redis's test suite runs its list
		// tests with nodes of 1 and of 5 elements).
		Fill = []int{-2, -1, -5, 1, 5, 0}[round%6]
		var l List
		var want []string
		for op := 0; op < 600; op++ {
			v := value(r, op)
			switch k := r.Intn(10); {
			case k < 2:
				l.PushHead([]byte(v))
				want = slices.Insert(want, 0, v)
			case k < 4:
				l.PushTail([]byte(v))
				want = append(want, v)
			case k == 4 && len(want) > 0:
				i := r.Intn(len(want))
				it, _ := l.Seek(i)
				after := r.Intn(2) == 0
				l.Insert(it, []byte(v), after)
				if after {
					i++
				}
				want = slices.Insert(want, i, v)
			case k == 5 && len(want) > 0:
				i := r.Intn(len(want))
				it, _ := l.Seek(i)
				l.Replace(it, []byte(v))
				want[i] = v
			case k == 6 && len(want) > 0:
				// A replacement too big for its node's room.
				i, v := r.Intn(len(want)), strings.Repeat("r", 3000+r.Intn(6000))
				it, _ := l.Seek(i)
				l.Replace(it, []byte(v))
				want[i] = v
			case k == 7:
				n := r.Intn(len(want) + 2)
				l.Delete(true, n)
				want = want[min(n, len(want)):]
			case k == 8:
				n := r.Intn(len(want) + 2)
				l.Delete(false, n)
				want = want[:len(want)-min(n, len(want))]
			case k == 9 && len(want) > 0 && r.Intn(3) == 0:
				// Remove matches of an element that is there, often
				// many times over (the short values repeat).
				v := want[r.Intn(len(want))]
				count, tail := r.Intn(4), r.Intn(2) == 0
				removed, _, _ := l.RemoveMatches([]byte(v), count, tail)
				var keep []string
				var idx []int
				for i, e := range want {
					if e == v {
						idx = append(idx, i)
					}
				}
				if count > 0 && count < len(idx) {
					if tail {
						idx = idx[len(idx)-count:]
					} else {
						idx = idx[:count]
					}
				}
				for i, e := range want {
					if len(idx) > 0 && idx[0] == i {
						idx = idx[1:]
						continue
					}
					keep = append(keep, e)
				}
				if removed != len(want)-len(keep) {
					t.Fatalf("RemoveMatches(%q, %d, %v) = %d, want %d", v, count, tail, removed, len(want)-len(keep))
				}
				want = keep
			case k == 9 && len(want) > 0:
				i := r.Intn(len(want))
				it, _ := l.Seek(i)
				if string(it.Value()) != want[i] {
					t.Fatalf("Seek(%d) = %q, want %q", i, it.Value(), want[i])
				}
			}
			check(t, &l, want)
		}
	}
}

func TestWalkBothWays(t *testing.T) {
	var l List
	var want []string
	for i := 0; i < 5000; i++ {
		v := strings.Repeat("x", i%70)
		l.PushTail([]byte(v))
		want = append(want, v)
	}
	i := 0
	for it := l.First(); it.Valid(); it.Next() {
		if string(it.Value()) != want[i] {
			t.Fatalf("forwards at %d", i)
		}
		i++
	}
	for it := l.Last(); it.Valid(); it.Prev() {
		i--
		if string(it.Value()) != want[i] {
			t.Fatalf("backwards at %d", i)
		}
	}
	if i != 0 || l.Nodes() < 10 {
		t.Fatalf("walked to %d; %d nodes", i, l.Nodes())
	}
	// The middle is reached in about a node's worth of steps past the
	// nodes skipped, not one step per element.
	if _, steps := l.Seek(2500); steps > l.Nodes()+400 {
		t.Fatalf("Seek(2500) took %d steps over %d nodes", steps, l.Nodes())
	}
}

// TestShrunkNodeFits: a node whose big element is replaced by a small one
// keeps no buffer of the big one's size, and unlinking whole nodes is
// counted in what Delete returns.
func TestShrunkNodeFits(t *testing.T) {
	var l List
	l.PushTail(make([]byte, 1<<20))
	it, _ := l.Seek(0)
	l.Replace(it, []byte("x"))
	if c := cap(l.head.lp); c > NodeBytes() {
		t.Errorf("a node of %d bytes keeps a buffer of %d", len(l.head.lp), c)
	}
	t.Cleanup(func() { Fill = -2 })
	Fill = 1
	for i := 0; i < 1000; i++ {
		l.PushTail([]byte("e"))
	}
	if work := l.Delete(true, 1000); work < 1000*kUnlinkCost {
		t.Errorf("Delete of 1,000 whole nodes cost %d, want at least %d", work, 1000*kUnlinkCost)
	}
}
