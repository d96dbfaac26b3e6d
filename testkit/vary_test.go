package testkit

import "testing"

func TestMatchVary(t *testing.T) {
	cases := []struct {
		got, want string
		unordered bool
		ok        bool
	}{
		{"(int) 42\n", "(int) «n=\\d+»\n", false, true},
		{"(int) x\n", "(int) «n=\\d+»\n", false, false},
		{"a\nb\n", "b\na\n", false, false},
		{"a\nb\n", "b\na\n", true, true},
		{"a\n", "a\na\n", true, false},
		{"a\nb", "a\nb\n", false, false}, // no final newline
		{"", "", false, true},
		// First-fit would give "a1" to the wider placeholder and then find
		// nothing for "ab": only a full matching pairs them all.
		{"a1\nab\n", "a«any=.»\na«digit=\\d»\n", true, true},
	}
	for _, c := range cases {
		ok, err := MatchVary(c.got, c.want, c.unordered)
		if err != nil || ok != c.ok {
			t.Errorf("MatchVary(%q, %q, %v) = %v, %v; want %v", c.got, c.want, c.unordered, ok, err, c.ok)
		}
	}
	if _, err := MatchVary("x\n", "«broken\n", false); err == nil {
		t.Error("an unclosed placeholder is not reported")
	}
}
