package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Chapter 20's ranges under attack. Every range is a seek (O(log n)) and a
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

// zsets20Chapters are the chapters with every sorted-set command: the
// ranges, the set algebra and the random members these attacks use.
var zsets20Chapters = []string{"ch20_zsets"}

// TestZRangeStoreMillion: see above.
func TestZRangeStoreMillion(t *testing.T) { eachChapter(t, zsets20Chapters, testZRangeStoreMillion) }

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
	eachChapter(t, zsets20Chapters, testZRangeLexLongMembers)
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
		if got := c.do(time.Minute, args...); got != ":100" {
			t.Fatalf("ZADD: %q", got)
		}
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
		if got := c.do(time.Minute, args...); got != "*10" {
			t.Fatalf("%.40q: %q, want *10", args, got)
		}
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
