package zset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRank: Rank agrees with the members' order, as a walk from the first
// one counts it, in a set built and thinned at random.
func TestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := &ZSet{}
	for i := range 2000 {
		z.Add(fmt.Sprint("m", i), float64(rng.IntN(100)))
	}
	for i := range 500 {
		z.Pop(fmt.Sprint("m", rng.IntN(2000+i)))
	}
	i := int64(0)
	for node := z.SeekGE(math.Inf(-1), ""); node != nil; node = z.Offset(node, +1) {
		if got := z.Rank(node); got != i {
			t.Fatalf("Rank(%s) = %d, want %d", node.Name(), got, i)
		}
		i++
	}
	if i != int64(z.Len()) {
		t.Fatalf("walked %d members of %d", i, z.Len())
	}
}
