package server

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestZPopWithinEstimate: inside EXEC, the pops and ZMSCORE, on sets of
// up to thousands of members, never do more work than EXEC weighed for
// them (their cost functions).
func TestZPopWithinEstimate(t *testing.T) {
	resetTx(t)
	var cmds [][]string
	execDone = func(weighed, did []int) {
		for i := range weighed {
			if did[i] > weighed[i] && i < len(cmds) {
				t.Errorf("EXEC: %q did %d units of work, weighed at %d", cmds[i], did[i], weighed[i])
			}
		}
	}
	t.Cleanup(func() { execDone = nil })
	rng := rand.New(rand.NewPCG(7, 9))
	a := newTxClient(t)
	keys := []string{"z0", "z1", "z2", "s"}
	a.do("set", "s", "v")
	gen := func() []string {
		k := func() string { return keys[rng.IntN(len(keys))] }
		n := []int{1, 10, 300, 3000}[rng.IntN(4)]
		switch rng.IntN(6) {
		case 0, 1:
			cmd := []string{"zadd", keys[rng.IntN(3)]}
			for i := range n {
				cmd = append(cmd, strconv.Itoa(rng.IntN(50)), "m"+strconv.Itoa(rng.IntN(2*n+i+1)))
			}
			return cmd
		case 2:
			return []string{[]string{"zpopmin", "zpopmax"}[rng.IntN(2)], k(), strconv.Itoa(n)}
		case 3:
			return []string{"zmpop", "2", k(), k(), "max", "count", strconv.Itoa(n)}
		case 4:
			return []string{"bzmpop", "0", "2", k(), k(), "min", "count", strconv.Itoa(n)}
		default:
			cmd := []string{"zmscore", k()}
			for range min(n, 300) {
				cmd = append(cmd, "m"+strconv.Itoa(rng.IntN(2*n)))
			}
			return cmd
		}
	}
	for range 60 {
		cmds = cmds[:0]
		a.expect(okReply, "multi")
		for range 1 + rng.IntN(6) {
			cmd := gen()
			cmds = append(cmds, cmd)
			a.do(cmd...)
		}
		a.do("exec")
	}
}

// TestZPopRefusedChangesNothing: a pop whose reply the budget cannot hold
// is refused before it takes any member.
func TestZPopRefusedChangesNothing(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	long := strings.Repeat("x", 1000)
	for i := range 200 {
		a.do("zadd", "z", strconv.Itoa(i), long+strconv.Itoa(i))
	}
	maxOutputTotal = outputHeld + inputHeld + 50_000
	if got := a.do("zpopmin", "z", "200"); !strings.HasPrefix(got, "-ERR response is too big") {
		t.Fatalf("ZPOPMIN z 200 = %.60q, want the reply refused", got)
	}
	if got := a.do("zcard", "z"); got != ":200\r\n" {
		t.Fatalf("after the refused pop, ZCARD = %q, want 200", got)
	}
}
