package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestHRandFieldWorkRefused: an HRANDFIELD whose picks could do more work
// than a transaction may (kMaxExecWork) is refused before it picks, with
// respWorkRefusal, whatever room the budget has for its reply: a negative
// count on a one-field hash, and a positive one on a hash so large that
// taking it all passes the bound. Nothing is built or changed, and the
// refusal costs a few units. A count within the bound is answered whole,
// its work within the bound.
func TestHRandFieldWorkRefused(t *testing.T) {
	resetData(t)
	respRun(t, "HSET", "one", "f", "v")
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
	// Three units a pick: a third of the bound and some more is past it,
	// in a reply of some 3.5 MiB, which the budget holds.
	over := strconv.Itoa(-(kMaxExecWork/kVisitWork + 1000))
	refused("HRANDFIELD", "one", over)
	refused("HRANDFIELD", "one", over, "WITHVALUES")
	refused("HRANDFIELD", "one", "-76695854")

	const fits = 500_000
	before := workDone
	if got := respRun(t, "HRANDFIELD", "one", strconv.Itoa(-fits)); !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n$1\r\nf\r\n", fits)) {
		t.Fatalf("HRANDFIELD one -%d: %.40q", fits, got)
	}
	if did := workDone - before; did < fits*kVisitWork || did > kMaxExecWork {
		t.Errorf("HRANDFIELD one -%d did %d units of work, want %d to %d", fits, did, fits*kVisitWork, kMaxExecWork)
	}

	// A hash of more fields than the bound lets one request take: a count
	// of all of them is refused, a third of them answered.
	size := kMaxExecWork/kVisitWork + 1000
	ent, _ := hashForWrite("big")
	for i := range size {
		ent.obj.hash.Set(getUnixMs(), "f"+strconv.Itoa(i), "v")
	}
	refused("HRANDFIELD", "big", strconv.Itoa(size))
	refused("HRANDFIELD", "big", "-"+strconv.Itoa(size))
	if n := lookupEntry("big").obj.hash.StoredLen(); n != size {
		t.Fatalf("the hash holds %d fields after the refusals, want %d", n, size)
	}
	before = workDone
	third := strconv.Itoa(size / 3)
	if got := respRun(t, "HRANDFIELD", "big", third); !strings.HasPrefix(got, "*"+third+"\r\n") {
		t.Fatalf("HRANDFIELD big %s: %.40q", third, got)
	}
	if did := workDone - before; did > kMaxExecWork {
		t.Errorf("HRANDFIELD big %s did %d units of work, more than %d", third, did, kMaxExecWork)
	}
}
