package chapter_test

// The blocking pops in the differential test, of lists and sorted sets,
// and LMPOP. A client whose keys are all empty waits, here as on Redis,
// and one stream of commands cannot wait: the blocking pops are sent
// only where none waits, inside a transaction, and with a timeout that
// is refused before any key is looked at. Waiting is compared in
// blocking_test.go and by Redis's own tests.
func init() {
	familyGens = append(familyGens, func(g *cmdGen) []string {
		timeout := g.pick("0", "0.5", "1e-3", "-0.0001", "0x1")
		if !g.inMulti {
			timeout = g.pick("-1", "inf", "1e30", "x", "", "-0.5")
		}
		mpop := func(name string, ends ...string) []string {
			cmd := []string{name, g.pick("1", "2", "0", "-1", "x"), g.key(), g.key(), g.pick(ends...)}
			if g.rng.IntN(2) == 0 {
				cmd = append(cmd, "COUNT", g.pick("1", "3", "0", "-2", "100"))
			}
			return cmd
		}
		switch g.rng.IntN(8) {
		case 0:
			return []string{"BZPOPMIN", g.key(), g.key(), timeout}
		case 1:
			return []string{"BZPOPMAX", g.key(), timeout}
		case 2:
			return append([]string{"BZMPOP", timeout}, mpop("", "MIN", "MAX", "mid")[1:]...)
		case 3:
			return []string{g.pick("BLPOP", "BRPOP"), g.key(), g.key(), timeout}
		case 4:
			return []string{"BLMOVE", g.key(), g.key(), g.pick("LEFT", "RIGHT", "up"), g.pick("LEFT", "right"), timeout}
		case 5:
			return []string{"BRPOPLPUSH", g.key(), g.key(), timeout}
		case 6:
			cmd := mpop("", "LEFT", "RIGHT", "left", "MIN")
			return append([]string{"BLMPOP", timeout}, cmd[1:]...)
		default:
			return mpop("LMPOP", "LEFT", "RIGHT", "right", "up")
		}
	})
}
