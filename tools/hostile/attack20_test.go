package hostile

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Chapter 20's sorted-set commands against attackers who have read the
// code, each against its honest twin of the same size.
//
// ZUNION, ZINTER and ZDIFF that reply: the result is listed, not kept, so
// it should cost about what listing as many members does, plus the
// lookups an intersection or a difference needs (its twin there is a
// ZMSCORE of the members looked up). A reply that built a whole sorted set
// (tree nodes and hash table entries) to walk it once paid many times a
// ZRANGE's CPU.
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

// TestAttack20Replies: see above.
func TestAttack20Replies(t *testing.T) {
	eachChapter(t, zsets20Chapters, testAttack20Replies)
}

func testAttack20Replies(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const n = 200_000
	var reqs strings.Builder
	for i := 0; i < n; i += 5000 {
		a, b := []string{"ZADD", "a"}, []string{"ZADD", "b"}
		for j := i; j < i+5000; j++ {
			a = append(a, strconv.Itoa(j%977), "m"+strconv.Itoa(j))
			if j%2 == 0 { // b holds every other member of a
				b = append(b, strconv.Itoa(j%89), "m"+strconv.Itoa(j))
			}
		}
		reqs.WriteString(respCmd(a...) + respCmd(b...))
	}
	c.sendPipelined(t, "ZADD", reqs.String(), 2*n/5000, ":", bigLoadGuard)
	run := leastCPURunner(t, p, addr, c, bigLoadGuard)
	// The members of b, for ZMSCORE: the lookups an intersection does.
	bMembers := []string{"ZMSCORE", "a"}
	for j := 0; j < n; j += 2 {
		bMembers = append(bMembers, "m"+strconv.Itoa(j))
	}

	rangeA := run(fmt.Sprintf("*%d", 2*n), "ZRANGE", "a", "0", "-1", "WITHSCORES")
	union := run(fmt.Sprintf("*%d", 2*n), "ZUNION", "2", "a", "b", "WITHSCORES")
	logTwin(t, fmt.Sprintf("ZUNION of %d members", n), union, "ZRANGE of as many", rangeA)

	rangeB := run(fmt.Sprintf("*%d", n), "ZRANGE", "b", "0", "-1", "WITHSCORES")
	mscore := run(fmt.Sprintf("*%d", n/2), bMembers...)
	inter := run(fmt.Sprintf("*%d", n), "ZINTER", "2", "a", "b", "WITHSCORES")
	logTwin(t, fmt.Sprintf("ZINTER of %d members", n/2), inter, "ZRANGE of as many", rangeB)
	logTwin(t, fmt.Sprintf("ZINTER of %d members", n/2), inter, "ZMSCORE of as many", mscore)

	// A difference walks all of a and looks each member up in b.
	aMembers := []string{"ZMSCORE", "b"}
	for j := range n {
		aMembers = append(aMembers, "m"+strconv.Itoa(j))
	}
	rangeHalf := run(fmt.Sprintf("*%d", n/2), "ZRANGE", "a", "0", strconv.Itoa(n/2-1))
	mscoreA := run(fmt.Sprintf("*%d", n), aMembers...)
	diff := run(fmt.Sprintf("*%d", n/2), "ZDIFF", "2", "a", "b")
	logTwin(t, fmt.Sprintf("ZDIFF of %d members (from %d)", n/2, n), diff, "ZRANGE of as many", rangeHalf)
	logTwin(t, fmt.Sprintf("ZDIFF of %d members (from %d)", n/2, n), diff, fmt.Sprintf("ZMSCORE of %d members", n), mscoreA)

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

// TestAttack20TiedNames: an intersection whose members all end up with the
// same score, from inputs that order them differently, is sorted by name;
// names that share a long prefix make every comparison cost that prefix.
// Its twin is a ZRANGE of the same members.
func TestAttack20TiedNames(t *testing.T) {
	eachChapter(t, zsets20Chapters, testAttack20TiedNames)
}

func testAttack20TiedNames(t *testing.T, ch string) {
	p, addr, c := startWithClient(t, ch)
	const n, prefix = 20_000, 1000
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
