package cmdflag

import (
	"errors"
	"strings"
	"testing"
)

const testUsage = "usage: demo [-n N]\n"

// TestParse: ParseArgs goes on after good flags, and stops with 0 after -h
// and with 2 after a bad flag, the usage printed in both cases; Parse, for
// flags only, stops with 2 at an argument left over, naming it.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args       []string
		status     int
		stop       bool
		wantStderr []string // each must be in stderr; none: stderr empty
	}{
		{[]string{"-n", "3", "rest"}, 0, false, nil},
		{nil, 0, false, nil},
		{[]string{"-h"}, 0, true, []string{testUsage, "-n"}},
		{[]string{"-help"}, 0, true, []string{testUsage}},
		{[]string{"-nosuch"}, 2, true, []string{"-nosuch", testUsage}},
		{[]string{"-n", "x"}, 2, true, []string{`invalid value "x"`, testUsage}},
		{[]string{"-n"}, 2, true, []string{"needs an argument", testUsage}},
	} {
		var stderr strings.Builder
		fs := NewFlagSet("demo", testUsage, &stderr)
		n := fs.Int("n", 1, "a number")
		status, stop := ParseArgs(fs, c.args)
		if status != c.status || stop != c.stop {
			t.Errorf("ParseArgs(%q) = %d, %v; want %d, %v", c.args, status, stop, c.status, c.stop)
		}
		if c.wantStderr == nil && stderr.Len() > 0 {
			t.Errorf("ParseArgs(%q) printed %q; want nothing", c.args, stderr.String())
		}
		for _, want := range c.wantStderr {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("ParseArgs(%q) printed %q; want %q in it", c.args, stderr.String(), want)
			}
		}
		if !stop && len(c.args) > 0 && (*n != 3 || fs.Arg(0) != "rest") {
			t.Errorf("ParseArgs(%q): -n %d, first argument %q; want 3, rest", c.args, *n, fs.Arg(0))
		}
	}
}

// TestFail: a failed check is printed as NAME: message, then the usage
// with the flags' defaults, and the status is 2.
func TestFail(t *testing.T) {
	var stderr strings.Builder
	fs := NewFlagSet("demo", testUsage, &stderr)
	fs.Int("n", 1, "a number")
	if status := Fail(fs, errors.New("-n must be odd")); status != 2 {
		t.Errorf("Fail = %d, want 2", status)
	}
	got := stderr.String()
	if want := "demo: -n must be odd\n" + testUsage; !strings.HasPrefix(got, want) {
		t.Errorf("Fail printed %q; want it to start with %q", got, want)
	}
	if !strings.Contains(got, "a number (default 1)") {
		t.Errorf("Fail printed %q; want the flags' defaults after the usage", got)
	}

	stderr.Reset()
	if status := Failf(fs, "unknown mode %q", "x"); status != 2 {
		t.Errorf("Failf = %d, want 2", status)
	}
	if want := "demo: unknown mode \"x\"\n" + testUsage; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("Failf printed %q; want it to start with %q", stderr.String(), want)
	}
}

// TestParseFlagsOnly: Parse takes flags, and stops with 2 at the first
// argument left after them, naming it before the usage.
func TestParseFlagsOnly(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		stop   bool
		stderr string
	}{
		{[]string{"-v"}, 0, false, ""},
		{nil, 0, false, ""},
		{[]string{"-v", "extra", "more"}, 2, true, "demo: unexpected argument \"extra\"\n" + testUsage},
		{[]string{"-h"}, 0, true, testUsage},
	} {
		var stderr strings.Builder
		fs := NewFlagSet("demo", testUsage, &stderr)
		fs.Bool("v", false, "verbose")
		status, stop := Parse(fs, c.args)
		if status != c.status || stop != c.stop {
			t.Errorf("Parse(%q) = %d, %v; want %d, %v", c.args, status, stop, c.status, c.stop)
		}
		if !strings.HasPrefix(stderr.String(), c.stderr) || (c.stderr == "") != (stderr.Len() == 0) {
			t.Errorf("Parse(%q) printed %q; want it to start with %q", c.args, stderr.String(), c.stderr)
		}
	}
}

// TestChecks: Between, Check and First say what is wrong, and only then.
func TestChecks(t *testing.T) {
	if err := Between("c", 5, 1, 10); err != nil {
		t.Errorf("Between 5 in 1..10 = %v", err)
	}
	for _, v := range []int{0, 11} {
		if err := Between("c", v, 1, 10); err == nil || err.Error() != "-c must be between 1 and 10" {
			t.Errorf("Between %d in 1..10 = %v", v, err)
		}
	}
	if err := Check(true, "never %d", 1); err != nil {
		t.Errorf("Check(true) = %v", err)
	}
	second := Check(false, "second %d", 2)
	if err := First(nil, second, Check(false, "third")); err != second {
		t.Errorf("First = %v, want %v", err, second)
	}
	if err := First(nil, nil); err != nil {
		t.Errorf("First of nils = %v", err)
	}
}
