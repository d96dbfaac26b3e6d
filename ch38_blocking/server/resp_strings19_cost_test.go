package server

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestExecStringWorkWithinEstimate is TestExecWorkWithinEstimate for the
// string commands of this chapter: random transactions of them over a
// few keys, some values long, and no command's work, as the meter
// charged it, may pass what EXEC weighed for it (cmd_string_cost.go): a BITOP or
// an LCS after a SETRANGE that grew its sources, a SETBIT that grows a
// value, an INCRBYFLOAT that prints thousands of digits.
func TestExecStringWorkWithinEstimate(t *testing.T) {
	resetTx(t)
	rng := rand.New(rand.NewSource(2))
	a := newTxClient(t)
	keys := []string{"s", "t", "z", "f"}
	key := func() string { return keys[rng.Intn(len(keys))] }
	val := func() string { return strings.Repeat("ab", rng.Intn(4)*rng.Intn(1500)+1) }
	num := func(n int) string { return strconv.Itoa(rng.Intn(n)) }
	gen := func() []string {
		k := key()
		switch rng.Intn(14) {
		case 0:
			return []string{"SET", k, val(), "GET"}
		case 1:
			return []string{"SETRANGE", k, num(200_000), val()}
		case 2:
			return []string{"SETBIT", k, num(2_000_000), "1"}
		case 3:
			return []string{"BITCOUNT", k}
		case 4:
			return []string{"BITPOS", k, num(2), "0", "-1", "BIT"}
		case 5:
			return []string{"BITOP", []string{"AND", "OR", "XOR"}[rng.Intn(3)], k, key(), key(), key()}
		case 6:
			return []string{"BITOP", "NOT", k, key()}
		case 7:
			return []string{"LCS", k, key(), []string{"IDX", "LEN", "WITHMATCHLEN"}[rng.Intn(3)]}
		case 8:
			return []string{"INCRBYFLOAT", k, []string{"1e4000", "1.5", "-1e4000"}[rng.Intn(3)]}
		case 9:
			return []string{"GETRANGE", k, "0", "-1"}
		case 10:
			return []string{"MSETNX", k, val(), key(), val()}
		case 11:
			return []string{"GETEX", k, "PERSIST"}
		case 12:
			return []string{"ZADD", k, "1", "m"}
		}
		return []string{[]string{"SETEX", "PSETEX"}[rng.Intn(2)], k, "1000", val()}
	}
	runs, refused := execWithinEstimate(t, a, rng, 150, 8, gen)
	t.Logf("%d transactions ran, %d refused", runs, refused)
	if runs < 100 {
		t.Errorf("only %d of 150 transactions ran", runs)
	}
}
