package conform

// stringChecks19 are the checks of the string commands chapter 19 adds.
func stringChecks19() []Check {
	return nil
}
