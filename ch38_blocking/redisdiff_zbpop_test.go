package chapter_test

// The blocking pops in the differential test. Redis would park a client
// whose keys are all empty, where this server refuses (see the README),
// so they are sent only where neither waits: inside a transaction, and
// with a timeout that is refused before any key is looked at.
func init() {
	familyGens = append(familyGens, func(g *cmdGen) []string {
		timeout := g.pick("0", "0.5", "1e-3", "-0.0001", "0x1")
		if !g.inMulti {
			timeout = g.pick("-1", "inf", "1e30", "x", "", "-0.5")
		}
		switch g.rng.IntN(3) {
		case 0:
			return []string{"BZPOPMIN", g.key(), g.key(), timeout}
		case 1:
			return []string{"BZPOPMAX", g.key(), timeout}
		default:
			cmd := []string{"BZMPOP", timeout, g.pick("1", "2", "0", "-1"), g.key(), g.key(), g.pick("MIN", "MAX", "mid")}
			if g.rng.IntN(2) == 0 {
				cmd = append(cmd, "COUNT", g.pick("1", "3", "0", "-2"))
			}
			return cmd
		}
	})
}
