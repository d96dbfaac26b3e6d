package chapter_test

import (
	"bufio"
	"sort"
	"strconv"
	"strings"

	rawresp "example.com/byor/testkit/resp"
)

// The differential test's commands for the pops, the set algebra,
// ZMSCORE, ZRANDMEMBER and ZSCAN: on the generator's keys (some sorted
// sets, some strings, some missing), with numkeys, weights, aggregates
// and counts among the edge cases of Redis's parsing.

func init() {
	familyGens = append(familyGens, zalgebraCmd)
	familyNormalizers = append(familyNormalizers, zalgebraNormalize)
}

// zalgebraCmd makes one command of the family.
func zalgebraCmd(g *cmdGen) []string {
	r := g.rng
	// Most keys given to the algebra are sorted sets, so that results
	// are not mostly empty; a few sets are filled with more members.
	zkey := func() string {
		if r.IntN(4) == 0 {
			return g.key()
		}
		return g.pick("z0", "z1", "z2", "z3")
	}
	keys := func() []string {
		n := 1 + r.IntN(3)
		out := []string{strconv.Itoa(n)}
		switch r.IntN(12) {
		case 0:
			out[0] = g.pick("0", "-1", "x", "", "5", "9223372036854775807", "2")
		case 1:
			n-- // fewer keys than numkeys says
		}
		for range n {
			out = append(out, zkey())
		}
		return out
	}
	weight := func() string {
		return g.pick("1", "2", "0", "-1", "0.5", "inf", "-inf", "1e308", "nan", "x", "", "-0", "3")
	}
	algebraOpts := func(n int, store, weights bool) []string {
		n = min(max(n, 0), 4) // numkeys as sent, which may be anything
		var out []string
		for range r.IntN(3) {
			switch r.IntN(5) {
			case 0:
				if weights {
					out = append(out, g.pick("WEIGHTS", "weights"))
					for range n + r.IntN(3) - 1 + r.IntN(2) {
						out = append(out, weight())
					}
				}
			case 1:
				if weights {
					out = append(out, "AGGREGATE", g.pick("SUM", "min", "Max", "avg", ""))
				}
			case 2:
				if !store {
					out = append(out, "WITHSCORES")
				}
			case 3:
				out = append(out, g.pick("withscores", "LIMIT", "foo", "aggregate"))
			default:
				if weights {
					out = append(out, "WEIGHTS")
					for range n {
						out = append(out, weight())
					}
				}
			}
		}
		return out
	}
	count := func() string {
		// No large negative count but those Redis refuses in any case: it
		// answers one that it takes by sending that many members.
		return g.pick("0", "1", "2", "3", "5", "10", "-1", "-2", "-5", "-10", "x", "", "-0",
			"9223372036854775807", "-9223372036854775808", "4611686018427387903", "4611686018427387904")
	}
	switch r.IntN(14) {
	case 0, 1:
		// Fill a set: more members, with scores the algebra combines.
		cmd := []string{"ZADD", g.pick("z0", "z1", "z2", "z3")}
		for range 1 + r.IntN(6) {
			cmd = append(cmd, g.pick("1", "2", "-2.5", "0", "inf", "-inf", "0.1", "3e2", "1e308", "-1e308", "7"), g.member())
		}
		return cmd
	case 2:
		cmd := []string{g.pick("ZPOPMIN", "ZPOPMAX", "zpopmin"), zkey()}
		switch r.IntN(4) {
		case 0:
		case 1:
			cmd = append(cmd, count(), count())
		default:
			cmd = append(cmd, g.pick("0", "1", "2", "3", "10", "-1", "x", "", "-0", "9223372036854775807"))
		}
		return cmd
	case 3:
		cmd := append([]string{"ZMPOP"}, keys()...)
		cmd = append(cmd, g.pick("MIN", "max", "MAX", "foo", ""))
		switch r.IntN(4) {
		case 0:
			cmd = append(cmd, "COUNT", g.pick("0", "1", "2", "5", "-1", "x", "", "9223372036854775807"))
		case 1:
			cmd = append(cmd, g.pick("COUNT", "count 1 count 2", "foo"))
		}
		return cmd
	case 4, 5, 6:
		name := g.pick("ZUNION", "ZINTER", "ZDIFF")
		k := keys()
		n, _ := strconv.Atoi(k[0])
		return append(append([]string{name}, k...), algebraOpts(n, false, name != "ZDIFF")...)
	case 7, 8:
		name := g.pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE")
		k := keys()
		n, _ := strconv.Atoi(k[0])
		dest := g.pick("z0", "z1", "z2", "z3", "d0", "d1", "k0")
		return append(append([]string{name, dest}, k...), algebraOpts(n, true, name != "ZDIFFSTORE")...)
	case 9:
		cmd := append([]string{"ZINTERCARD"}, keys()...)
		switch r.IntN(4) {
		case 0:
		case 1:
			cmd = append(cmd, "LIMIT", g.pick("0", "1", "2", "-1", "x", "", "100"), "LIMIT", "1")
		default:
			cmd = append(cmd, g.pick("LIMIT", "limit"), g.pick("0", "1", "2", "-1", "x", "", "100", "9223372036854775807"))
		}
		return cmd
	case 10:
		cmd := []string{"ZMSCORE", zkey()}
		for range r.IntN(4) {
			cmd = append(cmd, g.member())
		}
		return cmd
	case 11, 12:
		cmd := []string{g.pick("ZRANDMEMBER", "zrandmember"), zkey()}
		switch r.IntN(4) {
		case 0:
		case 1:
			cmd = append(cmd, count())
		case 2:
			cmd = append(cmd, count(), g.pick("WITHSCORES", "withscores", "foo"))
		default:
			cmd = append(cmd, count(), "WITHSCORES", "x")
		}
		return cmd
	default:
		// ZSCAN of the sets here, all small (a few short members): the
		// whole set in one call, with cursor 0, as Redis answers one in
		// its compact encoding whatever the cursor and COUNT (1 too).
		cmd := []string{"ZSCAN", zkey(), g.pick("0", "0", "0", "x", "-", "", "0x1", "+0", "7", "18446744073709551615")}
		for range r.IntN(3) {
			switch r.IntN(5) {
			case 0:
				cmd = append(cmd, "MATCH", g.pick("*", "a*", "?", "[a-c]", "", "\\a", "a b"))
			case 1:
				cmd = append(cmd, "COUNT", g.pick("10", "100", "0", "-1", "x", "", "1", "1", "2"))
			case 2:
				cmd = append(cmd, g.pick("TYPE", "NOVALUES", "MATCH", "COUNT"))
			default:
				cmd = append(cmd, "count", "1000")
			}
		}
		return cmd
	}
}

// zalgebraNormalize takes out of ZRANDMEMBER's and ZSCAN's replies what is
// random or in no order: ZRANDMEMBER keeps its reply's type and length
// (and, for a count that takes the whole set, the members, sorted); ZSCAN
// its members and scores, pairs sorted, as it returns a small set whole.
func zalgebraNormalize(cmd []string, reply string) (string, bool) {
	name := strings.ToUpper(cmd[0])
	if name != "ZRANDMEMBER" && name != "ZSCAN" || reply == "" || reply[0] == '-' {
		return "", false
	}
	if name == "ZRANDMEMBER" {
		if reply[0] != '*' {
			return reply[:1], true // one member, or null
		}
		return reply[:strings.IndexByte(reply, '\n')+1], true
	}
	r := bufio.NewReader(strings.NewReader(reply))
	header, _ := r.ReadString('\n')
	cursor, err := rawresp.ReadRaw(r, nil, maxDiffReply)
	if err != nil {
		return reply, true
	}
	inner, _ := r.ReadString('\n')
	var elems []string
	for {
		e, err := rawresp.ReadRaw(r, nil, maxDiffReply)
		if err != nil {
			break
		}
		elems = append(elems, string(e))
	}
	var pairs []string
	for i := 0; i+1 < len(elems); i += 2 {
		pairs = append(pairs, elems[i]+elems[i+1])
	}
	sort.Strings(pairs)
	return header + string(cursor) + inner + strings.Join(pairs, ""), true
}
