package main

import (
	"math/bits"
)

// subBits sets the histogram's resolution: each power-of-two range of values
// is split into 1<<subBits equal buckets, so a bucket is at most 1/128 of its
// lower bound wide. Reporting the bucket's midpoint keeps the error of any
// percentile below 1/256 (about 0.4%), HDR-histogram style.
const (
	subBits  = 7
	subCount = 1 << subBits
	nBuckets = (64 - subBits + 1) * subCount // enough for any uint64
)

// histogram counts non-negative values (latencies in nanoseconds) in
// log-linear buckets. Values below subCount are counted exactly.
type histogram struct {
	counts   [nBuckets]uint64
	total    uint64
	min, max uint64
}

// bucketOf maps v to its bucket. Below subCount the bucket is v itself; above,
// v's top subBits+1 significant bits pick the bucket within its octave.
func bucketOf(v uint64) int {
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1 // v>>shift lies in [subCount, 2*subCount)
	return (shift+1)*subCount + int(v>>shift) - subCount
}

// bucketRange returns the smallest value of bucket i and the bucket's width.
func bucketRange(i int) (low, width uint64) {
	if i < subCount {
		return uint64(i), 1
	}
	shift := i/subCount - 1
	return uint64(i%subCount+subCount) << shift, 1 << shift
}

// record adds count occurrences of value v.
func (h *histogram) record(v uint64, count uint64) {
	if count == 0 {
		return
	}
	h.counts[bucketOf(v)] += count
	if h.total == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.total += count
}

// merge adds o's counts into h.
func (h *histogram) merge(o *histogram) {
	if o.total == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.total == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.total += o.total
}

// percentile returns the value at or below which p percent of the recorded
// values fall (the nearest-rank definition), to within the bucket accuracy.
// It returns 0 for an empty histogram.
func (h *histogram) percentile(p float64) uint64 {
	if h.total == 0 {
		return 0
	}
	// rank is 1-based: the smallest r with r >= p/100 * total.
	rank := uint64(p / 100 * float64(h.total))
	if float64(rank) < p/100*float64(h.total) {
		rank++
	}
	rank = min(max(rank, 1), h.total)
	// The extremes are tracked exactly.
	if rank == 1 {
		return h.min
	}
	if rank == h.total {
		return h.max
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			low, width := bucketRange(i)
			mid := low + (width-1)/2
			// Never report beyond the exact extremes.
			return min(max(mid, h.min), h.max)
		}
	}
	return h.max
}
