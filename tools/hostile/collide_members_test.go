package hostile

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// Sorted-set members and hash fields whose names all share the book's
// hash (collidingKeys), against random names of the same length. Until
// the members and fields were placed by a seeded hash, each such name
// landed in one chain that every later one walked to its end: 20,000
// members sent 2,000 to a ZADD cost the server seconds of CPU against a
// tenth of one for random names, and held the loop for most of a second at
// a time. The log reports each kind's CPU time and a bystander's worst
// wait for an answer; the test asserts every reply and, as the key-space
// attack does, compares the two CPU times of the same run.

// TestCollidingMembersCostNoMore: ZADD of crafted members.
func TestCollidingMembersCostNoMore(t *testing.T) { testCollidingNames(t, "zset") }

// TestCollidingFieldsCostNoMore: HSET of crafted fields.
func TestCollidingFieldsCostNoMore(t *testing.T) { testCollidingNames(t, "hash") }

// testCollidingNames fills one sorted set (kind "zset") or one hash
// ("hash") with crafted names, and on another server with random ones, on
// the first chapter whose server bounds its work (ch16, in the book's
// protocol) and the newest (over RESP, as a Redis client would).
func testCollidingNames(t *testing.T, kind string) {
	// For measuring by hand: HOSTILE_COLLIDING_NAMES=40000.
	n := envInt("HOSTILE_COLLIDING_NAMES", 20_000)
	eachChapter(t, costlyBook, func(t *testing.T, ch string) {
		crafted, craftedWait := nameWork(t, ch, kind, collidingKeys(t, n))
		random, randomWait := nameWork(t, ch, kind, randomKeys(n))
		what := map[string]string{"zset": "members of a sorted set", "hash": "fields of a hash"}[kind]
		t.Logf("%d %s, names of 68 bytes: server CPU %v for crafted names (bystander's worst wait %v), %v for random ones (%v)",
			n, what, crafted, craftedWait.Round(time.Millisecond), random, randomWait.Round(time.Millisecond))
		if crafted > 3*random+100*time.Millisecond {
			t.Errorf("crafted names cost the server %v of CPU, random ones %v", crafted, random)
		}
	})
}

// nameWork starts chapter ch's server, adds every name to one sorted set
// or hash while a bystander pings, checks every reply and the result, and
// returns the server's CPU time for the work and the bystander's slowest
// answer.
func nameWork(t *testing.T, ch, kind string, names []string) (cpu, worst time.Duration) {
	p := startServer(t, ch, 0, longIdle...)
	defer p.Stop(5 * time.Second)
	if slices.Contains(withFeature(chapters.RESPListener), ch) {
		return respNameWork(t, p.Pid(), respAddr(t, p), kind, names)
	}
	return bookNameWork(t, p.Pid(), p.Addr, kind, names)
}

// respNameWork sends the names 2,000 to a ZADD or HSET, all requests at
// once, and checks that each reply counts its 2,000 new names.
func respNameWork(t *testing.T, pid int, addr, kind string, names []string) (cpu, worst time.Duration) {
	const perRequest = 2000
	c := dialRESP(t, addr)
	var reqs strings.Builder
	var want []string
	for i := 0; i < len(names); i += perRequest {
		batch := names[i:min(i+perRequest, len(names))]
		args := []string{"ZADD", "z"}
		if kind == "hash" {
			args = []string{"HSET", "h"}
		}
		for j, name := range batch {
			if kind == "hash" {
				args = append(args, name, "v")
			} else {
				args = append(args, strconv.Itoa(i+j), name)
			}
		}
		reqs.WriteString(respCmd(args...))
		want = append(want, fmt.Sprintf(":%d", len(batch)))
	}
	stop := pingWatch(t, addr)
	cpu0 := cpuTime(t, pid)
	c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
	go c.conn.Write([]byte(reqs.String()))
	for i, w := range want {
		if got := skipReply(t, c.r); got != w {
			t.Fatalf("reply %d of %d: %q, want %q", i+1, len(want), got, w)
		}
	}
	cpu = cpuTime(t, pid) - cpu0
	if worst = stop(); worst < 0 {
		t.Fatal("the bystander's PING failed")
	}

	last := names[len(names)-1]
	count, lookup, value := []string{"ZCARD", "z"}, []string{"ZSCORE", "z", last}, strconv.Itoa(len(names)-1)
	if kind == "hash" {
		count, lookup, value = []string{"HLEN", "h"}, []string{"HGET", "h", last}, "v"
	}
	if got, want := c.do(time.Minute, count...), fmt.Sprintf(":%d", len(names)); got != want {
		t.Fatalf("%s: %q, want %q", count[0], got, want)
	}
	if got := c.do(time.Minute, lookup...); got != fmt.Sprintf("$%d", len(value)) || c.line() != value {
		t.Fatalf("%s of the last name: %q, want %q", lookup[0], got, value)
	}
	return cpu, worst
}

// bookNameWork sends the names in the book's protocol: one to a zadd, as
// the book's zadd takes one member; as many to an hset as fit the book's
// 4 KiB message (50). Each reply must count the new names.
func bookNameWork(t *testing.T, pid int, addr, kind string, names []string) (cpu, worst time.Duration) {
	perRequest := 1
	if kind == "hash" {
		perRequest = 50
	}
	var reqs [][]string
	var want []int64
	for i := 0; i < len(names); i += perRequest {
		batch := names[i:min(i+perRequest, len(names))]
		args := []string{"zadd", "z", strconv.Itoa(i), batch[0]}
		if kind == "hash" {
			args = []string{"hset", "h"}
			for _, name := range batch {
				args = append(args, name, "v")
			}
		}
		reqs = append(reqs, args)
		want = append(want, int64(len(batch)))
	}
	c := dial(t, addr)
	stop := bookPingWatch(t, addr)
	cpu0 := cpuTime(t, pid)
	c.pipelineExpect(reqs, want)
	cpu = cpuTime(t, pid) - cpu0
	if worst = stop(); worst < 0 {
		t.Fatal("the bystander's get failed")
	}

	first, last := names[0], names[len(names)-1]
	if kind == "hash" {
		if v := c.do("hlen", "h"); v.Tag != wire.TagInt || v.Int != int64(len(names)) {
			t.Fatalf("hlen: %v, want %d", v, len(names))
		}
		for _, name := range []string{first, last} {
			if v := c.do("hget", "h", name); v.Tag != wire.TagStr || string(v.Str) != "v" {
				t.Fatalf("hget of a name: %v", v)
			}
		}
		return cpu, worst
	}
	for i, name := range map[int]string{0: first, len(names) - 1: last} {
		if v := c.do("zscore", "z", name); v.Tag != wire.TagDbl || v.Dbl != float64(i) {
			t.Fatalf("zscore of name %d: %v", i, v)
		}
	}
	return cpu, worst
}

// pipelineExpect is pipeline for requests whose replies are integers: it
// fails unless reply i is want[i].
func (c *client) pipelineExpect(reqs [][]string, want []int64) {
	c.t.Helper()
	br := bufio.NewReaderSize(c.conn, 64<<10)
	for start := 0; start < len(reqs); start += 1000 {
		end := min(start+1000, len(reqs))
		var out []byte
		for _, r := range reqs[start:end] {
			var err error
			if out, err = wire.AppendRequest(out, r...); err != nil {
				c.t.Fatal(err)
			}
		}
		c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
		go c.conn.Write(out)
		for i := start; i < end; i++ {
			body, err := wire.ReadFrame(br, c.buf)
			if err != nil {
				c.t.Fatalf("reading reply %d: %v", i+1, err)
			}
			if v, err := wire.DecodeReply(body); err != nil || v.Tag != wire.TagInt || v.Int != want[i] {
				c.t.Fatalf("reply %d (%.24q): %v %v, want (int) %d", i+1, reqs[i], v, err, want[i])
			}
		}
	}
}

// bookPingWatch has a bystander send a get of a missing key in the book's
// protocol (which has no PING) until the returned function is called,
// which returns the slowest answer it saw, or -1 if one failed.
func bookPingWatch(t *testing.T, addr string) func() time.Duration {
	conn := dialConn(t, addr)
	req, _ := wire.AppendRequest(nil, "get", "bystander")
	return watchWorst(func() bool {
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		if _, err := conn.Write(req); err != nil {
			return false
		}
		body, err := wire.ReadFrame(conn, nil)
		v, derr := wire.DecodeReply(body)
		return err == nil && derr == nil && v.Tag == wire.TagNil
	})
}
