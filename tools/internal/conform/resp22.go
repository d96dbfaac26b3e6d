package conform

// respChecks22 are chapter 22's checks: none yet.
func respChecks22(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name: "not checked: the snapshot",
		Skip: "written later",
	}}
}
