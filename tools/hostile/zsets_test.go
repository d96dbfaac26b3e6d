package hostile

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The sorted-set commands chapters 31 (ranges and pops) and 30 (the set
// algebra, random members, ZSCAN) added, attacked where their work is not in their
// request's size, each attack beside its honest twin of the same size.
// Each group below says what its tests share.

// ZUNION, ZINTER and ZDIFF that reply: the result is listed, not kept, so
// it should cost about what listing as many members does, plus the
// lookups an intersection or a difference needs (its twin there is a
// ZMSCORE of the members looked up). A reply that built a whole sorted set
// (tree nodes and hash table entries) to walk it once paid many times a
// ZRANGE's CPU. Over sets of hundreds of thousands they are refused
// before they run, as their weighed work passes what one request may do;
// the twins are compared at a size within that bound.
//
// ZRANDMEMBER with a negative count: each pick lands anywhere in the set,
// so every one is a cache miss where a ZRANGE walks members in the order
// they were made; its twins are ZRANDMEMBER with a positive count of the
// same size, which picks as randomly, and a ZRANGE of as many. Below
// kRandSnapshotShare's share of the set each pick is a seek down the
// tree, whose twin is a ZMSCORE of as many members: a lookup each. The
// figures swing with the garbage collector, which runs in whichever
// command crosses its threshold, so each command runs three times and
// reports its least CPU.
//
// The verdicts are the replies' sizes; CPU and a bystander's worst PING
// are reported.

// TestZSetReplyAttacks: see above.
func TestZSetReplyAttacks(t *testing.T) {
	eachChapter(t, zalgebraChapters, testZSetReplyAttacks)
}

func testZSetReplyAttacks(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const n = 200_000
	loadPair(t, c, "a", "b", n)
	run := leastCPURunner(t, p, addr, c, bigLoadGuard)

	// Over sets this big the algebra is refused before it runs: its
	// weighed work passes what one request may do (kMaxExecWork).
	for _, args := range [][]string{{"ZUNION", "2", "a", "b", "WITHSCORES"}, {"ZINTER", "2", "a", "b"}, {"ZDIFF", "2", "a", "b"}} {
		if got := c.do(bigLoadGuard, args...); !strings.HasPrefix(got, "-ERR this command could do ") {
			t.Fatalf("%q over %d and %d members: %.80q, want the refusal of its work", args, n, n/2, got)
		}
	}
	// Within the bound, each against its twins.
	const m = 10_000
	loadPair(t, c, "sa", "sb", m)
	// The members of sb, for ZMSCORE: the lookups an intersection does.
	bMembers := []string{"ZMSCORE", "sa"}
	for j := 0; j < m; j += 2 {
		bMembers = append(bMembers, "m"+strconv.Itoa(j))
	}

	rangeA := run(fmt.Sprintf("*%d", 2*m), "ZRANGE", "sa", "0", "-1", "WITHSCORES")
	union := run(fmt.Sprintf("*%d", 2*m), "ZUNION", "2", "sa", "sb", "WITHSCORES")
	logTwin(t, fmt.Sprintf("ZUNION of %d members", m), union, "ZRANGE of as many", rangeA)

	rangeB := run(fmt.Sprintf("*%d", m), "ZRANGE", "sb", "0", "-1", "WITHSCORES")
	mscore := run(fmt.Sprintf("*%d", m/2), bMembers...)
	inter := run(fmt.Sprintf("*%d", m), "ZINTER", "2", "sa", "sb", "WITHSCORES")
	logTwin(t, fmt.Sprintf("ZINTER of %d members", m/2), inter, "ZRANGE of as many", rangeB)
	logTwin(t, fmt.Sprintf("ZINTER of %d members", m/2), inter, "ZMSCORE of as many", mscore)

	// A difference walks all of sa and looks each member up in sb.
	aMembers := []string{"ZMSCORE", "sb"}
	for j := range m {
		aMembers = append(aMembers, "m"+strconv.Itoa(j))
	}
	rangeHalf := run(fmt.Sprintf("*%d", m/2), "ZRANGE", "sa", "0", strconv.Itoa(m/2-1))
	mscoreA := run(fmt.Sprintf("*%d", m), aMembers...)
	diff := run(fmt.Sprintf("*%d", m/2), "ZDIFF", "2", "sa", "sb")
	logTwin(t, fmt.Sprintf("ZDIFF of %d members (from %d)", m/2, m), diff, "ZRANGE of as many", rangeHalf)
	logTwin(t, fmt.Sprintf("ZDIFF of %d members (from %d)", m/2, m), diff, fmt.Sprintf("ZMSCORE of %d members", m), mscoreA)

	// Random members of the big set: within the bound at this size.
	aMembers = []string{"ZMSCORE", "b"}
	for j := range n {
		aMembers = append(aMembers, "m"+strconv.Itoa(j))
	}
	rangeAll := run(fmt.Sprintf("*%d", n), "ZRANGE", "a", "0", "-1")
	neg := run(fmt.Sprintf("*%d", n), "ZRANDMEMBER", "a", strconv.Itoa(-n))
	pos := run(fmt.Sprintf("*%d", n-1), "ZRANDMEMBER", "a", strconv.Itoa(n-1))
	logTwin(t, fmt.Sprintf("ZRANDMEMBER a -%d", n), neg, "ZRANDMEMBER a "+strconv.Itoa(n-1), pos)
	logTwin(t, fmt.Sprintf("ZRANDMEMBER a -%d", n), neg, "ZRANGE of as many", rangeAll)

	// Just under the count at which the picks come from a list of the
	// set, each pick is a seek down the tree: O(log n) nodes, each likely
	// a cache miss, where a ZRANGE steps to the next member.
	k := n/8 - 1
	rangeK := run(fmt.Sprintf("*%d", k), "ZRANGE", "a", "0", strconv.Itoa(k-1))
	seeks := run(fmt.Sprintf("*%d", k), "ZRANDMEMBER", "a", strconv.Itoa(-k))
	listed := run(fmt.Sprintf("*%d", k+1), "ZRANDMEMBER", "a", strconv.Itoa(-k-1))
	logTwin(t, fmt.Sprintf("ZRANDMEMBER a -%d (seeks)", k), seeks, "ZRANGE of as many", rangeK)
	logTwin(t, fmt.Sprintf("ZRANDMEMBER a -%d (seeks)", k), seeks, fmt.Sprintf("ZRANDMEMBER a -%d, from a list", k+1), listed)
	mscoreK := run(fmt.Sprintf("*%d", k), aMembers[:2+k]...)
	logTwin(t, fmt.Sprintf("ZRANDMEMBER a -%d (seeks)", k), seeks, "ZMSCORE of as many", mscoreK)
}

// loadPair fills the sorted sets ka with n members and kb with every other
// one of them, each scored so that their orders differ.
func loadPair(t *testing.T, c *respConn, ka, kb string, n int) {
	t.Helper()
	var reqs strings.Builder
	for i := 0; i < n; i += 5000 {
		a, b := []string{"ZADD", ka}, []string{"ZADD", kb}
		for j := i; j < min(i+5000, n); j++ {
			a = append(a, strconv.Itoa(j%977), "m"+strconv.Itoa(j))
			if j%2 == 0 { // kb holds every other member of ka
				b = append(b, strconv.Itoa(j%89), "m"+strconv.Itoa(j))
			}
		}
		reqs.WriteString(respCmd(a...) + respCmd(b...))
	}
	c.sendPipelined(t, "ZADD", reqs.String(), 2*((n+4999)/5000), ":", bigLoadGuard)
}

// TestZSetTiedNames: an intersection whose members all end up with the
// same score, from inputs that order them differently, is sorted by name;
// names that share a long prefix make every comparison cost that prefix.
// Its twin is a ZRANGE of the same members.
func TestZSetTiedNames(t *testing.T) {
	eachChapter(t, zalgebraChapters, testZSetTiedNames)
}

func testZSetTiedNames(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const n, prefix = 15_000, 1000 // the most an intersection's bound lets two sets have
	pre := strings.Repeat("p", prefix)
	var reqs strings.Builder
	for i := 0; i < n; i += 1000 {
		a, b := []string{"ZADD", "a"}, []string{"ZADD", "b"}
		for j := i; j < i+1000; j++ {
			// a orders the members by a scrambled score, b by its
			// opposite: every sum is 0, and a's order is not the names'.
			s := strconv.Itoa((j * 7919) % n)
			a = append(a, s, pre+strconv.Itoa(j))
			b = append(b, "-"+s, pre+strconv.Itoa(j))
		}
		reqs.WriteString(respCmd(a...) + respCmd(b...))
	}
	c.sendPipelined(t, "ZADD", reqs.String(), 2*n/1000, ":", bigLoadGuard)
	run := leastCPURunner(t, p, addr, c, bigLoadGuard)
	twin := run(fmt.Sprintf("*%d", n), "ZRANGE", "a", "0", "-1")
	inter := run(fmt.Sprintf("*%d", n), "ZINTER", "2", "a", "b")
	logTwin(t, fmt.Sprintf("ZINTER of %d members named by a %d-byte prefix, all scored 0", n, prefix), inter, "ZRANGE of as many", twin)
}

// Chapter 32's set algebra, pops and random members, each against its
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

// TestZAlgebraAttacks: see above.
func TestZAlgebraAttacks(t *testing.T) {
	eachChapter(t, zalgebraChapters, testZAlgebraAttacks)
}

func testZAlgebraAttacks(t *testing.T, ch string) {
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

	// Over sets this big a union stored and an intersection are refused
	// before they run: their weighed work passes what one request may do.
	for _, args := range [][]string{{"ZUNIONSTORE", "u", "3", "a", "b", "b2", "WEIGHTS", "1", "2", "3"}, {"ZINTER", "2", "a", "b", "WITHSCORES"}} {
		if got := c.do(bigLoadGuard, args...); !strings.HasPrefix(got, "-ERR this command could do ") {
			t.Fatalf("%q: %.80q, want the refusal of its work", args, got)
		}
	}
	if got := c.do(bigLoadGuard, "EXISTS", "u"); got != ":0" {
		t.Fatalf("the refused ZUNIONSTORE left its destination: EXISTS u = %q", got)
	}
	// Within the bound: a union stored, against a ZADD of as many members.
	const m = 5000
	fill("sa", "m", m)
	fill("sb", "m", m/2)
	fill("sb2", "x", m/2)
	got, union := run("ZUNIONSTORE", "ZUNIONSTORE", "u", "3", "sa", "sb", "sb2", "WEIGHTS", "1", "2", "3")
	expect(fmt.Sprintf(":%d", m+m/2), got, "ZUNIONSTORE u 3 sa sb sb2")
	args := []string{"ZADD", "t"}
	for j := range m + m/2 {
		args = append(args, strconv.Itoa(j%977), "y"+strconv.Itoa(j))
	}
	got, twin := run("ZADD", args...)
	expect(fmt.Sprintf(":%d", m+m/2), got, "the twin ZADD")
	logTwin(t, fmt.Sprintf("ZUNIONSTORE of %d members", m+m/2), union, "ZADD of as many", twin)

	// An intersection replied, against a ZRANGE of as many members.
	got, inter := run("ZINTER", "ZINTER", "2", "sa", "sb", "WITHSCORES")
	expect(fmt.Sprintf("*%d", m), got, "ZINTER 2 sa sb WITHSCORES")
	got, twin = run("ZRANGE", "ZRANGE", "sb", "0", "-1", "WITHSCORES")
	expect(fmt.Sprintf("*%d", m), got, "ZRANGE sb 0 -1 WITHSCORES")
	logTwin(t, fmt.Sprintf("ZINTER of %d members", m/2), inter, "ZRANGE of as many", twin)

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

// Chapter 31's ranges under attack. Every range is a seek (O(log n)) and a
// walk charged a step at a time, so what a range costs is what it visits;
// two ranges invite more.
//
// ZRANGESTORE of a million members: one command that puts a million
// members into a new set's tree and hash table, 1 to 4 us each, holding
// the event loop for seconds where a reply of the same members is cut to
// what the memory budget holds. The chapter refuses a store (or a removal
// that does not empty its set) of more than kZRangeMaxChange (65,536)
// members before it changes anything, knowing the range's size from its
// ends' ranks in O(log n). The test sends the attack and two honest
// twins: the ZRANGE of the same million members (a reply, which Redis and
// the chapter answer) and the largest store allowed.
//
// A range of names over long members: every step compares a member with
// the range's end, as many bytes as they share, so ends that share a long
// prefix with every member make each step cost a member's length. The
// test pipelines ranges of the same members by such ends and by "-" and
// "+" (no bytes compared), and asserts both answer the same members.
//
// Each reports the server's CPU and a bystander's worst PING; the
// verdicts are the replies.

// TestZRangeStoreMillion: see above.
func TestZRangeStoreMillion(t *testing.T) { eachChapter(t, zrangeChapters, testZRangeStoreMillion) }

func testZRangeStoreMillion(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const members, perZAdd = 1_000_000, 1_000
	var reqs strings.Builder
	for i := 0; i < members; i += perZAdd {
		args := []string{"ZADD", "big"}
		for j := i; j < i+perZAdd; j++ {
			args = append(args, fmt.Sprint(j), fmt.Sprintf("member:%07d", j))
		}
		reqs.WriteString(respCmd(args...))
	}
	c.sendPipelined(t, "ZADD", reqs.String(), members/perZAdd, fmt.Sprintf(":%d", perZAdd), 5*time.Minute)
	run := func(what string, args ...string) (string, figures) {
		got, f := measureCmd(t, p, addr, c, 5*time.Minute, what, args...)
		t.Logf("%s: %.70s, server CPU %v, bystander's worst PING %v", what, got, f.cpu.Round(time.Millisecond), f.worst.Round(time.Millisecond))
		return got, f
	}
	got, _ := run("ZRANGESTORE of 1,000,000 members (the attack)", "ZRANGESTORE", "dst", "big", "0", "-1")
	if !strings.HasPrefix(got, "-ERR the range holds 1000000 members") {
		t.Errorf("ZRANGESTORE of a million members: %q, want it refused", got)
	}
	if got := c.do(time.Minute, "EXISTS", "dst"); got != ":0" {
		t.Errorf("EXISTS dst after the refused ZRANGESTORE: %q, want :0", got)
	}
	if got, _ := run("ZRANGESTORE BYSCORE of 1,000,000 members (the attack)", "ZRANGESTORE", "dst", "big", "-inf", "+inf", "BYSCORE"); !strings.HasPrefix(got, "-ERR the range holds 1000000 members") {
		t.Errorf("ZRANGESTORE BYSCORE of a million members: %q, want it refused", got)
	}
	if got, _ := run("ZRANGE of the same 1,000,000 members (a twin: a reply)", "ZRANGE", "big", "0", "-1"); got != fmt.Sprintf("*%d", members) {
		t.Errorf("ZRANGE of a million members: %q, want *%d", got, members)
	}
	if got, _ := run("ZRANGESTORE of 65,536 members (a twin: the largest store)", "ZRANGESTORE", "dst", "big", "0", "65535"); got != ":65536" {
		t.Errorf("ZRANGESTORE of 65,536 members: %q, want :65536", got)
	}
	if got, _ := run("ZREMRANGEBYRANK of 999,999 members (the attack)", "ZREMRANGEBYRANK", "big", "1", "-1"); !strings.HasPrefix(got, "-ERR the range holds 999999 members") {
		t.Errorf("ZREMRANGEBYRANK of 999,999 members: %q, want it refused", got)
	}
	if got, _ := run("ZREMRANGEBYSCORE of all 1,000,000 members (the key deleted)", "ZREMRANGEBYSCORE", "big", "-inf", "+inf"); got != fmt.Sprintf(":%d", members) {
		t.Errorf("ZREMRANGEBYSCORE of the whole set: %q, want :%d", got, members)
	}
	if got := c.do(time.Minute, "EXISTS", "big"); got != ":0" {
		t.Errorf("EXISTS big after its every member was removed: %q, want :0", got)
	}
}

// TestZRangeLexLongMembers: see above.
func TestZRangeLexLongMembers(t *testing.T) {
	eachChapter(t, zrangeChapters, testZRangeLexLongMembers)
}

func testZRangeLexLongMembers(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const members, length, ranges = 1_000, 16 << 10, 200
	prefix := strings.Repeat("p", length)
	for i := 0; i < members; i += 100 {
		args := []string{"ZADD", "lex"}
		for j := i; j < i+100; j++ {
			args = append(args, "0", fmt.Sprintf("%s%04d", prefix, j))
		}
		c.expectReply(time.Minute, ":100", args...)
	}
	// pipeline sends the ranges, and returns the first line of the last
	// reply with the figures.
	pipeline := func(what string, args ...string) string {
		var last string
		f := measure(t, p.Pid(), addr, what, func() {
			c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
			go c.conn.Write([]byte(strings.Repeat(respCmd(args...), ranges)))
			for range ranges {
				if last = skipReply(t, c.r); last != "*10" && last != ":1000" {
					t.Errorf("%s: %q", what, last)
					return
				}
			}
		})
		t.Logf("%d × %s: server CPU %v, bystander's worst PING %v", ranges, what, f.cpu.Round(time.Millisecond), f.worst.Round(time.Millisecond))
		return last
	}
	// The last ten members, from both kinds of ends.
	pipeline("ZREVRANGEBYLEX by ends of 16 KiB sharing the members' prefix (the attack)", "ZREVRANGEBYLEX", "lex", "["+prefix+"9999", "("+prefix, "LIMIT", "0", "10")
	pipeline("ZREVRANGEBYLEX by + and - (the twin)", "ZREVRANGEBYLEX", "lex", "+", "-", "LIMIT", "0", "10")
	pipeline("ZLEXCOUNT by ends of 16 KiB sharing the members' prefix (the attack)", "ZLEXCOUNT", "lex", "("+prefix, "["+prefix+"9999")
	pipeline("ZLEXCOUNT by - and + (the twin)", "ZLEXCOUNT", "lex", "-", "+")
	// Both kinds of ends answer the same members, in the same order.
	members10 := func(args ...string) []string {
		c.expectReply(time.Minute, "*10", args...)
		var names []string
		for range 10 {
			c.line() // $length
			names = append(names, c.line())
		}
		return names
	}
	byPrefix := members10("ZREVRANGEBYLEX", "lex", "["+prefix+"9999", "("+prefix, "LIMIT", "0", "10")
	byInf := members10("ZREVRANGEBYLEX", "lex", "+", "-", "LIMIT", "0", "10")
	for i := range byInf {
		if want := fmt.Sprintf("%s%04d", prefix, members-1-i); byPrefix[i] != want || byInf[i] != want {
			t.Fatalf("member %d: %.20q... and %.20q..., want ...%04d", i, byPrefix[i][length-4:], byInf[i][length-4:], members-1-i)
		}
	}
}
