package hostile

import (
	"bufio"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"example.com/byor/tools/internal/wire"
)

// Helpers of the key-space attacks (collide_test.go, ordereddel_test.go,
// globkeys_test.go).

// pipeline sends every request, a thousand at a time in one write, reads
// their replies and fails on an error reply. Replies are read through a
// buffer, which is empty again once the last one is read: nothing else is
// owed.
func (c *client) pipeline(reqs [][]string) {
	c.t.Helper()
	br := bufio.NewReaderSize(c.conn, 64<<10)
	for start := 0; start < len(reqs); start += 1000 {
		batch := reqs[start:min(start+1000, len(reqs))]
		var out []byte
		for _, r := range batch {
			var err error
			if out, err = wire.AppendRequest(out, r...); err != nil {
				c.t.Fatal(err)
			}
		}
		c.conn.SetWriteDeadline(time.Now().Add(60 * time.Second))
		if _, err := c.conn.Write(out); err != nil {
			c.t.Fatal(err)
		}
		c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		for _, r := range batch {
			body, err := wire.ReadFrame(br, c.buf)
			if err != nil {
				c.t.Fatalf("reading reply: %v", err)
			}
			if v, err := wire.DecodeReply(body); err != nil || v.Tag == wire.TagErr {
				c.t.Fatalf("%.20q: %v %v", r, v, err)
			}
		}
	}
}

// bookHash is the book's string hash, which chapters 16 and 17 used for
// their key space: public, unseeded, 32 bits.
func bookHash(s string) uint32 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h = (h + uint32(s[i])) * 0x01000193
	}
	return h
}

// collidingKeys returns n different keys of 68 bytes that all have the
// same book's hash. The hash of a string is its start state times the
// prime to the power of its length plus a sum over its bytes, so two
// four-byte blocks with the same hash (some 2^16 random ones hold a pair)
// can stand for each other anywhere in a key; key i spells the 17 low bits
// of i with the two.
func collidingKeys(t *testing.T, n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[uint32]string{}
	var a, b string
	for a == "" {
		blk := string(binary.LittleEndian.AppendUint32(nil, rng.Uint32()))
		if other, ok := seen[bookHash(blk)]; ok && other != blk {
			a, b = other, blk
		}
		seen[bookHash(blk)] = blk
	}
	keys := make([]string, n)
	for i := range keys {
		var sb strings.Builder
		for bit := range 17 {
			if i>>bit&1 == 0 {
				sb.WriteString(a)
			} else {
				sb.WriteString(b)
			}
		}
		keys[i] = sb.String()
	}
	if bookHash(keys[0]) != bookHash(keys[n-1]) {
		t.Fatal("test bug: the crafted keys do not collide")
	}
	return keys
}

// randomKeys returns n random keys of 68 bytes: the crafted keys' honest
// twins.
func randomKeys(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]string, n)
	for i := range keys {
		b := make([]byte, 0, 68)
		for range 17 {
			b = binary.LittleEndian.AppendUint32(b, rng.Uint32())
		}
		keys[i] = string(b)
	}
	return keys
}
