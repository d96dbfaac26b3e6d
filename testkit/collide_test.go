package testkit

import "testing"

// TestBookCollisions: the names are all different and share one hash.
func TestBookCollisions(t *testing.T) {
	names := BookCollisions(1 << 12)
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Fatalf("%q twice", name)
		}
		seen[name] = true
		if bookHash(name) != bookHash(names[0]) {
			t.Fatalf("%q: hash %#x, the first name's %#x", name, bookHash(name), bookHash(names[0]))
		}
	}
}
