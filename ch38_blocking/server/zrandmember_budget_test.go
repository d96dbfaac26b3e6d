package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestZRandMemberRanksInBudget: distinct picks drawn without a list of
// the set hold their ranks (a list and a map of them) while they are
// drawn, in the clients' budget: with room for the reply but not for the
// ranks, the request is refused, and once it is done the budget holds
// nothing more than before.
func TestZRandMemberRanksInBudget(t *testing.T) {
	resetData(t)
	const n, picks = 80_000, 9_000 // under n/kRandSnapshotShare: no list
	for i := 0; i < n; i += 1000 {
		args := []string{"zadd", "z"}
		for j := i; j < i+1000; j++ {
			args = append(args, "1", fmt.Sprintf("m%05d", j))
		}
		respRun(t, args...)
	}
	before := inputHeld
	if got := respRun(t, "zrandmember", "z", fmt.Sprint(picks)); !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n", picks)) {
		t.Fatalf("ZRANDMEMBER z %d: %.40q", picks, got)
	}
	if inputHeld != before {
		t.Errorf("inputHeld %d after ZRANDMEMBER, %d before", inputHeld, before)
	}
	// Room for the reply (some 15 bytes a member) but not for the ranks.
	saved := maxOutputTotal
	t.Cleanup(func() { maxOutputTotal = saved })
	maxOutputTotal = outputHeld + inputHeld + picks*kRandRankBytes/2
	if got := respRun(t, "zrandmember", "z", fmt.Sprint(picks)); got != "-"+errReplyMemory+"\r\n" {
		t.Errorf("ZRANDMEMBER z %d with room for %d bytes: %.40q, want it refused", picks, budgetLeft(), got)
	}
}
