package testkit

import "strings"

// BookCollisions returns n different names (n <= 1<<16) that all have the
// same hash under the book's string hash (FNV's offset basis and prime,
// with each byte added rather than xored): a name's hash is its start
// state times the prime to the power of its length plus a sum over its
// bytes, so two 4-byte blocks with the same hash stand for each other
// anywhere in a name, and name i spells the 16 low bits of i with them.
// It is what a client who has read the book can send; the tests of the
// seeded hashes check that such names spread like any others.
func BookCollisions(n int) []string {
	const a, b = "[N2\xa6", "\x93\xec\xfa\x98"
	if n > 1<<16 || bookHash(a) != bookHash(b) {
		panic("testkit: BookCollisions makes at most 65536 names of two colliding blocks")
	}
	names := make([]string, n)
	for i := range names {
		var sb strings.Builder
		for bit := range 16 {
			sb.WriteString([]string{a, b}[i>>bit&1])
		}
		names[i] = sb.String()
	}
	return names
}

// bookHash is the book's string hash, as the chapters' hashtable.StrHash.
func bookHash(s string) uint32 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h = (h + uint32(s[i])) * 0x01000193
	}
	return h
}
