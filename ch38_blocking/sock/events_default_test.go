//go:build !pollfallback && linux

package sock

import "testing"

// TestNewPollerIsEpoll: without the pollfallback tag, Linux gets epoll.
func TestNewPollerIsEpoll(t *testing.T) {
	p, err := NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, ok := p.(*epoller); !ok {
		t.Errorf("NewPoller() is a %T, want epoll", p)
	}
}
