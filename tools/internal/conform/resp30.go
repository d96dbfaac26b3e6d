package conform

import "slices"

// respChecks20 are chapter 30's checks: every sorted-set command but the
// blocking ones.
func respChecks20(st *Stage, cfg *Config) []Check {
	return slices.Concat(rangeChecks20(), zsetAlgebraChecks20(), []Check{{
		Name: "not checked: what chapter 30 does not claim",
		Skip: "the blocking pops (BZPOPMIN, BZPOPMAX, BZMPOP), unions with plain sets, and Redis's other families (ch30_zalgebra/README.md)",
	}})
}

// section20 points a check at the part of chapter 30's README on topic.
func section20(topic string) string {
	return "beyond the book: " + topic + " (ch30_zalgebra/README.md)"
}
