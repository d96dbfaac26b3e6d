package server

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch24_redis_commands/proto"
)

// TestRESPExpireFar: a TTL past the monotonic timers' reach (2^63
// microseconds) is kept from now, as Redis keeps any expiry that fits in
// an int64 of milliseconds, and PTTL answers the time left; one that would
// pass int64 once added to now is refused with Redis's error.
func TestRESPExpireFar(t *testing.T) {
	resetData(t)
	respRun(t, "SET", "k", "v")
	for cmd, want := range map[string]string{
		"PEXPIRE k 9223372036854775807": "-ERR invalid expire time in 'pexpire' command\r\n",
		"EXPIRE k 9223372036854775":     "-ERR invalid expire time in 'expire' command\r\n",
		"PTTL k":                        ":-1\r\n",
	} {
		if got := respRun(t, strings.Fields(cmd)...); got != want {
			t.Errorf("%s = %q, want %q", cmd, got, want)
		}
	}
	const ttl = 9223370000000000000
	respRun(t, "PEXPIRE", "k", strconv.Itoa(ttl))
	got := respRun(t, "PTTL", "k")
	n, err := strconv.ParseInt(strings.Trim(got, ":\r\n"), 10, 64)
	if err != nil || n > ttl || n < ttl-60_000 {
		t.Errorf("PTTL after PEXPIRE k %d: %q", ttl, got)
	}
	// The far timer sorts after a near one, and never falls due.
	respRun(t, "SET", "soon", "v")
	entrySetTTL(lookupEntry([]byte("soon")), 0) // due at once, not yet deleted
	if root := gData.heap[0]; root.Owner.key() != "soon" {
		t.Fatalf("heap root is %q, want the nearest timer's key", root.Owner.key())
	}
	processTimers()
	if got := respRun(t, "EXISTS", "k", "soon"); got != ":1\r\n" {
		t.Errorf("EXISTS k soon after the timers ran: %q, want the far key only", got)
	}
}

// TestBookPexpireFar: the book's pexpire of a TTL past the monotonic
// timers' reach keeps it, up to the last int64 millisecond, and pttl
// answers the time left.
func TestBookPexpireFar(t *testing.T) {
	resetData(t)
	run("set", "k", "v")
	before := int64(getUnixMs())
	run("pexpire", "k", "9223372036854775807")
	got := run("pttl", "k")
	after := int64(getUnixMs())
	ok := false
	for v := math.MaxInt64 - after; v <= math.MaxInt64-before; v++ {
		ok = ok || got == string(proto.OutInt(nil, v))
	}
	if !ok {
		t.Errorf("pttl: %q, want within [%d, %d]", got, int64(math.MaxInt64)-after, int64(math.MaxInt64)-before)
	}
}
