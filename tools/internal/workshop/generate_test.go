package workshop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartEveryExercise writes every exercise of the catalog from the
// repository and checks what the learner gets: each stub in place, a
// README naming them, the exact lines the tests expect the cut code to
// print, and client commands that the chapter's client accepts. (Whether
// the stubs fail and the solutions pass is the heavy matrix in
// tools/workshop.)
func TestStartEveryExercise(t *testing.T) {
	const repo = "../../.."
	// Lines the tests compare, which the cut code prints: the learner must
	// find them in the README.
	mustShow := map[string][]string{
		"ch04-framing":       nil,
		"ch06-state-machine": {"stdout: client says: %s", "stderr: EOF"},
		"ch12-idle-timers":   {"stdout: removing idle connection: %d"},
	}
	for _, ex := range Catalog {
		t.Run(ex.ID, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "ex")
			stubbed, err := Start(repo, ex, dir)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			readme := string(data)
			for _, s := range stubbed {
				if !strings.Contains(readme, "- "+s+"\n") {
					t.Errorf("README does not list the stub %s", s)
				}
			}
			for _, want := range mustShow[ex.ID] {
				if !strings.Contains(readme, "    "+want+"\n") {
					t.Errorf("README does not show the expected line %q:\n%s", want, readme)
				}
			}
			if strings.Contains(readme, "exercise:") {
				t.Errorf("README shows a marker")
			}

			// The client commands shown must suit the chapter's client:
			// up to ch06 it takes no command.
			src, err := os.ReadFile(filepath.Join(repo, ex.Chapter, "client", "client.go"))
			if err != nil {
				t.Fatal(err)
			}
			takesCmd := strings.Contains(string(src), "cmd [arg ...]")
			for _, c := range ClientCommands(ex.Chapter) {
				if !strings.Contains(readme, "    "+c+"\n") {
					t.Errorf("README lacks the client command %q", c)
				}
				args := strings.Fields(strings.SplitN(c, "#", 2)[0])[3:]
				if takesCmd != (len(args) > 0) {
					t.Errorf("README's client command %q does not suit %s's client (takes a command: %v)", c, ex.Chapter, takesCmd)
				}
			}

			// Every stub is in a Go file, and no marker is left anywhere.
			panics := 0
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				panics += strings.Count(string(b), `panic("exercise `+ex.ID+": implement ")
				if !strings.Contains(p, DepsDir) && strings.Contains(string(b), "// exercise:") {
					t.Errorf("%s keeps a marker", p)
				}
				return nil
			})
			if panics != len(stubbed) {
				t.Errorf("%d stubs' panics in the files, %d stubs reported", panics, len(stubbed))
			}
		})
	}
}

// TestPrintedLines: the lines the cut code prints, each once, with their
// stream; a format of values alone ("%v") names nothing to match.
func TestPrintedLines(t *testing.T) {
	src := "package p\n\nfunc f() {\n\t// exercise: ch01-x\n" +
		"\tmsg(\"EOF\")\n\tmsg(\"%v\", err)\n\tfmt.Printf(\"client says: %s\\n\", b)\n\tmsg(\"EOF\")\n" +
		"\t// end exercise: ch01-x\n\tmsg(\"not cut\")\n}\n"
	got, err := PrintedLines("p.go", []byte(src), "ch01-x")
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{"stderr", "EOF"}, {"stdout", "client says: %s"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("PrintedLines = %v, want %v", got, want)
	}
}

// TestExcerptShowsEachFailureOnce: a stub's panic reported by nine checks
// is shown once.
func TestExcerptShowsEachFailureOnce(t *testing.T) {
	var out strings.Builder
	for range 9 {
		out.WriteString("FAIL: keys lists (0.01s)\n    server log: panic: exercise ch09-serialize: implement OutStr\n")
	}
	got := excerpt(out.String(), 25)
	if n := strings.Count(got, "implement OutStr"); n != 1 {
		t.Errorf("the panic shows %d times:\n%s", n, got)
	}
}

// TestFirstStubPanic: the stub named is the one whose panic ended a test
// binary, not one quoted earlier in a log.
func TestFirstStubPanic(t *testing.T) {
	out := "    script_test.go:12: server said: exercise ch13-expiry: implement processTimers\n" +
		"panic: exercise ch13-expiry: implement nextTimerMs [recovered]\n"
	if _, fn, ok := firstStubPanic(out); !ok || fn != "nextTimerMs" {
		t.Errorf("firstStubPanic = %q, %v; want nextTimerMs", fn, ok)
	}
}
