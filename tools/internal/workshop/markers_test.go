package workshop

import (
	"errors"
	"strings"
	"testing"
)

const goodSrc = `package p

import (
	"fmt"
	"strings"
)

// Shout is partly an exercise.
func Shout(s string) string {
	// exercise: ch99-shout
	s = strings.ToUpper(s)
	return s + "!"
	// end exercise: ch99-shout
}

func (t *T[X]) Say(s string) {
	// exercise: ch99-shout
	fmt.Println(s)
	// end exercise: ch99-shout
}

func Other() int {
	// exercise: ch98-other
	return 1
	// end exercise: ch98-other
}

type T[X any] struct{}
`

func TestParseMarkersFindsRegions(t *testing.T) {
	regions, err := ParseMarkers("p.go", []byte(goodSrc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range regions {
		got = append(got, r.ID)
	}
	if want := "ch99-shout ch99-shout ch98-other"; strings.Join(got, " ") != want {
		t.Errorf("regions %v, want %s", got, want)
	}
	if r := regions[0]; r.BeginLine != 10 || r.EndLine != 13 || r.Indent != "\t" {
		t.Errorf("first region %+v, want lines 10-13 indented by a tab", r)
	}
}

func TestCutStubsOnlyTheAskedExercise(t *testing.T) {
	out, fns, err := Cut("p.go", []byte(goodSrc), "ch99-shout")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(fns, ",") != "Shout,T.Say" {
		t.Errorf("stubbed %v, want Shout and T.Say", fns)
	}
	s := string(out)
	for _, want := range []string{
		`panic("exercise ch99-shout: implement Shout")`,
		`panic("exercise ch99-shout: implement T.Say")`,
		"return 1", // the other exercise's solution stays
	} {
		if !strings.Contains(s, want) {
			t.Errorf("cut file lacks %q:\n%s", want, s)
		}
	}
	for _, gone := range []string{"ToUpper", "Println", `"fmt"`, `"strings"`, "// exercise:", "// end exercise:"} {
		if strings.Contains(s, gone) {
			t.Errorf("cut file still has %q:\n%s", gone, s)
		}
	}
}

func TestCutPartOfAFunction(t *testing.T) {
	src := "package p\n\nfunc F() int {\n\tx := 1\n\t// exercise: ch99-part\n\tx++\n\t// end exercise: ch99-part\n\treturn x\n}\n"
	out, fns, err := Cut("p.go", []byte(src), "ch99-part")
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 1 || fns[0] != "the marked part of F" {
		t.Errorf("stubbed %v, want the marked part of F", fns)
	}
	if !strings.Contains(string(out), "if true {") || strings.Contains(string(out), "x++") {
		t.Errorf("partial region not stubbed behind if true:\n%s", out)
	}
}

func TestCutWithoutRegionsOnlyDropsMarkers(t *testing.T) {
	out, fns, err := Cut("p.go", []byte(goodSrc), "ch97-none")
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 0 {
		t.Errorf("stubbed %v for an exercise without markers", fns)
	}
	want := strings.Count(goodSrc, "\n") - 6
	if got := strings.Count(string(out), "\n"); got != want || strings.Contains(string(out), "exercise:") {
		t.Errorf("got %d lines, want %d with markers gone:\n%s", got, want, out)
	}
}

func TestBadMarkers(t *testing.T) {
	body := func(lines ...string) string {
		return "package p\n\nfunc F() {\n" + strings.Join(lines, "\n") + "\n}\n"
	}
	cases := []struct {
		name, src, want string
	}{
		{"nested", body("\t// exercise: ch99-a", "\t// exercise: ch99-b", "\tprintln()", "\t// end exercise: ch99-b", "\t// end exercise: ch99-a"), "do not nest"},
		{"unclosed", body("\t// exercise: ch99-a", "\tprintln()"), "never closed"},
		{"end without begin", body("\tprintln()", "\t// end exercise: ch99-a"), "without its beginning"},
		{"closed by another id", body("\t// exercise: ch99-a", "\tprintln()", "\t// end exercise: ch99-b"), "closes exercise ch99-a"},
		{"empty", body("\t// exercise: ch99-a", "", "\t// end exercise: ch99-a"), "cuts nothing"},
		{"bad id", body("\t// exercise: Chapter 9", "\tprintln()", "\t// end exercise: Chapter 9"), "bad exercise id"},
		{"duplicated in one function", body("\t// exercise: ch99-a", "\tprintln()", "\t// end exercise: ch99-a", "\t// exercise: ch99-a", "\tprintln()", "\t// end exercise: ch99-a"), "marks F twice"},
		{"outside a function", "package p\n\n// exercise: ch99-a\nvar x = 1\n\n// end exercise: ch99-a\n", "inside one function body"},
		{"across functions", "package p\n\nfunc F() {\n\t// exercise: ch99-a\n\tprintln()\n}\n\nfunc G() {\n\tprintln()\n\t// end exercise: ch99-a\n}\n", "inside one function body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Cut("p.go", []byte(c.src), "ch99-a")
			var me *MarkerError
			if !errors.As(err, &me) {
				t.Fatalf("Cut: got error %v, want a MarkerError", err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "p.go:") {
				t.Errorf("error %q, want it to name p.go and say %q", err, c.want)
			}
		})
	}
}
