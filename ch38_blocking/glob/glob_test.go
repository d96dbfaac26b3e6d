package glob

import (
	"strings"
	"testing"
)

// tests are the glob cases KEYS relies on, and the corners of sets and
// escapes.
var tests = []struct {
	pattern, s string
	want       bool
}{
	{"*", "", true},
	{"*", "anything", true},
	{"h*llo", "hello", true},
	{"h*llo", "heeeello", true},
	{"h*llo", "hellx", false},
	{"h?llo", "hallo", true},
	{"h?llo", "hllo", false},
	{"h[ae]llo", "hello", true},
	{"h[ae]llo", "hillo", false},
	{"h[^e]llo", "hallo", true},
	{"h[^e]llo", "hello", false},
	{"h[a-b]llo", "hbllo", true},
	{"h[a-b]llo", "hcllo", false},
	{`h\*llo`, "h*llo", true},
	{`h\*llo`, "hello", false},
	{"user:*:name", "user:42:name", true},
	{"user:*:name", "user:42:age", false},
	{"a**b", "ab", true},
	// More: empty pattern and string, ranges written backwards, escapes
	// in sets, unclosed sets, a \ at the end, stars that must backtrack.
	{"", "", true},
	{"", "a", false},
	{"a", "", false},
	{"?", "", false},
	{"[a]", "", false},
	{"h[b-a]llo", "hallo", true},
	{`[\]]`, "]", true},
	{`[\^]`, "^", true},
	{"[^]", "x", true},
	{"[abc", "b", true},
	{"x[abc", "xb", true},
	{"[a-]", "-", true},
	{`a\`, `a\`, true},
	{`a\`, "a", false},
	{"*a", "bba", true},
	{"*a*b", "aaaab", true},
	{"*a*b", "aaaa", false},
	{"*ab*cd", "xxabyyabzzcd", true},
	{"*?", "", false},
	{"*?", "x", true},
	{"a*b*c", "abxbxc", true},
	{"a*b*c", "abxbxcx", false},
	{"*[0-9]", "key9", true},
	{"**a**", "bab", true},
}

func TestMatch(t *testing.T) {
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
		if got := reference(tt.pattern, tt.s, new(int)); got != tt.want {
			t.Errorf("reference(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// bound is the most steps match may take: at most len(s)+1 retries after a
// *, plus the start, each of at most one step per byte of the pattern and
// one more.
func bound(pattern, s string) int { return (len(pattern) + 2) * (len(s) + 2) }

// TestPathological: patterns whose stars must all backtrack take a number
// of steps within the bound, where the backtracking matcher takes steps
// without end. Steps, not time: the verdict does not depend on the machine.
func TestPathological(t *testing.T) {
	a100 := strings.Repeat("a", 100)
	for _, tt := range []struct {
		pattern, s string
		want       bool
	}{
		{"*a*a*a*a*a*a*a*a*a*a*a*ab", a100, false},
		{strings.Repeat("*a", 50) + "b", a100, false},
		{strings.Repeat("*a", 50), a100, true},
		{strings.Repeat("*?", 101), a100, false},
		{strings.Repeat("*[a-z]", 30) + "*[0-9]", a100, false},
		{"*" + strings.Repeat("a", 99) + "b", strings.Repeat("a", 10000), false},
		{"a*" + strings.Repeat("*", 1000) + "b", "a" + strings.Repeat("x", 1000), false},
	} {
		got, steps := match(tt.pattern, tt.s)
		if got != tt.want {
			t.Errorf("Match(%.30q..., %d bytes) = %v, want %v", tt.pattern, len(tt.s), got, tt.want)
		}
		if b := bound(tt.pattern, tt.s); steps > b {
			t.Errorf("Match(%.30q..., %d bytes) took %d steps, more than %d", tt.pattern, len(tt.s), steps, b)
		}
	}
	// The backtracking matcher on a small case of the same shape: five
	// stars against thirty a's already take over a hundred thousand calls.
	pattern, s := "*a*a*a*a*ab", strings.Repeat("a", 30)
	refSteps := 0
	reference(pattern, s, &refSteps)
	_, steps := match(pattern, s)
	t.Logf("%q against %d a's: %d steps, the backtracking matcher %d", pattern, len(s), steps, refSteps)
	if refSteps < 100000 || steps > bound(pattern, s) {
		t.Errorf("%q against %d a's: %d steps, the backtracking matcher %d", pattern, len(s), steps, refSteps)
	}
}

// TestBoundOnAll holds every case of the table to the bound too.
func TestBoundOnAll(t *testing.T) {
	for _, tt := range tests {
		if _, steps := match(tt.pattern, tt.s); steps > bound(tt.pattern, tt.s) {
			t.Errorf("Match(%q, %q) took %d steps, more than %d", tt.pattern, tt.s, steps, bound(tt.pattern, tt.s))
		}
	}
}

// FuzzMatch compares Match with the backtracking reference on short
// inputs (where the reference's cost stays small), and holds it to the
// bound on any input.
func FuzzMatch(f *testing.F) {
	for _, tt := range tests {
		f.Add(tt.pattern, tt.s)
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		got, steps := match(pattern, s)
		if b := bound(pattern, s); steps > b {
			t.Fatalf("Match(%q, %q) took %d steps, more than %d", pattern, s, steps, b)
		}
		if len(s) > 16 || len(pattern) > 24 || strings.Count(pattern, "*") > 5 {
			return
		}
		if want := reference(pattern, s, new(int)); got != want {
			t.Fatalf("Match(%q, %q) = %v, the reference says %v", pattern, s, got, want)
		}
	})
}

// reference is the obvious recursive matcher, the kind that backtracks
// without bound, counting its calls in *calls: a * tries every length and
// recurses for the rest of the pattern.
func reference(pattern, s string, calls *int) bool {
	*calls++
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if reference(pattern[1:], s[i:], calls) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			var ok bool
			if ok, pattern = matchSet(pattern[1:], s[0]); !ok {
				return false
			}
			s = s[1:]
		default:
			if pattern[0] == '\\' && len(pattern) > 1 {
				pattern = pattern[1:]
			}
			if len(s) == 0 || s[0] != pattern[0] {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		}
	}
	return len(s) == 0
}

// BenchmarkPathological: the pattern that froze the server, against one
// key of a hundred a's.
//
//	go test -run '^$' -bench . example.com/byor/ch38_blocking/glob
func BenchmarkPathological(b *testing.B) {
	s := strings.Repeat("a", 100)
	for b.Loop() {
		if Match("*a*a*a*a*a*a*a*a*a*a*a*ab", s) {
			b.Fatal("matched")
		}
	}
}

// TestMatchLimit: with room enough, MatchLimit answers as Match and says
// how many steps it took; with one step less, it gives up; a long set
// costs its length, so a pattern of one set of n bytes cannot be matched
// in fewer than n steps.
func TestMatchLimit(t *testing.T) {
	for _, tt := range []struct{ pattern, s string }{
		{"*a*a*ab", strings.Repeat("a", 50)},
		{"user:*", "user:42"},
		{"[" + strings.Repeat("x", 100) + "a]", "a"},
	} {
		want, steps := match(tt.pattern, tt.s)
		got, n, done := MatchLimit(tt.pattern, tt.s, steps)
		if got != want || n != steps || !done {
			t.Errorf("MatchLimit(%q, %q, %d) = %v, %d, %v; want %v, %d, true", tt.pattern, tt.s, steps, got, n, done, want, steps)
		}
		if _, n, done := MatchLimit(tt.pattern, tt.s, steps-1); done || n != steps {
			t.Errorf("MatchLimit(%q, %q, %d) = _, %d, %v; want it to give up at %d", tt.pattern, tt.s, steps-1, n, done, steps)
		}
	}
	if _, steps := match("["+strings.Repeat("x", 100)+"a]", "a"); steps < 100 {
		t.Errorf("a set of 102 bytes matched in %d steps", steps)
	}
}
