package conform

import "slices"

// resp32Checks are chapter 32's checks: the set algebra, ZRANDMEMBER and
// ZSCAN.
func resp32Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(zsetAlgebraChecks(), []Check{{
		Name: "not checked: what chapter 32 does not claim",
		Skip: "unions with plain sets, and Redis's other families (ch32_zalgebra/README.md)",
	}})
}

// section32 points a check at the part of chapter 32's README on topic.
func section32(topic string) string {
	return "beyond the book: " + topic + " (ch32_zalgebra/README.md)"
}
