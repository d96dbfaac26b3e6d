package chapter_test

// The list commands in the differential test: pushes (a few elements,
// sometimes a long one, so that lists span nodes), every read and change,
// indexes in and out of range, and the moves between two keys, on the
// keys the other families use, so that WRONGTYPE and a list deleted when
// emptied are compared too.
func init() {
	familyGens = append(familyGens, func(g *cmdGen) []string {
		elem := func() string {
			if g.rng.IntN(20) == 0 {
				return bigValue()[:9000+g.rng.IntN(4000)]
			}
			return g.member()
		}
		index := func() string {
			return g.pick("0", "1", "-1", "2", "-2", "5", "-5", "100", "-100", "x", "", "9223372036854775807", "-9223372036854775808")
		}
		end := func() string { return g.pick("LEFT", "RIGHT", "left", "up") }
		switch g.rng.IntN(13) {
		case 0, 1:
			cmd := []string{g.pick("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), g.key()}
			for n := 1 + g.rng.IntN(6); n > 0; n-- {
				cmd = append(cmd, elem())
			}
			return cmd
		case 2:
			cmd := []string{g.pick("LPOP", "RPOP"), g.key()}
			if g.rng.IntN(2) == 0 {
				cmd = append(cmd, g.pick("0", "1", "3", "100", "-1", "x"))
			}
			return cmd
		case 3:
			return []string{"LRANGE", g.key(), index(), index()}
		case 4:
			return []string{"LINDEX", g.key(), index()}
		case 5:
			return []string{"LSET", g.key(), index(), elem()}
		case 6:
			return []string{"LINSERT", g.key(), g.pick("BEFORE", "AFTER", "after", "x"), g.member(), elem()}
		case 7:
			return []string{"LREM", g.key(), g.pick("0", "1", "-1", "2", "-2", "x"), g.member()}
		case 8:
			return []string{"LTRIM", g.key(), index(), index()}
		case 9:
			cmd := []string{"LPOS", g.key(), g.member()}
			for n := g.rng.IntN(3); n > 0; n-- {
				cmd = append(cmd, g.pick("RANK", "COUNT", "MAXLEN", "FOO"), g.pick("0", "1", "-1", "2", "-2", "x"))
			}
			return cmd
		case 10:
			return []string{"LMOVE", g.key(), g.key(), end(), end()}
		case 11:
			return []string{"RPOPLPUSH", g.key(), g.key()}
		default:
			return []string{"LLEN", g.key()}
		}
	})
}
