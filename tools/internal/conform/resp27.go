package conform

import "slices"

// respChecks25 are chapter 27's checks: the string commands that share
// SET's grammar, the counters, MGET and MSET, and the expiry forms that
// read the key TTLs' unix clock (EXPIREAT, EXPIRETIME).
func respChecks25(st *Stage, cfg *Config) []Check {
	return slices.Concat(everydayStringChecks19(), stringChecks19(), keyExpiryChecks19(), []Check{{
		Name: "not checked: what chapter 27 does not claim",
		Skip: "the bit commands, LCS, and the key and hash commands of chapters 28 to 30 (ch27_strings/README.md)",
	}})
}

// chapterSection points a check at the part of chapter dir's README on
// topic, in the family's section part (Strings, Hashes), or anywhere for
// "".
func chapterSection(dir, part, topic string) string {
	if part == "" {
		return "beyond the book: " + topic + " (" + dir + "/README.md)"
	}
	return "beyond the book: " + topic + " (" + dir + "/README.md, " + part + ")"
}

// section25, section26, section27 and section19 (chapter 30's) are
// chapterSection for the chapters of the command set.
func section25(part, topic string) string { return chapterSection("ch27_strings", part, topic) }
func section26(part, topic string) string { return chapterSection("ch28_bits", part, topic) }
func section27(part, topic string) string { return chapterSection("ch29_keys", part, topic) }
