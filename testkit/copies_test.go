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
