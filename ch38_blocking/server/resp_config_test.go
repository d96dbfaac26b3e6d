package server

import (
	"strings"
	"testing"
)

// TestRESPConfigMatchBounded: CONFIG GET's patterns are matched as KEYS's
// are, bounded and counted. A set of 512 KiB after a * is walked once per
// byte the * tries, for each parameter: some 10^7 steps for one request,
// which the matcher without a bound took uncounted (tens of milliseconds
// each, a pipeline of them seconds). It stops at kConfigMatchMaxSteps,
// answers an error, and counts its steps in the turn's work; a shorter
// such pattern is answered, its steps counted too.
func TestRESPConfigMatchBounded(t *testing.T) {
	resetData(t)
	costly := "*[" + strings.Repeat("b", 512<<10) + "]z"
	before := workDone
	if got, want := respRun(t, "config", "get", costly), "-"+errConfigMatchTooCostly+"\r\n"; got != want {
		t.Fatalf("CONFIG GET with a costly pattern = %.60q, want %q", got, want)
	}
	if w := workDone - before; w < kConfigMatchMaxSteps/kMatchStepsPerItem {
		t.Errorf("CONFIG GET gave up after %d steps but counted %d items of work", kConfigMatchMaxSteps, w)
	}

	// 4 KiB of set: the * tries each byte of each name, each try walks
	// the set; under the bound.
	cheaper := "*[" + strings.Repeat("b", 4<<10) + "]z"
	tries := 0
	for _, p := range respConfigParams {
		tries += len(p[0])
	}
	before = workDone
	if got := respRun(t, "config", "get", cheaper); got != "*0\r\n" {
		t.Fatalf("CONFIG GET with a long pattern = %.60q, want no parameters", got)
	}
	if w, want := workDone-before, (4<<10)*tries/kMatchStepsPerItem; w < want {
		t.Errorf("CONFIG GET of a 4 KiB set counted %d items of work, want at least %d", w, want)
	}
}

// TestRESPConfigNames: a name without *, ? or [ is looked up in any case
// and answered under the name given, without matching (a \ in it escapes
// nothing, as in Redis); a pattern is matched in any case and answered
// with the parameter's own name, however many patterns name it.
func TestRESPConfigNames(t *testing.T) {
	resetData(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"SAVE"}, "*2\r\n$4\r\nSAVE\r\n$0\r\n\r\n"},
		{[]string{`sav\e`}, "*0\r\n"},
		{[]string{"APPEND*"}, "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"},
		{[]string{"*ND*", "s?ve"}, "*4\r\n$4\r\nsave\r\n$0\r\n\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"},
		{[]string{strings.Repeat("x", 512<<10)}, "*0\r\n"},
	} {
		before := workDone
		got := respRun(t, append([]string{"config", "get"}, tt.args...)...)
		if got != tt.want {
			t.Errorf("CONFIG GET %.20q = %q, want %q", tt.args, got, tt.want)
		}
		// The request's bytes, and little matching on top of them (a
		// pattern walks a few short names).
		bytes := len("configget") + len(got)
		for _, a := range tt.args {
			bytes += len(a)
		}
		if w := workDone - before; w > 2+bytes/kWorkBytes {
			t.Errorf("CONFIG GET %.20q counted %d units of work, its bytes %d", tt.args, w, bytes/kWorkBytes)
		}
	}
}

// TestRESPConfigSet: CONFIG SET changes save, and CONFIG GET reports it;
// a pair it cannot read, or a name it does not have, is refused with
// Redis's error and nothing changes, not even the pairs before it.
func TestRESPConfigSet(t *testing.T) {
	resetData(t)
	savedRules, savedArg := rdbState.rules, rdbState.rulesArg
	t.Cleanup(func() { rdbState.rules, rdbState.rulesArg = savedRules, savedArg; respConfigSet("save", savedArg) })
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"save", "60 5", "save"}, "-" + errSyntax + "\r\n"},
		{[]string{"save", "60 5"}, "+OK\r\n"},
		{[]string{"save", "7 1", "nosuch", "1"}, "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n"},
		{[]string{"SAVE", "0"}, "-ERR CONFIG SET failed (possibly related to argument 'SAVE') - Invalid save parameters\r\n"},
	} {
		if got := respRun(t, append([]string{"config", "set"}, c.args...)...); got != c.want {
			t.Errorf("CONFIG SET %q = %q, want %q", c.args, got, c.want)
		}
	}
	if got, want := respRun(t, "config", "get", "save"), "*2\r\n$4\r\nsave\r\n$4\r\n60 5\r\n"; got != want {
		t.Errorf("CONFIG GET save = %q, want %q", got, want)
	}
	if len(rdbState.rules) != 1 || rdbState.rules[0] != (saveRule{60, 5}) {
		t.Errorf("the rules after CONFIG SET save \"60 5\" and two refusals: %v", rdbState.rules)
	}
}
