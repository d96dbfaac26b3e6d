package conform

import "slices"

// resp29Checks are chapter 29's checks: the generic key commands, OBJECT,
// MEMORY USAGE and INFO's command and error stats.
func resp29Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(genericKeyChecks(), []Check{{
		Name: "not checked: what chapter 29 does not claim",
		Skip: "more than one database, and the hash commands of chapter 30 (ch29_keys/README.md)",
	}})
}
