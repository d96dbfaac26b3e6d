package zset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/avl"
	"example.com/byor/ch38_blocking/hashtable"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// member is what the tests compare: a name and its score.
type member struct {
	Name  string
	Score float64
}

// view turns a node into a comparable value; nil stays nil.
func view(n *ZNode) *member {
	if n == nil {
		return nil
	}
	return &member{n.Name(), n.Score()}
}

// sameMember reports whether two optional members are equal.
func sameMember(a, b *member) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// compareMembers is the reference order, written independently of zless:
// score first, then the name with the standard library's byte comparison.
func compareMembers(a, b member) int {
	switch {
	case a.Score < b.Score:
		return -1
	case a.Score > b.Score:
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

// ref is the reference model: a map from name to score, and the same members
// in a slice kept sorted by compareMembers.
type ref struct {
	scores map[string]float64
	sorted []member
}

func newRef() *ref {
	return &ref{scores: map[string]float64{}}
}

func (r *ref) insertSorted(m member) {
	i, found := slices.BinarySearchFunc(r.sorted, m, compareMembers)
	if found {
		panic(fmt.Sprintf("ref: %+v already present", m))
	}
	r.sorted = slices.Insert(r.sorted, i, m)
}

func (r *ref) deleteSorted(m member) {
	i, found := slices.BinarySearchFunc(r.sorted, m, compareMembers)
	if !found {
		panic(fmt.Sprintf("ref: %+v missing", m))
	}
	r.sorted = slices.Delete(r.sorted, i, i+1)
}

// add mirrors ZSet.Add, including keeping the old score when the new one
// compares equal to it (0 and -0).
func (r *ref) add(name string, score float64) bool {
	old, ok := r.scores[name]
	if ok && old == score {
		return false
	}
	if ok {
		r.deleteSorted(member{name, old})
	}
	r.scores[name] = score
	r.insertSorted(member{name, score})
	return !ok
}

func (r *ref) pop(name string) *member {
	score, ok := r.scores[name]
	if !ok {
		return nil
	}
	delete(r.scores, name)
	r.deleteSorted(member{name, score})
	return &member{name, score}
}

func (r *ref) lookup(name string) *member {
	score, ok := r.scores[name]
	if !ok {
		return nil
	}
	return &member{name, score}
}

// seekGE returns the index of the first member at or after (score, name),
// len(r.sorted) if there is none.
func (r *ref) seekGE(score float64, name string) int {
	i, _ := slices.BinarySearchFunc(r.sorted, member{name, score}, compareMembers)
	return i
}

// at returns the member at index i, or nil outside the slice.
func (r *ref) at(i int64) *member {
	if i < 0 || i >= int64(len(r.sorted)) {
		return nil
	}
	return &r.sorted[i]
}

// walk collects the tree in order by following the AVL links, checking on
// the way every link the set relies on: each tree node's Owner and the
// Owner of its sibling hashtable node point at the same ZNode, the cached
// hash matches the name, parent links are mutual, and Cnt is the subtree
// size (Offset depends on it). It also records every owner it meets.
func walk(node, parent *avl.AVLNode[ZNode], out *[]member, seen map[*ZNode]bool) error {
	if node == nil {
		return nil
	}
	zn := node.Owner
	switch {
	case zn == nil || &zn.tree != node:
		return fmt.Errorf("tree node %p: Owner does not contain it", node)
	case zn.hmap.Owner != zn:
		return fmt.Errorf("member %q: hashtable node's Owner is not the member", zn.name)
	case zn.hmap.HCode != hashtable.Hash(zn.name):
		return fmt.Errorf("member %q: stale HCode", zn.name)
	case node.Parent != parent:
		return fmt.Errorf("member %q: wrong parent link", zn.name)
	}
	if err := walk(node.Left, node, out, seen); err != nil {
		return err
	}
	*out = append(*out, member{zn.name, zn.score})
	seen[zn] = true
	if err := walk(node.Right, node, out, seen); err != nil {
		return err
	}
	var want uint32 = 1
	if node.Left != nil {
		want += node.Left.Cnt
	}
	if node.Right != nil {
		want += node.Right.Cnt
	}
	if node.Cnt != want {
		return fmt.Errorf("member %q: Cnt = %d, want %d", zn.name, node.Cnt, want)
	}
	return nil
}

// checkSet compares the whole set against the reference: its size, the
// result of Lookup for every name in names, the in-order walk of the tree,
// and the back-pointers of both embedded nodes, including that the
// hashtable holds exactly the members the tree holds.
func checkSet(t *testing.T, z *ZSet, r *ref, names []string) {
	t.Helper()
	if got, want := z.Len(), len(r.scores); got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
	// This runs after every step of the random test, so the cheap == checks
	// come first and cmp.Diff, which is slow, only builds the failure report.
	for _, name := range names {
		want, got := r.lookup(name), view(z.Lookup(name))
		if !sameMember(want, got) {
			t.Fatalf("Lookup(%q) mismatch (-want +got):\n%s", name, cmp.Diff(want, got))
		}
	}
	var got []member
	seen := map[*ZNode]bool{}
	if err := walk(z.tree, nil, &got, seen); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.sorted, got) {
		t.Fatalf("in-order walk mismatch (-want +got):\n%s",
			cmp.Diff(r.sorted, got, cmpopts.EquateEmpty()))
	}
	scanned := 0
	var scanErr error
	z.hmap.Scan(func(hn *hashtable.HNode[ZNode]) {
		scanned++
		zn := hn.Owner
		switch {
		case scanErr != nil:
		case zn == nil || &zn.hmap != hn:
			scanErr = fmt.Errorf("hashtable node %p: Owner does not contain it", hn)
		case zn.tree.Owner != zn:
			scanErr = fmt.Errorf("member %q: tree node's Owner is not the member", zn.name)
		case !seen[zn]:
			scanErr = fmt.Errorf("member %q: in the hashtable but not in the tree", zn.name)
		}
	})
	if scanErr != nil {
		t.Fatal(scanErr)
	}
	if scanned != len(seen) {
		t.Fatalf("hashtable holds %d nodes, tree holds %d", scanned, len(seen))
	}
}

// smallNames is every string of length 0..3 over {a, b, 0x00, 0xff}: many
// share prefixes, and the two extreme bytes check that names compare as
// unsigned bytes.
func smallNames() []string {
	alphabet := []string{"a", "b", "\x00", "\xff"}
	names := []string{""}
	level := []string{""}
	for range 3 {
		var next []string
		for _, prefix := range level {
			for _, c := range alphabet {
				next = append(next, prefix+c)
			}
		}
		names = append(names, next...)
		level = next
	}
	return names
}

// fixedScores are drawn often so that many members tie on score.
var fixedScores = []float64{
	math.Inf(-1), -2, -1, -0.5, math.Copysign(0, -1), 0, 0.5, 1, 2, math.Inf(1),
}

func randScore(rng *rand.Rand) float64 {
	if rng.IntN(10) < 7 {
		return fixedScores[rng.IntN(len(fixedScores))]
	}
	return rng.NormFloat64() * 2
}

func TestRandomOps(t *testing.T) {
	steps := 20000
	if testing.Short() {
		steps = 2000
	}
	rng := rand.New(rand.NewPCG(11, 2024))
	names := smallNames()
	var z ZSet
	r := newRef()
	checkSet(t, &z, r, names)
	for step := range steps {
		name := names[rng.IntN(len(names))]
		switch op := rng.IntN(100); {
		case op < 55:
			score := randScore(rng)
			want := r.add(name, score)
			if got := z.Add(name, score); got != want {
				t.Fatalf("step %d: Add(%q, %v) = %v, want %v", step, name, score, got, want)
			}
		case op < 85:
			want := r.pop(name)
			got := z.Pop(name)
			if diff := cmp.Diff(want, view(got)); diff != "" {
				t.Fatalf("step %d: Pop(%q) mismatch (-want +got):\n%s", step, name, diff)
			}
			if got != nil && (got.tree.Parent != nil || got.tree.Left != nil || got.tree.Right != nil) {
				t.Fatalf("step %d: Pop(%q) returned a node still linked into the tree", step, name)
			}
		case op < 99:
			score := randScore(rng)
			want := r.at(int64(r.seekGE(score, name)))
			if diff := cmp.Diff(want, view(z.SeekGE(score, name))); diff != "" {
				t.Fatalf("step %d: SeekGE(%v, %q) mismatch (-want +got):\n%s", step, score, name, diff)
			}
		default:
			z.Clear()
			r = newRef()
		}
		checkSet(t, &z, r, names)
	}
}

// randName returns a random string of length 0..7 over a small alphabet:
// short enough that prefixes and repeats are common, with enough long names
// (16384 of length 7 alone) that a set of 1000 members fills up quickly.
func randName(rng *rand.Rand) string {
	const alphabet = "ab\x00\xff"
	b := make([]byte, rng.IntN(8))
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// buildRandom fills a set to size members with a mix of inserts, score
// updates and pops, so that the tree's shape comes from all three.
func buildRandom(rng *rand.Rand, size int) (*ZSet, *ref) {
	z := &ZSet{}
	r := newRef()
	for step := 0; len(r.scores) < size; step++ {
		switch {
		case step%7 == 6 && len(r.sorted) > 0:
			name := r.sorted[rng.IntN(len(r.sorted))].Name
			z.Pop(name)
			r.pop(name)
		case step%3 == 2 && len(r.sorted) > 0:
			name := r.sorted[rng.IntN(len(r.sorted))].Name
			score := randScore(rng)
			z.Add(name, score)
			r.add(name, score)
		default:
			name, score := randName(rng), randScore(rng)
			z.Add(name, score)
			r.add(name, score)
		}
	}
	return z, r
}

func TestSeekGEOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 77))
	probes := 300
	if testing.Short() {
		probes = 50
	}
	for _, size := range []int{0, 1, 2, 3, 10, 100, 1000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			z, r := buildRandom(rng, size)
			checkSet(t, z, r, nil)
			n := int64(size)
			for range probes {
				// Probe exact members, near misses (a member's score with
				// another name) and arbitrary pairs.
				var score float64
				var name string
				switch k := rng.IntN(3); {
				case k == 0 && size > 0:
					m := r.sorted[rng.IntN(size)]
					score, name = m.Score, m.Name
				case k == 1 && size > 0:
					score, name = r.sorted[rng.IntN(size)].Score, randName(rng)
				default:
					score, name = randScore(rng)*1.5, randName(rng)
				}
				i := int64(r.seekGE(score, name))
				start := z.SeekGE(score, name)
				if diff := cmp.Diff(r.at(i), view(start)); diff != "" {
					t.Fatalf("SeekGE(%v, %q) mismatch (-want +got):\n%s", score, name, diff)
				}
				offsets := []int64{
					0, 1, -1, 2, -2,
					-i, n - 1 - i, // to the first and the last member
					-i - 1, n - i, // one step past either end
					rng.Int64N(2*n+5) - n - 2,
					rng.Int64N(2*n+5) - n - 2,
					math.MaxInt64, math.MinInt64,
				}
				for _, off := range offsets {
					var want *member
					if start != nil && off > -n-1 && off < n+1 {
						want = r.at(i + off)
					}
					if diff := cmp.Diff(want, view(z.Offset(start, off))); diff != "" {
						t.Fatalf("Offset(SeekGE(%v, %q), %d) mismatch (-want +got):\n%s",
							score, name, off, diff)
					}
				}
			}
		})
	}
}

// order returns the set's members in tree order.
func order(t *testing.T, z *ZSet) []member {
	t.Helper()
	var got []member
	if err := walk(z.tree, nil, &got, map[*ZNode]bool{}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestOrdering(t *testing.T) {
	tests := []struct {
		name string
		add  []member // added in this order
		want []member // expected order
	}{
		{
			name: "ties on score ordered by name",
			add:  []member{{"c", 1}, {"a", 1}, {"b", 1}, {"z", 0}},
			want: []member{{"z", 0}, {"a", 1}, {"b", 1}, {"c", 1}},
		},
		{
			name: "prefixes sort shorter first",
			add:  []member{{"abc", 5}, {"b", 5}, {"a", 5}, {"", 5}, {"ab", 5}, {"a\x00", 5}},
			want: []member{{"", 5}, {"a", 5}, {"a\x00", 5}, {"ab", 5}, {"abc", 5}, {"b", 5}},
		},
		{
			name: "names compare as unsigned bytes",
			add:  []member{{"\xff", 0}, {"z", 0}, {"\x00", 0}, {"A", 0}},
			want: []member{{"\x00", 0}, {"A", 0}, {"z", 0}, {"\xff", 0}},
		},
		{
			name: "negative, zero and infinite scores",
			add: []member{
				{"pos", 3}, {"zero", 0}, {"neg", -1.5}, {"negzero", math.Copysign(0, -1)},
				{"inf", math.Inf(1)}, {"-inf", math.Inf(-1)}, {"tiny", -math.SmallestNonzeroFloat64},
			},
			// -0 equals 0, so those two tie on score and fall back to name order.
			want: []member{
				{"-inf", math.Inf(-1)}, {"neg", -1.5}, {"tiny", -math.SmallestNonzeroFloat64},
				{"negzero", 0}, {"zero", 0}, {"pos", 3}, {"inf", math.Inf(1)},
			},
		},
		{
			name: "duplicate scores across many names",
			add:  []member{{"d", 2}, {"c", 2}, {"b", 1}, {"a", 2}, {"e", 1}},
			want: []member{{"b", 1}, {"e", 1}, {"a", 2}, {"c", 2}, {"d", 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var z ZSet
			for _, m := range tc.add {
				if !z.Add(m.Name, m.Score) {
					t.Fatalf("Add(%q, %v) = false for a new member", m.Name, m.Score)
				}
			}
			if diff := cmp.Diff(tc.want, order(t, &z)); diff != "" {
				t.Errorf("order mismatch (-want +got):\n%s", diff)
			}
			if got := z.Len(); got != len(tc.want) {
				t.Errorf("Len() = %d, want %d", got, len(tc.want))
			}
		})
	}
}

func TestAddExisting(t *testing.T) {
	var z ZSet
	if !z.Add("x", 1) {
		t.Fatal("first Add reported an update")
	}
	node := z.Lookup("x")
	if z.Add("x", 1) {
		t.Fatal("Add of an existing member with the same score reported an insert")
	}
	if z.Add("x", -4) {
		t.Fatal("Add of an existing member with a new score reported an insert")
	}
	// The member is updated in place: the same node, now with the new score.
	if got := z.Lookup("x"); got != node {
		t.Fatalf("Lookup after update returned a different node")
	}
	if diff := cmp.Diff(&member{"x", -4}, view(node)); diff != "" {
		t.Errorf("updated member mismatch (-want +got):\n%s", diff)
	}
	if got := z.Len(); got != 1 {
		t.Errorf("Len() = %d, want 1", got)
	}
}

func TestUpdateMovesAcross(t *testing.T) {
	const n = 1000
	var z ZSet
	r := newRef()
	for i := range n {
		name := fmt.Sprintf("m%04d", i)
		z.Add(name, float64(i))
		r.add(name, float64(i))
	}
	// The first member jumps to the far end, then the new last member jumps
	// back to the front, each passing every other member.
	moves := []member{{"m0000", n + 0.5}, {"m0000", -1}, {"m0500", n}, {"m0999", -2}}
	for _, mv := range moves {
		if z.Add(mv.Name, mv.Score) {
			t.Fatalf("Add(%q, %v) reported an insert", mv.Name, mv.Score)
		}
		r.add(mv.Name, mv.Score)
		checkSet(t, &z, r, []string{mv.Name, "m0001", "m0998"})
		// The moved member is reachable at its new rank from the first one.
		first := z.SeekGE(math.Inf(-1), "")
		rank := int64(slices.Index(r.sorted, mv))
		if diff := cmp.Diff(&mv, view(z.Offset(first, rank))); diff != "" {
			t.Errorf("member at rank %d mismatch (-want +got):\n%s", rank, diff)
		}
	}
}

func TestPopAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 33))
	z, r := buildRandom(rng, 500)
	names := make([]string, 0, len(r.sorted))
	for _, m := range r.sorted {
		names = append(names, m.Name)
	}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for _, name := range names {
		want := r.pop(name)
		if diff := cmp.Diff(want, view(z.Pop(name))); diff != "" {
			t.Fatalf("Pop(%q) mismatch (-want +got):\n%s", name, diff)
		}
		if got := z.Pop(name); got != nil {
			t.Fatalf("second Pop(%q) = %+v, want nil", name, view(got))
		}
	}
	checkSet(t, z, r, names)
	if z.Len() != 0 || z.tree != nil {
		t.Fatalf("after popping everything: Len() = %d, tree = %p; want 0 and nil", z.Len(), z.tree)
	}
	if got := z.SeekGE(math.Inf(-1), ""); got != nil {
		t.Fatalf("SeekGE on an empty set = %+v, want nil", view(got))
	}
	// The emptied set is still usable.
	if !z.Add("again", 1) || z.Len() != 1 {
		t.Fatalf("Add after popping everything failed")
	}
}

func TestClear(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 55))
	z, _ := buildRandom(rng, 200)
	some := z.SeekGE(math.Inf(-1), "").Name()
	z.Clear()
	checkSet(t, z, newRef(), []string{some})
	if !z.Add(some, 2) {
		t.Fatalf("Add(%q) after Clear reported an update", some)
	}
	checkSet(t, z, &ref{scores: map[string]float64{some: 2}, sorted: []member{{some, 2}}}, []string{some})
}

func TestNaN(t *testing.T) {
	var z ZSet
	z.Add("a", 1)
	if got := z.SeekGE(math.NaN(), ""); got != nil {
		t.Errorf("SeekGE(NaN) = %+v, want nil", view(got))
	}
	defer func() {
		if recover() == nil {
			t.Error("Add with a NaN score did not panic")
		}
		if got := z.Lookup("b"); got != nil {
			t.Errorf("the rejected member was inserted")
		}
	}()
	z.Add("b", math.NaN())
}

func TestOffsetNil(t *testing.T) {
	var z ZSet
	if got := z.Offset(nil, 0); got != nil {
		t.Errorf("Offset(nil, 0) = %+v, want nil", view(got))
	}
}

// benchNames returns n distinct member names.
func benchNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("member:%d", i)
	}
	return names
}

// BenchmarkAdd100k measures building a set of 100k members from scratch.
func BenchmarkAdd100k(b *testing.B) {
	names := benchNames(100_000)
	rng := rand.New(rand.NewPCG(1, 1))
	scores := make([]float64, len(names))
	for i := range scores {
		scores[i] = rng.Float64()
	}
	for b.Loop() {
		var z ZSet
		for i, name := range names {
			z.Add(name, scores[i])
		}
	}
}

// BenchmarkSeekGE100k measures one SeekGE in a set of 100k members.
func BenchmarkSeekGE100k(b *testing.B) {
	names := benchNames(100_000)
	rng := rand.New(rand.NewPCG(2, 2))
	var z ZSet
	for _, name := range names {
		z.Add(name, rng.Float64())
	}
	probes := make([]float64, 1024)
	for i := range probes {
		probes[i] = rng.Float64()
	}
	i := 0
	for b.Loop() {
		z.SeekGE(probes[i%len(probes)], "")
		i++
	}
}
