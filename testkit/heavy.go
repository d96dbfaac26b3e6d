package testkit

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// HeavyEnv is the environment variable that turns on the heavy suites:
// tests that build and run every chapter's server many times over
// (hostile clients, the cross-chapter suites, the conformance runner
// against every chapter, the workshop's exercise matrix). They take
// minutes on two cores, so the README's test command (go run
// ./tools/testall, or go test example.com/byor/...) skips them;
// HeavyCommand runs them, and CI runs it on every push.
const HeavyEnv = "BYOR_HEAVY"

// HeavyCommand is the command that runs the heavy suites.
const HeavyCommand = "BYOR_HEAVY=1 go test -timeout 30m example.com/byor/tools/..."

// Heavy skips the test unless HeavyEnv is 1, naming the command that runs
// it. A heavy test calls it first.
func Heavy(t testing.TB) {
	t.Helper()
	if os.Getenv(HeavyEnv) != "1" {
		t.Skipf("heavy suite, not run by default; run the heavy suites with: %s", HeavyCommand)
	}
}

// ScaleEnv is the environment variable that stretches every deadline that
// only guards against a hang (a reply that never comes, a server that
// never starts): BYOR_TIMEOUT_SCALE=3 triples them, for a slow or heavily
// loaded machine, or the race detector. Tests never fail because something
// was slow but finished; these deadlines only turn a hang into a failure
// with a message, instead of a go test timeout.
const ScaleEnv = "BYOR_TIMEOUT_SCALE"

// Scale returns d multiplied by the factor in ScaleEnv (1 when unset or
// not a positive number).
func Scale(d time.Duration) time.Duration {
	f, err := strconv.ParseFloat(os.Getenv(ScaleEnv), 64)
	if err != nil || f <= 0 {
		return d
	}
	return time.Duration(float64(d) * f)
}
