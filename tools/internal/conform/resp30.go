package conform

import "slices"

// respChecks19 are chapter 30's checks: the hash commands it adds to
// chapter 29's, HMGET and the sorted sets' everyday ranks among them.
func respChecks19(st *Stage, cfg *Config) []Check {
	return slices.Concat(everydayChecks19(), hashChecks19(), []Check{{
		Name: "not checked: what chapter 30 does not claim",
		Skip: "sorted sets beyond chapter 26's, lists, sets, streams, scripting and Redis's other families (ch30_hashes/README.md)",
	}})
}

// section19 points a check at the part of chapter 30's README on topic.
func section19(part, topic string) string { return chapterSection("ch30_hashes", part, topic) }
