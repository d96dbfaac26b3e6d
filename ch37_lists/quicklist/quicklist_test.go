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
		if len(n.lp) > NodeBytes && n.n > 1 {
			t.Fatalf("node %d: %d bytes in %d elements, past NodeBytes", nodes, len(n.lp), n.n)
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
	for round := 0; round < 40; round++ {
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
				// Delete a run, forwards or backwards, and check that
				// the place moved to the right neighbour.
				i, run := r.Intn(len(want)), 1+r.Intn(5)
				it, _ := l.Seek(i)
				fwd := r.Intn(2) == 0
				for ; run > 0 && it.Valid(); run-- {
					if string(it.Value()) != want[i] {
						t.Fatalf("at %d: %q, want %q", i, it.Value(), want[i])
					}
					l.Delete(&it, fwd)
					want = slices.Delete(want, i, i+1)
					if !fwd {
						i--
					}
				}
			case k == 7:
				n := r.Intn(len(want) + 2)
				l.DeleteHead(n)
				want = want[min(n, len(want)):]
			case k == 8:
				n := r.Intn(len(want) + 2)
				l.DeleteTail(n)
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

func TestClear(t *testing.T) {
	var l List
	for i := 0; i < 3000; i++ {
		l.PushHead([]byte("v"))
	}
	if n := l.Clear(); n < 1 || l.Len() != 0 || l.Nodes() != 0 || l.First().Valid() {
		t.Fatalf("Clear: %d nodes, then %d elements", n, l.Len())
	}
	check(t, &l, nil)
}
