package chapters

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRegistryMatchesTree: every chapter directory with a server is in the
// registry, in book order, and every registered one exists.
func TestRegistryMatchesTree(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	chs, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, ch := range chs {
		if _, err := os.Stat(filepath.Join(root, ch.Name, "cmd", "server")); err == nil {
			onDisk = append(onDisk, ch.Name)
		}
	}
	if !slices.Equal(onDisk, Dirs()) {
		t.Errorf("chapters with a server on disk %v; registry %v", onDisk, Dirs())
	}
	prev := 0
	for _, c := range All() {
		if c.Num <= prev || c.Dir[2:4] != c.ID[2:] || ByID(c.ID) != c || ByDir(c.Dir) != c {
			t.Errorf("entry %s (%s) out of order or inconsistent", c.ID, c.Dir)
		}
		prev = c.Num
		if len(c.Protocols) == 0 || c.Protocols[0] == RESP || !c.HasFlag(FlagAddr) {
			t.Errorf("%s: the -addr listener speaks one of the book's formats", c.ID)
		}
		if c.Has(RESPListener) != (c.Newest() == RESP) || c.Has(RESPListener) != c.HasFlag(FlagRESPAddr) {
			t.Errorf("%s: RESP listener, protocol and -resp-addr disagree", c.ID)
		}
	}
}

// TestServerFlags: the flags the registry lists are the ones each
// chapter's server declares (fs.String("addr", ...) and the like in its
// server package).
func TestServerFlags(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	names := map[Flag]string{FlagAddr: "addr", FlagIdleTimeout: "idle-timeout", FlagLogConns: "log-conns", FlagRESPAddr: "resp-addr", FlagSave: "save"}
	for _, c := range All() {
		files, _ := filepath.Glob(filepath.Join(root, c.Dir, "server", "*.go"))
		var src []byte
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src = append(src, b...)
		}
		for f, name := range names {
			// A flag set's method names it first: fs.String("save", ...),
			// not CONFIG's respConfigSet("save", ...).
			declared := regexp.MustCompile(`\bfs\.[A-Z][A-Za-z0-9]*\("` + regexp.QuoteMeta(name) + `", `).Match(src)
			if declared != c.HasFlag(f) {
				t.Errorf("%s: the server declares -%s: %v; the registry says %v", c.ID, name, declared, c.HasFlag(f))
			}
		}
	}
}
