// Package loadkit holds what the load tools (loadgen, ttlfill) share: the
// names of the keys they load, and the check that keeps them on loopback.
package loadkit

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// AppendKey appends the name of key number i, key:NNNNNN, its number
// zero-padded to pad digits (redis-benchmark's key:__rand_int__ has 12).
func AppendKey(dst []byte, i, pad int) []byte {
	dst = append(dst, "key:"...)
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(i), 10)
	for n := pad - len(d); n > 0; n-- {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// LookupHost resolves a host name with the system's resolver.
func LookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// ResolveLoopback checks that addr (host:port) names only loopback
// addresses and returns the ip:port to dial. A name is resolved once, here,
// with lookup, and every address it resolves to must be loopback; dialing
// the checked address rather than the name keeps a second lookup from
// pointing somewhere else. With a nil lookup, names are refused.
func ResolveLoopback(ctx context.Context, addr string, lookup func(context.Context, string) ([]netip.Addr, error)) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("-addr %q: %v", addr, err)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return "", fmt.Errorf("-addr %q: port must be a number from 1 to 65535", addr)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if lookup == nil {
		return "", fmt.Errorf("-addr %q: must be a loopback ip such as 127.0.0.1", addr)
	} else {
		ips, err = lookup(ctx, host)
		if err != nil {
			return "", fmt.Errorf("-addr %q: refusing an address that cannot be resolved to loopback: %v", addr, err)
		}
		if len(ips) == 0 {
			return "", fmt.Errorf("-addr %q: refusing: %s resolves to no address", addr, host)
		}
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return "", fmt.Errorf("-addr %q: refusing non-loopback address %v: the load tools only target servers on this machine", addr, ip)
		}
	}
	return net.JoinHostPort(ips[0].Unmap().String(), port), nil
}
