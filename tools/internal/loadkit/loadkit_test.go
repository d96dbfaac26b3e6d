package loadkit

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendKey(t *testing.T) {
	for _, tc := range []struct {
		i, pad int
		want   string
	}{
		{0, 6, "key:000000"},
		{42, 6, "key:000042"},
		{1234567, 6, "key:1234567"},
		{7, 12, "key:000000000007"},
		{7, 0, "key:7"},
	} {
		if diff := cmp.Diff(tc.want, string(AppendKey(nil, tc.i, tc.pad))); diff != "" {
			t.Errorf("AppendKey(%d, %d) (-want +got):\n%s", tc.i, tc.pad, diff)
		}
	}
}

func TestResolveLoopback(t *testing.T) {
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		return LookupHost(ctx, host)
	}
	accepted := map[string][]string{
		"127.0.0.1:1234": {"127.0.0.1:1234"},
		"127.1.2.3:80":   {"127.1.2.3:80"},
		"[::1]:1234":     {"[::1]:1234"},
		"localhost:1234": {"127.0.0.1:1234", "[::1]:1234"},
	}
	for addr, want := range accepted {
		got, err := ResolveLoopback(context.Background(), addr, lookup)
		if err != nil {
			t.Errorf("%s refused: %v", addr, err)
		} else if !strings.Contains(strings.Join(want, " "), got) {
			t.Errorf("%s resolved to %s, want one of %v", addr, got, want)
		}
	}
	// example.com is refused whether it resolves (to a public address) or,
	// without network access, does not resolve at all.
	for _, addr := range []string{"10.0.0.1:1234", "192.168.1.1:1234", "8.8.8.8:53",
		"example.com:1234", "[::ffff:10.0.0.1]:1234", "0.0.0.0:1234", "127.0.0.1:0", "127.0.0.1:http"} {
		if got, err := ResolveLoopback(context.Background(), addr, lookup); err == nil {
			t.Errorf("%s accepted (dial %s), want refused", addr, got)
		}
	}

	// A name with one non-loopback address among loopback ones is refused.
	mixed := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.1")}, nil
	}
	if _, err := ResolveLoopback(context.Background(), "db.test:1234", mixed); err == nil {
		t.Error("name resolving to 127.0.0.1 and 10.0.0.1 accepted")
	}
	failing := func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("no such host") }
	if _, err := ResolveLoopback(context.Background(), "db.test:1234", failing); err == nil {
		t.Error("unresolvable name accepted")
	}
	// The checked address is what gets dialed, not the name.
	mapped := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}, nil
	}
	if got, err := ResolveLoopback(context.Background(), "db.test:1234", mapped); err != nil || got != "127.0.0.1:1234" {
		t.Errorf("mapped loopback: got %q, %v; want 127.0.0.1:1234", got, err)
	}
}

// TestResolveLoopbackNoLookup: without a resolver, ips are checked and
// names refused.
func TestResolveLoopbackNoLookup(t *testing.T) {
	for _, tc := range []struct {
		addr, want string
		ok         bool
	}{
		{"127.0.0.1:1234", "127.0.0.1:1234", true},
		{"[::1]:80", "[::1]:80", true},
		{"127.9.9.9:1", "127.9.9.9:1", true},
		{"10.0.0.1:1234", "", false},
		{"localhost:1234", "", false},
		{"127.0.0.1:0", "", false},
		{"127.0.0.1", "", false},
	} {
		got, err := ResolveLoopback(context.Background(), tc.addr, nil)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ResolveLoopback(%q, nil) = %q, %v; want %q, ok=%v", tc.addr, got, err, tc.want, tc.ok)
		}
	}
}
