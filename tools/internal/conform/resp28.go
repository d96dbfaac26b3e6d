package conform

import "slices"

// respChecks19 are chapter 28's checks: the string, key and hash commands
// it adds to chapter 24's, one function per family.
func respChecks19(st *Stage, cfg *Config) []Check {
	return slices.Concat(everydayChecks19(), stringChecks19(), keyChecks19(), hashChecks19(), []Check{{
		Name: "not checked: what chapter 28 does not claim",
		Skip: "sorted sets beyond chapter 24's, lists, sets, streams, scripting and Redis's other families (ch28_hashes/README.md)",
	}})
}

// section19 points a check at the part of chapter 28's README on topic,
// in the family's section part (Strings, Hashes), or anywhere for "".
func section19(part, topic string) string {
	if part == "" {
		return "beyond the book: " + topic + " (ch28_hashes/README.md)"
	}
	return "beyond the book: " + topic + " (ch28_hashes/README.md, " + part + ")"
}
