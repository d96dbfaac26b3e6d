package server

import (
	"math/rand"
	"strconv"
	"testing"
	"time"
)

// TestExecHashWorkWithinEstimate is TestExecWorkWithinEstimate for the
// hash commands this chapter adds: random transactions of them, on hashes
// small and large, some with expired fields not yet reclaimed, checking
// that no command did more work than EXEC weighed for it.
func TestExecHashWorkWithinEstimate(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	// A hash whose 2,000 volatile fields expire, and stay stored until a
	// command reclaims them (no event loop runs here).
	args := []string{"HSETEX", "exp", "PX", "1", "FIELDS", "2000"}
	for i := range 2000 {
		args = append(args, strconv.Itoa(i), "v")
	}
	a.do(args...)
	for start := getUnixMs(); getUnixMs() < start+3; {
		time.Sleep(time.Millisecond)
	}
	rng := rand.New(rand.NewSource(2))
	keys := []string{"h", "big", "exp", "s"}
	a.do("SET", "s", "v")
	gen := func() []string {
		k := keys[rng.Intn(len(keys))]
		n := []int{1, 10, 300, 3000}[rng.Intn(4)]
		switch rng.Intn(8) {
		case 0:
			cmd := []string{"HMSET", k}
			for i := range n {
				cmd = append(cmd, strconv.Itoa(rng.Intn(4*n+1)), strconv.Itoa(i))
			}
			return cmd
		case 1:
			return []string{"HSETNX", k, strconv.Itoa(rng.Intn(100)), "v"}
		case 2:
			return []string{"HSTRLEN", k, strconv.Itoa(rng.Intn(100))}
		case 3:
			return []string{"HINCRBYFLOAT", k, strconv.Itoa(rng.Intn(10)), []string{"1.5", "1e4000", "-0.1"}[rng.Intn(3)]}
		case 4:
			cmd := []string{"HRANDFIELD", k, strconv.Itoa(rng.Intn(2*n+1) - n)}
			if rng.Intn(2) == 0 {
				cmd = append(cmd, "WITHVALUES")
			}
			return cmd
		case 5:
			return []string{"HRANDFIELD", k}
		case 6:
			return []string{"HSCAN", k, strconv.Itoa(rng.Intn(n)), "COUNT", strconv.Itoa(n), "MATCH", "*1*"}
		}
		return []string{"DEL", k}
	}
	runs, refused := execWithinEstimate(t, a, rng, 120, 10, gen)
	t.Logf("%d transactions ran, %d refused", runs, refused)
	if runs < 60 {
		t.Errorf("only %d of 120 transactions ran", runs)
	}
}
