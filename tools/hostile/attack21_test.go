package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The append-only file against a client who read its rules (ch21): a
// command logged as its effect writes one record for each expiry time it
// leaves, each record carrying the key. Under a long key, a request
// naming many fields must not log a record a field. The attacks: HSETEX
// with a TTL (a record a field, before), and HPEXPIRE NX on fields that
// keep TTLs of their own, a millisecond apart (a record for each, before:
// only the field the command changed must be logged), and HSETEX KEEPTTL
// on those fields (a record for each, before). Each honest twin
// is HSET, or HPEXPIRE, of the same fields under a key of the same
// length, logged as about its own size. The verdict is the log's bytes:
// the attack grows it at most 3x what the twin does. The server's CPU and
// a bystander's worst PING are reported.

// TestAttack21FieldRecords: see above.
func TestAttack21FieldRecords(t *testing.T) {
	eachChapter(t, aofChapters(), testAttack21FieldRecords)
}

func testAttack21FieldRecords(t *testing.T, ch string) {
	srv := startAOF(t, ch)
	c := srv.c
	const fields, rounds, keyLen = 1000, 10, 1000
	names := fieldNames(fields)
	key := func(prefix string) string { return prefix + strings.Repeat("k", keyLen-len(prefix)) }
	pairs := func() []string {
		var a []string
		for _, n := range names {
			a = append(a, n, "")
		}
		return a
	}
	// grow sends rounds of the requests reqs, each answered with one reply.
	grow := func(what string, reqs [][]string) growth {
		return srv.logGrowth(what, rounds, reqs, func(got string) bool { return !strings.HasPrefix(got, "-") })
	}
	report := func(what string, attack, twin growth) {
		t.Helper()
		reportGrowth(t, fmt.Sprintf("%s, %d rounds of %d fields under a %d-byte key", what, rounds, fields, keyLen), attack,
			"twin", twin, "a record a field")
	}

	// HSETEX PX against HSET of the same fields.
	hsetex := append([]string{"HSETEX", key("a"), "PX", "600000", "FIELDS", fmt.Sprint(fields)}, pairs()...)
	attack := grow("HSETEX PX", [][]string{hsetex})
	twin := grow("HSET", [][]string{append([]string{"HSET", key("b")}, pairs()...)})
	report("HSETEX PX", attack, twin)

	// HPEXPIRE NX on fields with TTLs of their own but f0, against
	// HPEXPIRE giving all the fields one. Each round first takes f0's
	// TTL.
	at := time.Now().Add(time.Hour).UnixMilli()
	var setup strings.Builder
	for i, n := range names {
		setup.WriteString(respCmd("HPEXPIREAT", key("a"), fmt.Sprint(at+int64(i)), "FIELDS", "1", n))
	}
	c.conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := c.conn.Write([]byte(setup.String())); err != nil {
		t.Fatal(err)
	}
	for range names {
		if got := skipReply(t, c.r); got != "*1" {
			t.Fatalf("HPEXPIREAT: %q", got)
		}
	}
	fieldsArgs := append([]string{"FIELDS", fmt.Sprint(fields)}, names...)
	attack = grow("HPEXPIRE NX", [][]string{
		{"HPERSIST", key("a"), "FIELDS", "1", "f0"},
		append([]string{"HPEXPIRE", key("a"), "600000", "NX"}, fieldsArgs...),
	})
	twin = grow("HPEXPIRE", [][]string{
		{"HPERSIST", key("b"), "FIELDS", "1", "f0"},
		append([]string{"HPEXPIRE", key("b"), "600000"}, fieldsArgs...),
	})
	report("HPEXPIRE NX", attack, twin)

	// HSETEX KEEPTTL on those fields, which keep their TTLs, against
	// HSETEX KEEPTTL of fields without.
	keep := func(k string) []string {
		return append([]string{"HSETEX", k, "KEEPTTL", "FIELDS", fmt.Sprint(fields)}, pairs()...)
	}
	attack = grow("HSETEX KEEPTTL", [][]string{keep(key("a"))})
	twin = grow("HSETEX KEEPTTL", [][]string{keep(key("c"))})
	report("HSETEX KEEPTTL", attack, twin)
}
