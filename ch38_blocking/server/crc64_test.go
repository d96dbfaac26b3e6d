package server

import (
	"math/rand/v2"
	"testing"
)

// crc64Bytes is the checksum a byte a step, the definition crc64Jones's
// eight bytes a step must agree with.
func crc64Bytes(crc uint64, b []byte) uint64 {
	for _, c := range b {
		crc = crcTables[0][byte(crc)^c] ^ crc>>8
	}
	return crc
}

// TestCRC64Words: eight bytes a step give the checksum a byte a step
// gives, for every length up to 100 and carried on from any cut.
func TestCRC64Words(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 100)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for n := range len(b) + 1 {
		want := crc64Bytes(0, b[:n])
		if got := crc64Jones(0, b[:n]); got != want {
			t.Fatalf("%d bytes: %016x, want %016x", n, got, want)
		}
		cut := r.IntN(n + 1)
		if got := crc64Jones(crc64Jones(0, b[:cut]), b[cut:n]); got != want {
			t.Fatalf("%d bytes cut at %d: %016x, want %016x", n, cut, got, want)
		}
	}
}

// BenchmarkCRC64 checksums 1 MiB.
func BenchmarkCRC64(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		crc64Jones(0, buf)
	}
}

// BenchmarkCRC64Bytes checksums 1 MiB a byte a step, for comparison.
func BenchmarkCRC64Bytes(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		crc64Bytes(0, buf)
	}
}
