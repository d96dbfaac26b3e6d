package hostile

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Chapter 20's set algebra, pops and random members, each against its
// honest twin of the same size. A union of two big sets stored at a key
// inserts as many members as a ZADD of the result would (its twin); a
// ZRANDMEMBER with a negative count of the set's size replies as many
// members as a ZRANGE of the whole set, each found by a seek or from a
// list rather than by a walk; a pop is a removal, as a ZREM of as many
// members is; a ZSCAN with a huge COUNT is bounded as
// SCAN's is; a ZRANDMEMBER asking for 10^12 members is refused before any
// work, as is a ZPOPMIN whose reply the clients' memory cannot hold. The
// test logs each one's server CPU and a bystander's worst PING, and
// asserts the replies: sizes, counts and that a refusal changed nothing.

// TestZAlgebraAttacks20: see above.
func TestZAlgebraAttacks20(t *testing.T) {
	eachChapter(t, zsets20Chapters, testZAlgebraAttacks20)
}

func testZAlgebraAttacks20(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const n = 200_000
	// fill puts n members in key, named prefix0..., in requests of 5,000.
	fill := func(key, prefix string, n int) {
		for i := 0; i < n; i += 5000 {
			args := []string{"ZADD", key}
			for j := i; j < min(i+5000, n); j++ {
				args = append(args, strconv.Itoa(j%977), prefix+strconv.Itoa(j))
			}
			if got := c.do(bigLoadGuard, args...); !strings.HasPrefix(got, ":") {
				t.Fatalf("ZADD: %q", got)
			}
		}
	}
	fill("a", "m", n)
	fill("b", "m", n/2) // half shared with a
	fill("b2", "x", n/2)
	// run sends a request and reads its whole reply, measured.
	run := func(what string, args ...string) (string, figures) {
		t.Helper()
		return measureCmd(t, p, addr, c, bigLoadGuard, what, args...)
	}
	expect := func(want, got, what string) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: %q, want %q", what, got, want)
		}
	}

	// A union stored: 75,000 members, against a ZADD of 75,000 members.
	got, union := run("ZUNIONSTORE", "ZUNIONSTORE", "u", "3", "a", "b", "b2", "WEIGHTS", "1", "2", "3")
	expect(fmt.Sprintf(":%d", n+n/2), got, "ZUNIONSTORE u 3 a b b2")
	args := []string{"ZADD", "t"}
	for j := range n + n/2 {
		args = append(args, strconv.Itoa(j%977), "y"+strconv.Itoa(j))
	}
	got, twin := run("ZADD", args...)
	expect(fmt.Sprintf(":%d", n+n/2), got, "the twin ZADD")
	logTwin(t, fmt.Sprintf("ZUNIONSTORE of %d members", n+n/2), union, "ZADD of as many", twin)

	// An intersection replied, against a ZRANGE of as many members.
	got, inter := run("ZINTER", "ZINTER", "2", "a", "b", "WITHSCORES")
	expect(fmt.Sprintf("*%d", n), got, "ZINTER 2 a b WITHSCORES")
	got, twin = run("ZRANGE", "ZRANGE", "b", "0", "-1", "WITHSCORES")
	expect(fmt.Sprintf("*%d", n), got, "ZRANGE b 0 -1 WITHSCORES")
	logTwin(t, fmt.Sprintf("ZINTER of %d members", n/2), inter, "ZRANGE of as many", twin)

	// Random members with repeats: one seek each, or a list first.
	got, rnd := run("ZRANDMEMBER", "ZRANDMEMBER", "a", strconv.Itoa(-n))
	expect(fmt.Sprintf("*%d", n), got, "ZRANDMEMBER a -n")
	got, twin = run("ZRANGE", "ZRANGE", "a", "0", "-1")
	expect(fmt.Sprintf("*%d", n), got, "ZRANGE a 0 -1")
	logTwin(t, fmt.Sprintf("ZRANDMEMBER a -%d", n), rnd, "ZRANGE of as many", twin)

	// A count no reply can hold is refused before any work.
	got, huge := run("ZRANDMEMBER", "ZRANDMEMBER", "a", "-1000000000000")
	expect("-ERR response is too big for the server's memory for replies now (-max-output-mb): try again later", got, "ZRANDMEMBER a -10^12")
	t.Logf("ZRANDMEMBER a -10^12: %s; server CPU %v, bystander's worst PING %v", got, huge.cpu.Round(time.Millisecond), huge.worst.Round(time.Millisecond))

	// ZSCAN with a huge COUNT: one call's walk is bounded.
	got, scan := run("ZSCAN", "ZSCAN", "a", "0", "COUNT", "1000000000")
	expect("*2", got, "ZSCAN a 0 COUNT 10^9")
	got, twin = run("ZRANGE", "ZRANGE", "a", "0", "16383", "WITHSCORES")
	expect("*32768", got, "ZRANGE a 0 16383 WITHSCORES")
	logTwin(t, "ZSCAN a 0 COUNT 10^9", scan, "ZRANGE of 16,384 members", twin)

	// Pops: each a removal, as a ZREM of as many members is.
	got, pop := run("ZPOPMIN", "ZPOPMIN", "a", strconv.Itoa(n/2))
	expect(fmt.Sprintf("*%d", n), got, "ZPOPMIN a n/2")
	args = []string{"ZREM", "b2"}
	for j := range n / 2 {
		args = append(args, "x"+strconv.Itoa(j))
	}
	got, twin = run("ZREM", args...)
	expect(fmt.Sprintf(":%d", n/2), got, "the twin ZREM")
	logTwin(t, fmt.Sprintf("ZPOPMIN a %d", n/2), pop, "ZREM of as many", twin)
	expect(fmt.Sprintf(":%d", n/2), c.do(bigLoadGuard, "ZCARD", "a"), "ZCARD a after the pop")
}
