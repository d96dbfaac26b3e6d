package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
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

// TestBitOpReference: BITOP AND, OR, XOR and NOT agree with a byte by
// byte reading, padding with zeros, over random sources of random lengths
// (around the 8 bytes of a word and across several), some missing.
func TestBitOpReference(t *testing.T) {
	resetData(t)
	rng := rand.New(rand.NewPCG(19, 2))
	ops := []string{"AND", "OR", "XOR", "NOT"}
	for round := range 2000 {
		op := ops[round%4]
		n := 1
		if op != "NOT" {
			n = 1 + rng.IntN(5)
		}
		args := []string{"BITOP", op, "dest"}
		srcs := make([]string, n)
		longest := 0
		for i := range srcs {
			key := fmt.Sprint("src", i)
			args = append(args, key)
			respRun(t, "DEL", key)
			if rng.IntN(6) == 0 {
				continue // missing: empty
			}
			b := make([]byte, rng.IntN(40))
			if rng.IntN(4) == 0 {
				b = make([]byte, rng.IntN(300))
			}
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			srcs[i] = string(b)
			longest = max(longest, len(b))
			respRun(t, "SET", key, srcs[i])
		}
		want := make([]byte, longest)
		for j := range want {
			at := func(s string) byte {
				if j < len(s) {
					return s[j]
				}
				return 0
			}
			want[j] = at(srcs[0])
			for _, s := range srcs[1:] {
				switch op {
				case "AND":
					want[j] &= at(s)
				case "OR":
					want[j] |= at(s)
				case "XOR":
					want[j] ^= at(s)
				}
			}
			if op == "NOT" {
				want[j] = ^want[j]
			}
		}
		if got, wantLen := respRun(t, args...), fmt.Sprintf(":%d\r\n", longest); got != wantLen {
			t.Fatalf("%q: %q, want %q", args, got, wantLen)
		}
		wantGet := "$-1\r\n"
		if longest > 0 {
			wantGet = fmt.Sprintf("$%d\r\n%s\r\n", longest, want)
		}
		if got := respRun(t, "GET", "dest"); got != wantGet {
			t.Fatalf("%q over %q: GET dest %q, want %q", args, srcs, got, wantGet)
		}
	}
}

// TestBitOpAndMissingWork: an AND of one long string and 2,000 missing
// keys is all zeros past the missing ones' end (0): it reads the long one
// once, as the OR of the same keys does, and is charged no more than
// reading its sources and writing its result, where each missing source
// used to clear the whole result again (2,001 times its length).
func TestBitOpAndMissingWork(t *testing.T) {
	resetData(t)
	big := strings.Repeat("\xa5", 1<<20)
	respRun(t, "SET", "big", big)
	args := []string{"BITOP", "AND", "d", "big"}
	for i := range 2000 {
		args = append(args, fmt.Sprint("m", i))
	}
	bound := (2*len(big)+argBytes(toBytes(args)))/kWorkBytes + len(args) + 16
	works := map[string]int{}
	for _, op := range []string{"AND", "OR"} {
		args[1] = op
		before := workDone
		if got := respRun(t, args...); got != fmt.Sprintf(":%d\r\n", len(big)) {
			t.Fatalf("BITOP %s: %q", op, got)
		}
		works[op] = workDone - before
		if works[op] > bound {
			t.Errorf("BITOP %s of a %d-byte string and 2000 missing keys charged %d work, past reading and writing it (%d)",
				op, len(big), works[op], bound)
		}
	}
	if works["AND"] > works["OR"] {
		t.Errorf("AND charged %d work, the OR of the same keys %d", works["AND"], works["OR"])
	}
	if got := lookupEntry("d").val(); got != big {
		t.Errorf("OR left d of %d bytes, not big", len(got))
	}
	args[1] = "AND"
	respRun(t, args...)
	if got := lookupEntry("d").val(); len(got) != len(big) || strings.Trim(got, "\x00") != "" {
		t.Errorf("AND with missing keys left d of %d bytes, not %d zeros", len(got), len(big))
	}
	t.Logf("work charged: AND %d, OR %d, bound %d", works["AND"], works["OR"], bound)
}

func toBytes(args []string) [][]byte {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	return b
}
