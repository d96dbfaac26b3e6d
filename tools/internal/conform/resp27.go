package conform

import "slices"

// resp27Checks are chapter 27's checks: the string commands that share
// SET's grammar, the counters, MGET and MSET, and the expiry forms that
// read the key TTLs' unix clock (EXPIREAT, EXPIRETIME).
func resp27Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(everydayStringChecks(), stringChecks(), keyExpiryChecks(), []Check{{
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

// section27, section28, section29 and section30 (in resp30.go) are
// chapterSection for the chapters of the command set.
func section27(part, topic string) string { return chapterSection("ch27_strings", part, topic) }
func section28(part, topic string) string { return chapterSection("ch28_bits", part, topic) }
func section29(part, topic string) string { return chapterSection("ch29_keys", part, topic) }
