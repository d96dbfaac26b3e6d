package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/byor/tools/internal/cmdflag/cmdflagtest"
	"example.com/byor/tools/internal/workshop"
)

func TestUsageErrors(t *testing.T) {
	cmdflagtest.UsageErrors(t, run, "usage:", [][]string{
		nil,
		{"bogus"},
		{"list", "extra"},
		{"start", "ch07-parse-request"},
		{"check"},
		{"-nosuchflag", "list"},
	})
	cmdflagtest.Help(t, run, "usage:\n  workshop list")
}

func TestListShowsEveryExercise(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"list"}, &out, &errs); code != 0 {
		t.Fatalf("list = %d: %s", code, errs.String())
	}
	for _, id := range []string{"ch04-framing", "ch10-avl-rotate", "ch14-pool-queue"} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("list lacks %s:\n%s", id, out.String())
		}
	}
}

// TestInstructorPageListsEveryExercise keeps docs/workshop.md's table in
// step with the catalog.
func TestInstructorPageListsEveryExercise(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(root, "docs", "workshop.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range workshop.Catalog {
		row := fmt.Sprintf("| `%s` | [%s](../%s) | %s | %d |\n", ex.ID, ex.Chapter, ex.Chapter, ex.Task, ex.Minutes)
		if !strings.Contains(string(page), row) {
			t.Errorf("docs/workshop.md lacks the row\n%s", row)
		}
	}
}
