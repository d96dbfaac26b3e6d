package hostile

import (
	"strings"
	"testing"
	"time"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// TestKeysPatternLinear: a KEYS pattern whose stars must all backtrack
// (chapter 17, in Redis's protocol) is answered at once. The recursive
// glob matcher tried every split of the key between the stars: against
// one key of a hundred a's, 5 stars took 0.65 s, 6 took 4.4 s, and this
// pattern's 12 would never end, with every client waiting. The deadline
// only guards against that hang; the other client's get checks the loop
// is free again.
func TestKeysPatternLinear(t *testing.T) {
	eachChapter(t, withFeature(chapters.RESPListener), testKeysPatternLinear)
}

func testKeysPatternLinear(t *testing.T, ch string) {
	p := startServer(t, ch, 0, longIdle...)
	c := dial(t, p.Addr)
	key := strings.Repeat("a", 100)
	c.do("set", key, "v")
	c.do("set", "other", "v")
	r := dialRESP(t, respAddr(t, p))
	start := time.Now()
	if got := r.do(30*time.Second, "KEYS", "*a*a*a*a*a*a*a*a*a*a*a*ab"); got != "*0" {
		t.Fatalf("KEYS *a*a...*ab: %q, want an empty array", got)
	}
	t.Logf("KEYS *a*a*a*a*a*a*a*a*a*a*a*ab over a key of 100 a's answered in %v", time.Since(start))
	// The same stars, matching: the key, and only it.
	if got := r.do(30*time.Second, "KEYS", "*a*a*a*a*a*a*a*a*a*a*a*a"); got != "*1" {
		t.Fatalf("KEYS *a*a...*a: %q, want one key", got)
	}
	if got := r.line(); got != "$100" {
		t.Fatalf("KEYS *a*a...*a: %q, want the 100-byte key", got)
	}
	if got := r.line(); got != key {
		t.Fatalf("KEYS *a*a...*a: %q, want the key of a's", got)
	}
	if v := c.do("get", "other"); v.Tag != wire.TagStr {
		t.Fatalf("get other: %v", v)
	}
}
