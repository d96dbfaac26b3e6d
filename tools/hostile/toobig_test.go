package hostile

import (
	"fmt"
	"strings"
	"testing"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// fieldChapters are the chapters with hashes whose fields expire.
var fieldChapters = withFeature(chapters.FieldTTL)

// TestTooBigReplyChangesNothing: a command refused because its reply would
// not fit in one message must not have changed the data.
func TestTooBigReplyChangesNothing(t *testing.T) {
	const n = 460
	value := strings.Repeat("v", 30)
	eachChapter(t, fieldChapters, func(t *testing.T, ch string) {
		p := startServer(t, ch, 0)
		c := dial(t, p.Addr)
		for i := 0; i < n; i += 50 {
			args := []string{"hset", "hb"}
			for j := i; j < min(i+50, n); j++ {
				args = append(args, fmt.Sprintf("f%d", j), value)
			}
			c.do(args...)
		}
		fields := func(k int) []string {
			out := []string{"FIELDS", fmt.Sprint(k)}
			for i := range k {
				out = append(out, fmt.Sprintf("f%d", i))
			}
			return out
		}
		for _, cmd := range [][]string{
			append([]string{"hgetex", "hb", "PXAT", "1"}, fields(300)...),
			append([]string{"hpexpire", "hb", "100000"}, fields(n)...),
			append([]string{"hpersist", "hb"}, fields(n)...),
		} {
			if v := c.do(cmd...); v.Tag != wire.TagErr || v.Code != 2 {
				t.Errorf("%s: got %v, want error 2 (response is too big)", cmd[0], v)
			}
			if v := c.do("hlen", "hb"); v.Tag != wire.TagInt || v.Int != n {
				t.Fatalf("after %s: hlen = %v, want %d", cmd[0], v, n)
			}
			if v := c.do("hpttl", "hb", "FIELDS", "1", "f0"); v.Tag != wire.TagArr || len(v.Arr) != 1 || v.Arr[0].Int != -1 {
				t.Fatalf("after %s: hpttl f0 = %v, want [-1]", cmd[0], v)
			}
		}
	})
}
