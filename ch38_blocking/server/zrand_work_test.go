package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestZRandMemberWorkRefused: a ZRANDMEMBER whose picks could do more work
// than a transaction may (kMaxExecWork) is refused before any pick, with
// respWorkRefusal, though the budget has room for its reply: repeats from
// a list of a small set, seeks into a large one, distinct seeks. Nothing
// is built (the budget holds what it held) and the refusal costs a few
// units. Counts within the bound are answered, their work as zRandWork
// weighs it; a count of the whole set walks it once, without a list.
func TestZRandMemberWorkRefused(t *testing.T) {
	resetData(t)
	respRun(t, "ZADD", "one", "1", "m")
	const n = 400_000
	for i := 0; i < n; i += 1000 {
		args := []string{"ZADD", "z"}
		for j := i; j < i+1000; j++ {
			args = append(args, strconv.Itoa(j), fmt.Sprintf("m%06d", j))
		}
		respRun(t, args...)
	}
	refused := func(args ...string) {
		t.Helper()
		held, before := outputHeld+inputHeld, workDone
		got := respRun(t, args...)
		if did := workDone - before; !strings.HasPrefix(got, "-ERR this command could do ") || did > 100 {
			t.Errorf("%q: %.80q after %d units of work, want the work refusal before any pick", args, got, did)
		}
		if outputHeld+inputHeld != held {
			t.Errorf("%q: the budget holds %d bytes, %d before", args, outputHeld+inputHeld, held)
		}
	}
	answered := func(want int, args ...string) {
		t.Helper()
		before := workDone
		got := respRun(t, args...)
		if !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n", want)) {
			t.Fatalf("%q: %.40q, want %d items", args, got, want)
		}
		// The work weighed, the arguments and the reply's bytes.
		count, _ := strconv.ParseInt(args[2], 10, 64)
		bound := zRandWork(int64(lookupEntry(args[1]).obj.zset.Len()), count) + int64(len(args)+(argBytes(toBytes(args))+len(got))/kWorkBytes) + 10
		if did := workDone - before; int64(did) > bound || did > kMaxExecWork {
			t.Errorf("%q did %d units of work, weighed %d (bound %d)", args, did, bound, kMaxExecWork)
		}
	}
	seeks := n/kRandSnapshotShare - 1 // the most picks that seek
	refused("ZRANDMEMBER", "one", strconv.Itoa(-(kMaxExecWork + 1000)))
	refused("ZRANDMEMBER", "one", strconv.Itoa(-(kMaxExecWork + 1000)), "WITHSCORES")
	refused("ZRANDMEMBER", "one", "-76695854")
	refused("ZRANDMEMBER", "z", strconv.Itoa(-seeks))
	refused("ZRANDMEMBER", "z", strconv.Itoa(seeks))
	refused("ZRANDMEMBER", "z", "-50000000")

	answered(kMaxExecWork/2, "ZRANDMEMBER", "one", strconv.Itoa(-kMaxExecWork/2))
	answered(60_000, "ZRANDMEMBER", "z", "-30000", "WITHSCORES") // RESP2: a member, then its score
	answered(30_000, "ZRANDMEMBER", "z", "30000")
	answered(n-1, "ZRANDMEMBER", "z", strconv.Itoa(n-1))
	answered(n, "ZRANDMEMBER", "z", strconv.Itoa(n))
	answered(n, "ZRANDMEMBER", "z", "1000000000")
}
