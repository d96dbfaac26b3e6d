package conform

// keyChecks19 are the checks of the generic key commands chapter 19 adds.
func keyChecks19() []Check {
	return nil
}
