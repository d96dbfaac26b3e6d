package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBucketsCoverEveryValue(t *testing.T) {
	// Each value must land in a bucket whose range contains it, and bucket
	// ranges must tile the number line without gaps.
	check := func(v uint64) {
		i := bucketOf(v)
		low, width := bucketRange(i)
		if v < low || v-low >= width {
			t.Fatalf("value %d in bucket %d covering [%d, %d+%d)", v, i, low, low, width)
		}
		if low > 0 && width > 1 && float64(width)/float64(low) > 1.0/subCount+1e-12 {
			t.Fatalf("bucket %d too wide: [%d, +%d)", i, low, width)
		}
	}
	for v := range uint64(5000) {
		check(v)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(rng.Uint64() >> rng.IntN(64))
	}
	check(math.MaxUint64)
	for i := 1; i < nBuckets; i++ {
		plow, pw := bucketRange(i - 1)
		low, _ := bucketRange(i)
		if plow+pw != low {
			t.Fatalf("gap between bucket %d (ends %d) and %d (starts %d)", i-1, plow+pw, i, low)
		}
	}
}

func TestPercentilesMatchSortedSlice(t *testing.T) {
	const accuracy = 0.01 // promised: within 1%; the design gives about 0.4%
	rng := rand.New(rand.NewPCG(42, 7))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	dists := map[string]func() uint64{
		// latencies spread over several orders of magnitude
		"lognormal": func() uint64 { return uint64(math.Exp(rng.NormFloat64()*1.5 + 12)) },
		"uniform":   func() uint64 { return 50 + rng.Uint64N(5_000_000) },
		"small":     func() uint64 { return rng.Uint64N(300) },
	}
	for name, draw := range dists {
		var h histogram
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = draw()
			h.record(vals[i], 1)
		}
		slices.Sort(vals)
		for _, p := range []float64{0, 1, 10, 50, 90, 99, 99.9, 99.99, 100} {
			rank := int(math.Ceil(p / 100 * float64(n)))
			want := vals[max(rank, 1)-1]
			got := h.percentile(p)
			if diff := math.Abs(float64(got) - float64(want)); diff > accuracy*float64(want) && diff > 0.5 {
				t.Errorf("%s p%v = %d, sorted slice says %d (off by %.3f%%)", name, p, got, want, 100*diff/float64(want))
			}
		}
		if h.percentile(100) != vals[n-1] || h.max != vals[n-1] {
			t.Errorf("%s max = %d / p100 = %d, want %d", name, h.max, h.percentile(100), vals[n-1])
		}
	}
}

func TestHistogramWeightsAndMerge(t *testing.T) {
	// A batch's latency counts once per request in the batch: 9 requests at
	// 1000ns and 1 at 1_000_000ns put p90 at 1000 and p99 at 1_000_000.
	var a, b histogram
	a.record(1000, 9)
	b.record(1_000_000, 1)
	a.merge(&b)
	if a.total != 10 {
		t.Fatalf("total = %d, want 10", a.total)
	}
	if got := a.percentile(90); got < 990 || got > 1010 {
		t.Errorf("p90 = %d, want about 1000", got)
	}
	if got := a.percentile(99); got < 990_000 || got > 1_010_000 {
		t.Errorf("p99 = %d, want about 1000000", got)
	}
	var empty histogram
	if got := empty.percentile(50); got != 0 {
		t.Errorf("empty p50 = %d, want 0", got)
	}
}
