package server

import (
	"math/rand/v2"
	"testing"
)

// TestBitSpans: countBits and firstBit, which read whole words in the
// middle of a span, agree with a bit-by-bit reading on every span of
// strings of up to 40 bytes: random ones, and ones of zeros or of ones
// between random ends, whose words firstBit skips. Spans of many words
// whose ends cut into a byte are among them.
func TestBitSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	bitAt := func(s string, i int64) int { return int(s[i>>3]>>(7-i&7)) & 1 }
	for n := range 41 {
		for _, fill := range []int{-1, 0x00, 0xff} {
			b := make([]byte, n)
			for i := range b {
				if b[i] = byte(fill); fill == -1 || i == 0 || i == n-1 {
					b[i] = byte(rng.Uint32())
				}
			}
			s := string(b)
			for from := int64(0); from < int64(n)*8; from++ {
				count, first := int64(0), [2]int64{-1, -1}
				for to := from; to < int64(n)*8; to++ {
					bit := bitAt(s, to)
					count += int64(bit)
					if first[bit] == -1 {
						first[bit] = to
					}
					if got := countBits(s, from, to); got != count {
						t.Fatalf("countBits(%x, %d, %d) = %d, want %d", s, from, to, got, count)
					}
					for bit := range 2 {
						if got := firstBit(s, from, to, bit); got != first[bit] {
							t.Fatalf("firstBit(%x, %d, %d, %d) = %d, want %d", s, from, to, bit, got, first[bit])
						}
					}
				}
			}
		}
	}
}
