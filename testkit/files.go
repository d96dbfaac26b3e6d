package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles creates the files under root, making their directories; the
// keys are slash-separated paths relative to root, the values contents.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
