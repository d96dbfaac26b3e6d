package heap

import (
	"testing"

	"example.com/byor/testkit"
)

// TestMain runs the tests in the chapter that wrote this version of the
// package and skips them in a later chapter's unchanged copy (set
// BYOR_ALL_COPIES=1 to run them there too).
func TestMain(m *testing.M) { testkit.RunUnlessCopy(m) }
