package server

import "testing"

// TestCmdIs pins command-name matching to the book's strcasecmp in the C
// locale: only the ASCII letters fold.
func TestCmdIs(t *testing.T) {
	tests := []struct {
		word, cmd string
		want      bool
	}{
		{"get", "get", true},
		{"GET", "get", true},
		{"gEt", "get", true},
		{"ZQUERY", "zquery", true},
		{"ge", "get", false},
		{"gets", "get", false},
		{"", "get", false},
		{"get ", "get", false},
		// Unicode folding would match these: the long s folds to s, the
		// Kelvin sign to k.
		{"\u017fet", "set", false},
		{"\u212aeys", "keys", false},
		{"\u212aEYS", "keys", false},
		// strcasecmp stops at a NUL; here the whole name must match.
		{"get\x00", "get", false},
		{"get\x00x", "get", false},
		// Bytes 0x20 apart that are not letters: '@' and '`', '[' and '{'.
		{"@", "`", false},
		{"[", "{", false},
		{"\xc1", "\xe1", false}, // Latin-1 A and a with acute: not ASCII
	}
	for _, tt := range tests {
		if got := cmdIs(tt.word, tt.cmd); got != tt.want {
			t.Errorf("cmdIs(%q, %q) = %v, want %v", tt.word, tt.cmd, got, tt.want)
		}
	}
}
