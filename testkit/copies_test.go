package testkit

import (
	"path/filepath"
	"testing"
)

func TestEarlierCopy(t *testing.T) {
	root := t.TempDir()
	WriteFiles(t, root, map[string]string{
		"ch01_one/pkg/a.go":          "package pkg // example.com/byor/ch01_one/pkg\n",
		"ch01_one/pkg/testdata/x":    "x",
		"ch03_three/pkg/a.go":        "package pkg // example.com/byor/ch03_three/pkg\n",
		"ch03_three/pkg/testdata/x":  "x",
		"ch04_four/pkg/a.go":         "package pkg // example.com/byor/ch04_four/pkg\n",
		"ch04_four/pkg/testdata/x":   "x",
		"ch04_four/pkg/b.go":         "package pkg\n",
		"ch05_five/pkg/a.go":         "package pkg // changed\n",
		"ch05_five/pkg/b.go":         "package pkg\n",
		"ch05_five/pkg/testdata/x":   "x",
		"ch06_six/other/a.go":        "package other\n",
		"ch07_seven/pkg/a.go":        "package pkg // changed\n",
		"ch07_seven/pkg/b.go":        "package pkg\n",
		"ch07_seven/pkg/testdata/x":  "y",
		"ch08_eight/pkg/sub/a.go":    "package sub\n",
		"ch09_nine/pkg/sub/a.go":     "package sub\n",
		"ch09_nine/pkg/sub/extra.go": "package sub\n",
		"ch10_ten/pkg/sub/a.go":      "package sub\n",
		// pkg is the same in all three, dep changes in ch12: ch12's pkg runs
		// other code than ch11's. dep's test imports pkg, a loop.
		"ch11_a/pkg/a.go":      "package pkg\nimport _ \"example.com/byor/ch11_a/dep\"\n",
		"ch11_a/dep/d.go":      "package dep\n",
		"ch11_a/dep/d_test.go": "package dep_test\nimport _ \"example.com/byor/ch11_a/pkg\"\n",
		"ch12_b/pkg/a.go":      "package pkg\nimport _ \"example.com/byor/ch12_b/dep\"\n",
		"ch12_b/dep/d.go":      "package dep // changed\n",
		"ch12_b/dep/d_test.go": "package dep_test\nimport _ \"example.com/byor/ch12_b/pkg\"\n",
		"ch13_c/pkg/a.go":      "package pkg\nimport _ \"example.com/byor/ch13_c/dep\"\n",
		"ch13_c/dep/d.go":      "package dep // changed\n",
		"ch13_c/dep/d_test.go": "package dep_test\nimport _ \"example.com/byor/ch13_c/pkg\"\n",
	})
	for _, tt := range []struct{ dir, want string }{
		{"ch01_one/pkg", ""},               // the first
		{"ch03_three/pkg", "ch01_one/pkg"}, // the same, module path folded, across a gap
		{"ch04_four/pkg", ""},              // a file more
		{"ch05_five/pkg", ""},              // a file changed
		{"ch06_six/other", ""},             // no earlier copy
		{"ch07_seven/pkg", ""},             // testdata changed
		{"ch09_nine/pkg/sub", ""},          // a file more, in a nested package
		{"ch08_eight/pkg/sub", ""},         // ch05's and ch07's pkg have no sub
		{"ch10_ten/pkg/sub", ""},           // a file fewer
		{"ch12_b/pkg", ""},                 // the same files, a package it imports changed
		{"ch13_c/pkg", "ch12_b/pkg"},       // the same files on the same packages
		{"ch13_c/dep", "ch12_b/dep"},       // the same, through the loop
	} {
		got, err := EarlierCopy(filepath.Join(root, tt.dir))
		if err != nil {
			t.Fatalf("%s: %v", tt.dir, err)
		}
		if got != filepath.FromSlash(tt.want) {
			t.Errorf("EarlierCopy(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
	if _, err := EarlierCopy(filepath.Join(root, "ch01_one")); err == nil {
		t.Errorf("a chapter's root package: no error")
	}
	// A package outside any chapter's directory (a workshop's copy) has no
	// earlier copy: its tests run.
	if got, err := EarlierCopy(t.TempDir()); got != "" || err != nil {
		t.Errorf("a package in no chapter's directory: %q, %v; want its tests run", got, err)
	}
}
