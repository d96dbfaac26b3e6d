package conform

import "slices"

// resp30Checks are chapter 30's checks: the hash commands it adds to
// chapter 29's, HMGET and the sorted sets' everyday ranks among them.
func resp30Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(everydayHashZSetChecks(), hashChecks(), []Check{{
		Name: "not checked: what chapter 30 does not claim",
		Skip: "the rest of the sorted sets (chapters 31 and 32), lists, sets, streams, scripting and Redis's other families (ch30_hashes/README.md)",
	}})
}

// section30 points a check at the part of chapter 30's README on topic.
func section30(part, topic string) string { return chapterSection("ch30_hashes", part, topic) }
