package server

import (
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFloorPlan checks the package comment's floor plan against the
// directory: every file of the package is named in it, and every file it
// names exists, so that a file added, renamed or removed without the map
// fails here.
func TestFloorPlan(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	_, plan, ok := strings.Cut(doc, "# Floor plan")
	if !ok {
		t.Fatal("doc.go's package comment has no \"# Floor plan\" section")
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b[a-z0-9_]+\.go\b`).FindAllString(plan, -1) {
		named[m] = true
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, name)
		}
	}
	for _, name := range files {
		if name != "doc.go" && !named[name] {
			t.Errorf("%s is not in doc.go's floor plan", name)
		}
	}
	for name := range named {
		if !slices.Contains(files, name) && !strings.HasSuffix(name, "_test.go") {
			t.Errorf("doc.go's floor plan names %s, which is not in the package", name)
		}
	}
}
