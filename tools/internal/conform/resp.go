package conform

func respChecks(st *Stage, cfg *Config) []Check { return nil }
