package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the pictures in docs/explore")

// docsDir is the repository's docs directory, seen from this package.
const docsDir = "../../docs"

// docPictures are the pictures of docs/explore.md: each is the explorer's
// drawing of one state, and the page links to that state.
var docPictures = []struct {
	file   string
	view   string
	rehash int
	cmds   []string
}{
	{"hashtable-resize.svg", "hashtable", 1, numbered("set k%d v", 1, 41)},
	{"avl-rotate-left.svg", "avl", bookRehash, []string{"add 1", "add 2", "add 3"}},
	{"avl-double-rotation.svg", "avl", bookRehash, []string{"add 30", "add 10", "add 20"}},
	{"zset.svg", "zset", bookRehash, numbered("zadd z %[1]d m%[1]d", 1, 8)},
	{"zset-update.svg", "zset", bookRehash, append(numbered("zadd z %[1]d m%[1]d", 1, 8), "zadd z 10 m1")},
	{"timers.svg", "timers", bookRehash, []string{"connect", "wait 1000", "connect", "wait 1000", "connect", "request 4"}},
	{"heap.svg", "heap", bookRehash, append(numbered("set k%d v", 1, 8), "pexpire k1 7000", "pexpire k2 6000", "pexpire k3 5000", "pexpire k4 4000", "pexpire k5 3000", "pexpire k6 2000", "pexpire k7 1000")},
	{"heap-update.svg", "heap", bookRehash, append(numbered("set k%d v", 1, 6), "pexpire k1 1000", "pexpire k2 2000", "pexpire k3 3000", "pexpire k4 4000", "pexpire k5 5000", "pexpire k1 4500")},
	{"keyspace.svg", "keyspace", bookRehash, []string{"set a 1", "set b 2", "zadd z 1 x", "zadd z 2 y", "pexpire a 2000", "pexpire z 1000"}},
	{"list.svg", "list", bookRehash, []string{"rpush a*3000 b*3000", "rpush c*3000", "lpush w*2000", "lpush v*5000"}},
	{"list-split.svg", "list", bookRehash, []string{"rpush a*2045 b*2045 c*2045 d*2034", "linsert before c*2045 n"}},
	{"blocking-queues.svg", "blocking", bookRehash, []string{"c1 blpop k1 k2", "c2 blpop k2 10"}},
	{"blocking-served.svg", "blocking", bookRehash, []string{"c1 blpop k1 k2", "c2 blpop k2 10", "rpush k2 x"}},
	{"blocking-chain.svg", "blocking", bookRehash, []string{"c1 blmove a b", "c2 blmove b c", "c3 blpop c", "rpush a x"}},
}

// TestDocPictures checks that docs/explore holds what the explorer draws
// today, and that docs/explore.md shows each picture with the link to its
// state. go test ./tools/explore -run TestDocPictures -update rewrites the
// pictures.
func TestDocPictures(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(docsDir, "explore.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(docsDir, "explore")
	want := map[string]bool{}
	for _, p := range docPictures {
		want[p.file] = true
		v := byName(p.view)
		_, pic := replay(v, p.cmds, p.rehash, len(p.cmds))
		path := filepath.Join(dir, p.file)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(pic), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if got, err := os.ReadFile(path); err != nil || string(got) != pic {
			t.Errorf("docs/explore/%s is stale or missing (go test ./tools/explore -run TestDocPictures -update)", p.file)
		}
		if !strings.Contains(string(md), "(explore/"+p.file+")") {
			t.Errorf("docs/explore.md does not show explore/%s", p.file)
		}
		link := "http://127.0.0.1:8080/" + state{view: v, cmds: p.cmds, rehash: p.rehash}.query(len(p.cmds))
		if !strings.Contains(string(md), link) {
			t.Errorf("docs/explore.md does not link %s to its state:\n%s", p.file, link)
		}
	}
	// No picture is left behind by a renamed one.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("docs/explore/%s: no test draws it", e.Name())
		}
	}
}
