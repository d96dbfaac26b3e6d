package zset

import (
	"math/rand/v2"
	"testing"
)

// The range queries against the sorted slice of the reference model:
// random sets (buildRandom: inserts, updates and pops, so the tree's
// shape is any), random bounds.

// randBound is a score bound: one of the set's scores often, so that
// bounds land on members and on ties.
func randBound(rng *rand.Rand, r *ref) float64 {
	if len(r.sorted) > 0 && rng.IntN(2) == 0 {
		return r.sorted[rng.IntN(len(r.sorted))].Score
	}
	return randScore(rng)
}

// randLexBound is a bound of names: infinite, or a name (often one of the
// set's), inclusive or exclusive.
func randLexBound(rng *rand.Rand, r *ref) LexBound {
	switch rng.IntN(8) {
	case 0:
		return LexBound{Inf: -1, Exclusive: true}
	case 1:
		return LexBound{Inf: +1, Exclusive: true}
	}
	name := randName(rng)
	if len(r.sorted) > 0 && rng.IntN(2) == 0 {
		name = r.sorted[rng.IntN(len(r.sorted))].Name
	}
	return LexBound{Name: name, Exclusive: rng.IntN(2) == 0}
}

// lexAtLeast and lexAtMost are the model's bound checks, written apart
// from LexBound's methods.
func lexAtLeast(name string, b LexBound) bool {
	switch {
	case b.Inf != 0:
		return b.Inf < 0
	case b.Exclusive:
		return name > b.Name
	}
	return name >= b.Name
}

func lexAtMost(name string, b LexBound) bool {
	switch {
	case b.Inf != 0:
		return b.Inf > 0
	case b.Exclusive:
		return name < b.Name
	}
	return name <= b.Name
}

func TestRangeSeeks(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 31))
	sets, probes := 60, 200
	if testing.Short() {
		sets = 15
	}
	for s := range sets {
		z, r := buildRandom(rng, rng.IntN(300))
		n := len(r.sorted)
		if got := z.First(); n > 0 && !sameMember(view(got), &r.sorted[0]) || n == 0 && got != nil {
			t.Fatalf("set %d: First = %v", s, view(got))
		}
		if got := z.Last(); n > 0 && !sameMember(view(got), &r.sorted[n-1]) || n == 0 && got != nil {
			t.Fatalf("set %d: Last = %v", s, view(got))
		}
		// Next and Prev walk the whole order both ways; ByRank finds
		// each rank, and Rank reads it back.
		i := 0
		for node := z.First(); node != nil; node = z.Next(node) {
			if !sameMember(view(node), &r.sorted[i]) || !sameMember(view(z.ByRank(int64(i))), &r.sorted[i]) || z.Rank(node) != int64(i) {
				t.Fatalf("set %d: forward walk at %d: %v", s, i, view(node))
			}
			i++
		}
		if i != n {
			t.Fatalf("set %d: forward walk visited %d of %d", s, i, n)
		}
		for node := z.Last(); node != nil; node = z.Prev(node) {
			i--
			if !sameMember(view(node), &r.sorted[i]) {
				t.Fatalf("set %d: backward walk at %d: %v", s, i, view(node))
			}
		}
		if i != 0 || z.ByRank(-1) != nil || z.ByRank(int64(n)) != nil {
			t.Fatalf("set %d: backward walk ended at %d, or ByRank found a rank outside", s, i)
		}
		for range probes {
			v, ex := randBound(rng, r), rng.IntN(2) == 0
			var wantGE, wantLE *member
			for j := range r.sorted {
				m := &r.sorted[j]
				if wantGE == nil && (m.Score > v || !ex && m.Score == v) {
					wantGE = m
				}
				if m.Score < v || !ex && m.Score == v {
					wantLE = m
				}
			}
			if got := view(z.SeekScore(v, ex)); !sameMember(got, wantGE) {
				t.Fatalf("set %d: SeekScore(%v, %v) = %v, want %v", s, v, ex, got, wantGE)
			}
			if got := view(z.SeekScoreRev(v, ex)); !sameMember(got, wantLE) {
				t.Fatalf("set %d: SeekScoreRev(%v, %v) = %v, want %v", s, v, ex, got, wantLE)
			}
		}
	}
}

// TestLexSeeks: over a set whose members all have one score, the order
// is the names', and SeekLex and SeekLexRev find a range's ends.
func TestLexSeeks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	sets := 60
	if testing.Short() {
		sets = 15
	}
	for s := range sets {
		z, r := &ZSet{}, newRef()
		for range rng.IntN(300) {
			name := randName(rng)
			z.Add(name, 1)
			r.add(name, 1)
			if rng.IntN(5) == 0 {
				z.Pop(name)
				r.pop(name)
			}
		}
		for range 200 {
			lo, hi := randLexBound(rng, r), randLexBound(rng, r)
			var wantFirst, wantLast *member
			count := 0
			for j := range r.sorted {
				m := &r.sorted[j]
				if wantFirst == nil && lexAtLeast(m.Name, lo) {
					wantFirst = m
				}
				if lexAtMost(m.Name, hi) {
					wantLast = m
				}
				if lexAtLeast(m.Name, lo) && lexAtMost(m.Name, hi) {
					count++
				}
			}
			if got := view(z.SeekLex(lo)); !sameMember(got, wantFirst) {
				t.Fatalf("set %d: SeekLex(%+v) = %v, want %v", s, lo, got, wantFirst)
			}
			if got := view(z.SeekLexRev(hi)); !sameMember(got, wantLast) {
				t.Fatalf("set %d: SeekLexRev(%+v) = %v, want %v", s, hi, got, wantLast)
			}
			// Empty says no name could lie in the range: then none does.
			if Empty(lo, hi) && count > 0 {
				t.Fatalf("set %d: Empty(%+v, %+v), but %d members lie in it", s, lo, hi, count)
			}
			// Ranges of one name, or between the infinities, are
			// empty exactly when Empty says.
			if lo.Inf != 0 && hi.Inf != 0 || lo.Inf == 0 && hi.Inf == 0 && lo.Name == hi.Name {
				if want := lo.Inf > hi.Inf || lo.Inf == hi.Inf && (lo.Inf != 0 || lo.Exclusive || hi.Exclusive); Empty(lo, hi) != want {
					t.Fatalf("Empty(%+v, %+v) = %v, want %v", lo, hi, !want, want)
				}
			}
		}
	}
}

func TestEmptyLexRanges(t *testing.T) {
	minus, plus := LexBound{Inf: -1, Exclusive: true}, LexBound{Inf: +1, Exclusive: true}
	a, aEx, b := LexBound{Name: "a"}, LexBound{Name: "a", Exclusive: true}, LexBound{Name: "b"}
	for _, tt := range []struct {
		lo, hi LexBound
		want   bool
	}{
		{minus, plus, false}, {plus, minus, true}, {minus, minus, true}, {plus, plus, true},
		{a, a, false}, {a, aEx, true}, {aEx, a, true}, {a, b, false}, {b, a, true},
		{minus, a, false}, {a, plus, false}, {a, minus, true}, {plus, a, true},
	} {
		if got := Empty(tt.lo, tt.hi); got != tt.want {
			t.Errorf("Empty(%+v, %+v) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
	}
}
