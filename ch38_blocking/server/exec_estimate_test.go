package server

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// execWithinEstimate runs n random transactions on a, each of 1 to
// maxCmds commands that gen makes, and fails the test for any command
// (or EXEC's reply) whose work, as the meter charged it while it ran,
// passed what EXEC weighed for it beforehand. It returns how many
// transactions ran and how many EXEC refused (EXECABORT), for the caller
// to check that enough of them ran to mean something.
func execWithinEstimate(t *testing.T, a *txClient, rng *rand.Rand, n, maxCmds int, gen func() []string) (runs, refused int) {
	t.Helper()
	var cmds [][]string // the transaction's, for the errors
	execDone = func(weighed, did []int) {
		runs++
		for i := range weighed {
			if did[i] > weighed[i] {
				what := "its reply"
				if i < len(cmds) {
					what = fmt.Sprintf("%.60q", cmds[i])
				}
				t.Errorf("EXEC: %s did %d units of work, weighed at %d", what, did[i], weighed[i])
			}
		}
	}
	defer func() { execDone = nil }()
	for range n {
		a.do("MULTI")
		cmds = cmds[:0]
		for range 1 + rng.Intn(maxCmds) {
			cmds = append(cmds, gen())
			a.do(cmds[len(cmds)-1]...)
		}
		if got := a.do("EXEC"); strings.HasPrefix(got, "-EXECABORT") {
			refused++
		}
	}
	return runs, refused
}
