package scriptread

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"example.com/byor/testkit"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []Word
	}{
		{`exec client -addr $ADDR set k 'a b'`, []Word{{"exec", false}, {"client", false}, {"-addr", false}, {"$ADDR", true}, {"set", false}, {"k", false}, {"a b", false}}},
		{`x 'it''s' '' y# comment`, []Word{{"x", false}, {"it's", false}, {"", false}, {"y", false}}},
		{"\ta\t b ", []Word{{"a", false}, {"b", false}}},
		{`'$ADDR'`, []Word{{"$ADDR", false}}},
	} {
		got, err := Words(c.line)
		if err != nil || !cmp.Equal(got, c.want) {
			t.Errorf("Words(%q) = %v, %v; want %v", c.line, got, err, c.want)
		}
	}
	if _, err := Words("a 'open"); err == nil {
		t.Errorf("an unterminated quote was accepted")
	}
}

func TestParse(t *testing.T) {
	l, err := Parse("[linux] ! exec client -addr $ADDR get 'k'")
	want := Line{Conds: []string{"linux"}, Negated: true, Name: "exec", Args: []Word{{"client", false}, {"-addr", false}, {"$ADDR", true}, {"get", false}, {"k", false}}}
	if err != nil || !cmp.Equal(l, want) {
		t.Errorf("Parse = %+v, %v; want %+v", l, err, want)
	}
	if l, err := Parse("# only a comment"); err != nil || l.Name != "" {
		t.Errorf("a comment: %+v, %v", l, err)
	}
	if _, err := Parse("!"); err == nil {
		t.Errorf("a lone ! was accepted")
	}
}

// TestPlaceholdersAgreeWithTheHarness: what Placeholders accepts is what
// the harness's cmpvary accepts, and Show names every placeholder.
func TestPlaceholdersAgreeWithTheHarness(t *testing.T) {
	for _, c := range []struct{ line, show string }{
		{"(int) «ms=9\\d{4}|100000»", "(int) <ms>"},
		{"plain text", "plain text"},
		{"«a=x»-«b=y+»", "<a>-<b>"},
		{"unclosed «a=x", ""},
		{"«=x» no name", ""},
		{"«a» no pattern", ""},
		{"«a=(» bad pattern", ""},
	} {
		got, err := Show(c.line)
		_, herr := testkit.MatchVary("", c.line+"\n", false)
		if (err == nil) != (herr == nil) {
			t.Errorf("%q: scriptread says %v, the harness %v", c.line, err, herr)
		}
		if err == nil && got != c.show {
			t.Errorf("Show(%q) = %q, want %q", c.line, got, c.show)
		}
	}
}
