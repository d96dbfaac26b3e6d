package server

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/proto"
)

// TestRESPExpireNearInt64Max: every absolute expiry Redis takes, up to
// the last int64 millisecond, is kept as given and read back exactly by
// PEXPIRETIME (EXPIRETIME rounded, without overflowing), while a relative
// one that passes int64 once added to now, or seconds that do not fit in
// milliseconds, are refused with Redis's error and change nothing.
func TestRESPExpireNearInt64Max(t *testing.T) {
	resetData(t)
	respSteps(t,
		"SET k v PXAT 9223372036854775807 => +OK|",
		"PEXPIRETIME k => :9223372036854775807|",
		"EXPIRETIME k => :9223372036854776|",
		"SET k w KEEPTTL => +OK|",
		"PEXPIRETIME k => :9223372036854775807|",
		"SET k v EXAT 9223372036854775 => +OK|",
		"PEXPIRETIME k => :9223372036854775000|",
		"EXPIRETIME k => :9223372036854775|",
		"SET k v EXAT 9223372036854776 => -ERR invalid expire time in 'set' command|",
		"SET k v PX 9223372036854775807 => -ERR invalid expire time in 'set' command|",
		"SET k v EX 9223372036854775 => -ERR invalid expire time in 'set' command|",
		"SETEX k 9223372036854775 v => -ERR invalid expire time in 'setex' command|",
		"PSETEX k 9223372036854775807 v => -ERR invalid expire time in 'psetex' command|",
		"GET k => $1|v|",
		"PEXPIRETIME k => :9223372036854775000|",
		"GETEX k PXAT 9223372036854775806 => $1|v|",
		"PEXPIRETIME k => :9223372036854775806|",
		"GETEX k EXAT 9223372036854776 => -ERR invalid expire time in 'getex' command|",
		"GETEX k PX 9223372036854775807 => -ERR invalid expire time in 'getex' command|",
		"GETEX k EX 9223372036854775 => -ERR invalid expire time in 'getex' command|",
		"EXPIRE k 9223372036854775807 => -ERR invalid expire time in 'expire' command|",
		"EXPIRE k 9223372036854775 => -ERR invalid expire time in 'expire' command|",
		"PEXPIRE k 9223372036854775807 => -ERR invalid expire time in 'pexpire' command|",
		"EXPIREAT k 9223372036854776 => -ERR invalid expire time in 'expireat' command|",
		"PEXPIRETIME k => :9223372036854775806|",
		"PEXPIREAT k 9223372036854775807 GT => :1|",
		"PEXPIREAT k 9223372036854775806 GT => :0|",
		"PEXPIREAT k 9223372036854775806 LT => :1|",
		"PEXPIRETIME k => :9223372036854775806|",
		"EXPIREAT k 9223372036854775 => :1|",
		"PEXPIRETIME k => :9223372036854775000|",
	)
	// Both sides of where the timers change form (kFarTimer) read back
	// to the millisecond.
	edge := int64((kFarTimer + uint64(keyClockOriginUs)) / 1000)
	for _, at := range []int64{edge - 1, edge, edge + 1, 4000000000999} {
		s := strconv.FormatInt(at, 10)
		respRun(t, "PEXPIREAT", "k", s)
		if got := respRun(t, "PEXPIRETIME", "k"); got != ":"+s+"\r\n" {
			t.Errorf("PEXPIREAT k %s: PEXPIRETIME answers %q", s, got)
		}
	}
	// PTTL and TTL are the time left, rounded as Redis does.
	respRun(t, "SET", "k", "v", "PXAT", "9223372036854775807")
	before := keyNowMs()
	pttl := respInt64(t, "PTTL", "k")
	ttl := respInt64(t, "TTL", "k")
	after := keyNowMs()
	if pttl > math.MaxInt64-before || pttl < math.MaxInt64-after {
		t.Errorf("PTTL: %d, want within [%d, %d]", pttl, math.MaxInt64-after, math.MaxInt64-before)
	}
	if lo, hi := (math.MaxInt64-after)/1000, (math.MaxInt64-before)/1000+1; ttl < lo || ttl > hi {
		t.Errorf("TTL: %d, want within [%d, %d]", ttl, lo, hi)
	}
	// A relative time that fits is kept from now, however far.
	before = keyNowMs()
	respRun(t, "PEXPIRE", "k", "9223370000000000000")
	at := respInt64(t, "PEXPIRETIME", "k")
	if after = keyNowMs(); at < before+9223370000000000000 || at > after+9223370000000000000 {
		t.Errorf("PEXPIRE 9223370000000000000: PEXPIRETIME %d, want within [%d, %d]", at, before+9223370000000000000, after+9223370000000000000)
	}
}

// TestFarTimersNeverFire: keys that expire past the monotonic timers'
// reach sort after every nearer one, so a near key still expires first
// and the far ones stay, whatever their order.
func TestFarTimersNeverFire(t *testing.T) {
	resetData(t)
	for _, at := range []string{"9223372036854775807", "9300000000000000", "9223372036854775000"} {
		respRun(t, "SET", "far"+at, "v", "PXAT", at)
	}
	respRun(t, "SET", "near", "v")
	respRun(t, "PEXPIRE", "near", "0") // due at once: deleted
	respRun(t, "SET", "soon", "v")
	entrySetTTL(lookupEntry([]byte("soon")), 0)
	if root := gData.heap[0]; root.Owner.key() != "soon" {
		t.Fatalf("heap root is %q, want the nearest timer's key", root.Owner.key())
	}
	processTimers()
	if got := respRun(t, "DBSIZE"); got != ":3\r\n" {
		t.Errorf("DBSIZE after the timers ran: %q, want the 3 far keys", got)
	}
	if got := respRun(t, "PEXPIRETIME", "far9300000000000000"); got != ":9300000000000000\r\n" {
		t.Errorf("PEXPIRETIME: %q", got)
	}
}

// TestBookPexpireFar: the book's pexpire of a TTL past the monotonic
// timers' reach keeps it from now, up to the last int64 millisecond, and
// its pttl answers the time left.
func TestBookPexpireFar(t *testing.T) {
	resetData(t)
	run("set", "k", "v")
	before := keyNowMs()
	run("pexpire", "k", "9223372036854775807")
	if got := respInt64(t, "PEXPIRETIME", "k"); got != math.MaxInt64 {
		t.Errorf("PEXPIRETIME after pexpire k 9223372036854775807: %d", got)
	}
	got := run("pttl", "k")
	after := keyNowMs()
	var n int64
	for v := math.MaxInt64 - after; v <= math.MaxInt64-before; v++ {
		if got == string(proto.OutInt(nil, v)) {
			n = v
		}
	}
	if n == 0 {
		t.Errorf("pttl: %q, want within [%d, %d]", got, math.MaxInt64-after, math.MaxInt64-before)
	}
}

// respInt64 runs a RESP command that answers an integer and returns it.
func respInt64(t *testing.T, args ...string) int64 {
	t.Helper()
	got := respRun(t, args...)
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(got, ":"), "\r\n"), 10, 64)
	if err != nil {
		t.Fatalf("%s: %q", strings.Join(args, " "), got)
	}
	return n
}
