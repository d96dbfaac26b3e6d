package server

import (
	"strconv"
	"testing"
	"time"
)

// TestHRandFieldReclaimBounded: HRANDFIELD on a hash of one live field and
// 40,000 that expired together reclaims at most kHRandReclaim of them per
// call, and refuses while some are left; the third call finds none left
// and picks the live field. Before the bound, the first call reclaimed
// all 40,000 (a million took 400 ms, in one request).
func TestHRandFieldReclaimBounded(t *testing.T) {
	resetData(t)
	const expiring = 40_000
	if got := respRun(t, "HSET", "h", "live", "v"); got != ":1\r\n" {
		t.Fatalf("HSET: %q", got)
	}
	ent, _ := hashForWrite("h")
	now := getUnixMs()
	for i := range expiring {
		ent.obj.hash.SetExpireAt(now, "f"+strconv.Itoa(i), "v", now+1)
	}
	hashTimerUpdate(ent)
	time.Sleep(3 * time.Millisecond) // every one of them expires
	for i, args := range [][]string{{"HRANDFIELD", "h"}, {"HRANDFIELD", "h", "-5"}, {"HRANDFIELD", "h", "3", "WITHVALUES"}} {
		before := workDone
		got := respRun(t, args...)
		did := workDone - before
		if did > kHRandReclaim*kMemberWork+1000 {
			t.Errorf("%q did %d units of work, more than reclaiming %d fields", args, did, kHRandReclaim)
		}
		left := expiring - (i+1)*kHRandReclaim
		if left > 0 {
			if got != "-"+errHRandReclaim+"\r\n" {
				t.Errorf("%q with %d expired fields left: %q, want the refusal", args, left, got)
			}
			continue
		}
		if want := "*2\r\n$4\r\nlive\r\n$1\r\nv\r\n"; got != want {
			t.Errorf("%q once every expired field is reclaimed: %q, want %q", args, got, want)
		}
	}
	if n := ent.obj.hash.StoredLen(); n != 1 {
		t.Errorf("%d fields stored after the reclaims, want 1", n)
	}
}
