package chapter_test

import "strconv"

// The differential test's commands for the pops and ZMSCORE: on the
// generator's keys (some sorted sets, some strings, some missing), with
// numkeys and counts among the edge cases of Redis's parsing.

func init() {
	familyGens = append(familyGens, zpopCmd)
}

// zpopCmd makes one command of the family.
func zpopCmd(g *cmdGen) []string {
	r := g.rng
	// Most keys given to the pops are sorted sets, so that replies are
	// not mostly empty; a few sets are filled with more members.
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
	count := func() string {
		// No large negative count but those Redis refuses in any case: it
		// answers one that it takes by sending that many members.
		return g.pick("0", "1", "2", "3", "5", "10", "-1", "-2", "-5", "-10", "x", "", "-0",
			"9223372036854775807", "-9223372036854775808", "4611686018427387903", "4611686018427387904")
	}
	switch r.IntN(5) {
	case 0, 1:
		// Fill a set: more members, infinities and extremes among the scores.
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
	default:
		cmd := []string{"ZMSCORE", zkey()}
		for range r.IntN(4) {
			cmd = append(cmd, g.member())
		}
		return cmd
	}
}
