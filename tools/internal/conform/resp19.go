package conform

import "slices"

// respChecks19 are chapter 19's checks: the string, key and hash commands
// it adds to chapter 18's, one function per family.
func respChecks19(st *Stage, cfg *Config) []Check {
	return slices.Concat(everydayChecks19(), stringChecks19(), keyChecks19(), hashChecks19(), []Check{{
		Name: "not checked: what chapter 19 does not claim",
		Skip: "sorted sets beyond chapter 18's, lists, sets, streams, scripting and Redis's other families (ch19_commands/README.md)",
	}})
}
