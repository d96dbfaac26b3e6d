package chapter_test

// The ranges' share of the differential test: every form of ZRANGE, the
// older range commands, ZRANGESTORE, ZCOUNT, ZLEXCOUNT and the removals
// of a range. A range of names is defined only over members of one score,
// and Redis answers one over mixed scores by its encoding (a linear scan
// of a small set, a skiplist search of a large one), so the ranges by
// name go to keys of their own (x0, x1) whose members all score 0.

func init() {
	familyGens = append(familyGens, zrangeGen)
}

// lexKey is a key whose members all score 0.
func (g *cmdGen) lexKey() string { return g.pick("x0", "x1") }

// lexMember is a name for a lexKey: short, sharing prefixes, and empty.
func (g *cmdGen) lexMember() string {
	return g.pick("a", "b", "c", "aa", "ab", "", "b\x00", "z", "A", "a b", "bb")
}

// lexBound is one end of a range of names, valid or not.
func (g *cmdGen) lexBound() string {
	return g.pick("-", "+", "[a", "(a", "[b", "(b", "[", "(", "a", "", "+x", "-\x00", "[aa", "(c", "[z", "(bb", "[b\x00", "+", "-")
}

// rangeOpts appends a random mix of ZRANGE's options (some invalid, some
// repeated) to cmd.
func (g *cmdGen) rangeOpts(cmd []string, opts ...string) []string {
	r := g.rng
	for range r.IntN(4) {
		switch opt := g.pick(opts...); opt {
		case "LIMIT":
			cmd = append(cmd, g.pick("LIMIT", "limit"), g.pick("0", "1", "2", "-1", "x", "3", "100"), g.pick("-1", "1", "2", "0", "-5", "x", "3"))
		default:
			cmd = append(cmd, opt)
		}
	}
	return cmd
}

func zrangeGen(g *cmdGen) []string {
	r := g.rng
	switch r.IntN(14) {
	case 0, 1:
		cmd := []string{"ZADD", g.lexKey()}
		for range 1 + r.IntN(3) {
			cmd = append(cmd, "0", g.lexMember())
		}
		return cmd
	case 2:
		// ZRANGE by rank or by score, any direction, on any key.
		cmd := []string{"ZRANGE", g.key()}
		if r.IntN(2) == 0 {
			cmd = append(cmd, g.integer(), g.integer())
		} else {
			cmd = append(cmd, g.bound(), g.bound())
		}
		return g.rangeOpts(cmd, "BYSCORE", "byscore", "REV", "LIMIT", "WITHSCORES", "LIMIT", "BYSCORE", "BYLEX", "BAD")
	case 3:
		cmd := []string{"ZRANGE", g.lexKey(), g.lexBound(), g.lexBound(), "BYLEX"}
		return g.rangeOpts(cmd, "REV", "LIMIT", "LIMIT", "WITHSCORES", "BYLEX", "BYSCORE")
	case 4:
		cmd := []string{g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), g.key(), g.bound(), g.bound()}
		return g.rangeOpts(cmd, "WITHSCORES", "LIMIT", "LIMIT", "REV", "BYSCORE")
	case 5:
		cmd := []string{g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), g.lexKey(), g.lexBound(), g.lexBound()}
		return g.rangeOpts(cmd, "LIMIT", "LIMIT", "WITHSCORES", "REV")
	case 6:
		cmd := []string{"ZREVRANGE", g.key(), g.integer(), g.integer()}
		return g.rangeOpts(cmd, "WITHSCORES", "WITHSCORES", "REV", "LIMIT", "BYSCORE")
	case 7, 8:
		// ZRANGESTORE: of names from a lexKey to a lexKey (so their
		// scores stay 0), of ranks and scores from any key to any but
		// those.
		if r.IntN(3) == 0 {
			cmd := []string{"ZRANGESTORE", g.lexKey(), g.lexKey(), g.lexBound(), g.lexBound(), "BYLEX"}
			return g.rangeOpts(cmd, "REV", "LIMIT", "WITHSCORES")
		}
		cmd := []string{"ZRANGESTORE", g.key(), g.key()}
		if r.IntN(2) == 0 {
			cmd = append(cmd, g.integer(), g.integer())
		} else {
			cmd = append(cmd, g.bound(), g.bound(), "BYSCORE")
		}
		return g.rangeOpts(cmd, "REV", "LIMIT", "WITHSCORES", "BYSCORE")
	case 9:
		return []string{"ZCOUNT", g.key(), g.bound(), g.bound()}
	case 10:
		return []string{"ZLEXCOUNT", g.lexKey(), g.lexBound(), g.lexBound()}
	case 11:
		return []string{"ZREMRANGEBYRANK", g.key(), g.integer(), g.integer()}
	case 12:
		return []string{"ZREMRANGEBYSCORE", g.key(), g.bound(), g.bound()}
	default:
		if r.IntN(4) == 0 {
			return []string{g.pick("ZRANGE", "ZCARD"), g.lexKey(), "0", "-1"}[:2+r.IntN(2)*2]
		}
		return []string{"ZREMRANGEBYLEX", g.lexKey(), g.lexBound(), g.lexBound()}
	}
}
