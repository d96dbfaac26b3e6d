//go:build pollfallback

package sock

import "testing"

// TestNewPollerIsPoll: with the pollfallback tag, every test of the
// chapter runs on the poll(2) fallback.
func TestNewPollerIsPoll(t *testing.T) {
	p, err := NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, ok := p.(*pollList); !ok {
		t.Errorf("NewPoller() is a %T, want the poll(2) fallback", p)
	}
}
