package hashes

import (
	"fmt"
	"math/rand/v2"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestScanThroughResizes is HSCAN's promise, checked against a model: a
// walk in small steps while fields are added and deleted around it, so
// that the hashtable resizes several times and fields move in the order;
// every field present from the walk's first call to its last is returned
// at least once, and nothing that was never stored is returned.
func TestScanThroughResizes(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x5ca9))
			h := &Hash{}
			live := map[string]bool{}
			next := 0
			add := func() {
				name := fmt.Sprint("f", next)
				next++
				h.Set(t0, name, "v"+name)
				live[name] = true
			}
			del := func() {
				if h.StoredLen() == 0 {
					return
				}
				p, _ := h.At(t0, r.IntN(h.StoredLen()))
				h.Delete(t0, p.Name)
				delete(live, p.Name)
			}
			for range 50 + r.IntN(200) {
				add()
			}
			throughout := map[string]bool{}
			for name := range live {
				throughout[name] = true
			}
			seen := map[string]bool{}
			cursor, calls := uint64(0), 0
			for {
				var visited int
				cursor, visited = h.Scan(t0, cursor, 1+r.IntN(8), 0, func(name, value string) bool {
					if value != "v"+name {
						t.Fatalf("field %q has value %q", name, value)
					}
					seen[name] = true
					return true
				})
				if visited == 0 && cursor != 0 {
					t.Fatalf("a call visited nothing and the walk is not over (cursor %d)", cursor)
				}
				calls++
				if cursor == 0 {
					break
				}
				// Grow past several resizes, shrink again, churn.
				for range r.IntN(12) {
					if r.IntN(3) == 0 {
						del()
					} else {
						add()
					}
				}
				checkOrder(t, calls, h)
			}
			for name := range throughout {
				if live[name] && !seen[name] {
					t.Errorf("field %q, present throughout, was never returned (%d calls)", name, calls)
				}
			}
			for name := range seen {
				var n int
				if _, err := fmt.Sscanf(name, "f%d", &n); err != nil || n >= next {
					t.Errorf("returned %q, never stored", name)
				}
			}
		})
	}
}

// TestScanSmallAndCursors: a hash of no more than all fields comes whole
// from any cursor; a cursor past the top (the hash shrank) starts at the top;
// expired fields are skipped but visited.
func TestScanSmallAndCursors(t *testing.T) {
	h := &Hash{}
	for i := range 10 {
		h.Set(t0, fmt.Sprint("f", i), "v")
	}
	h.SetExpireAt(t0, "gone", "v", t0+5)
	collect := func(now, cursor uint64, count, all int) ([]string, uint64, int) {
		var names []string
		next, visited := h.Scan(now, cursor, count, all, func(name, _ string) bool {
			names = append(names, name)
			return true
		})
		return names, next, visited
	}
	names, next, visited := collect(t0, 0, 2, 128)
	if len(names) != 11 || next != 0 || visited != 11 {
		t.Errorf("small hash: %d names, cursor %d, %d visited; want 11, 0, 11", len(names), next, visited)
	}
	if names, next, _ = collect(t0, 5, 2, 128); len(names) != 11 || next != 0 {
		t.Errorf("small hash, cursor 5: %d names, cursor %d; want 11, 0", len(names), next)
	}
	names, next, visited = collect(t0+10, 0, 2, 128)
	if len(names) != 10 || next != 0 || visited != 11 {
		t.Errorf("with one field expired: %d names, cursor %d, %d visited; want 10, 0, 11", len(names), next, visited)
	}
	// In steps: places 10 and 9 first, then the cursor names place 8.
	names, next, _ = collect(t0, 0, 2, 0)
	if diff := gocmp.Diff([]string{h.order[10].name, h.order[9].name}, names); diff != "" || next != 9 {
		t.Errorf("first step: cursor %d (want 9), names (-want +got):\n%s", next, diff)
	}
	// A cursor far past the top starts at the top, place 10.
	if names, next, _ = collect(t0, 1000, 1, 0); next != 10 || len(names) != 1 || names[0] != h.order[10].name {
		t.Errorf("cursor past the top: %v, next %d; want [%s], 10", names, next, h.order[10].name)
	}
	// The last place: cursor 1 names place 0, and the walk ends.
	if names, next, _ = collect(t0, 1, 5, 0); next != 0 || len(names) != 1 || names[0] != h.order[0].name {
		t.Errorf("cursor 1: %v, next %d; want [%s], 0", names, next, h.order[0].name)
	}
	var empty Hash
	if next, visited := empty.Scan(t0, 0, 10, 128, func(string, string) bool { return true }); next != 0 || visited != 0 {
		t.Errorf("empty hash: cursor %d, %d visited", next, visited)
	}
}

// TestAtCoversOrder: At reads every place, and tells an expired field.
func TestAtCoversOrder(t *testing.T) {
	h := &Hash{}
	h.Set(t0, "a", "1")
	h.SetExpireAt(t0, "b", "2", t0+1)
	got := map[string]bool{}
	for i := range h.StoredLen() {
		p, live := h.At(t0+5, i)
		got[p.Name] = live
	}
	if diff := gocmp.Diff(map[string]bool{"a": true, "b": false}, got); diff != "" {
		t.Errorf("At (-want +got):\n%s", diff)
	}
}

// TestScanStops: a walk fn stops resumes at the field it stopped before.
func TestScanStops(t *testing.T) {
	h := &Hash{}
	for i := range 5 {
		h.Set(t0, fmt.Sprint("f", i), "v")
	}
	var got []string
	next, visited := h.Scan(t0, 0, 10, 0, func(name, _ string) bool {
		if len(got) == 2 {
			return false
		}
		got = append(got, name)
		return true
	})
	if next != 3 || visited != 2 || len(got) != 2 {
		t.Errorf("stopped after 2 of 5: cursor %d, %d visited, %v; want 3, 2", next, visited, got)
	}
}
