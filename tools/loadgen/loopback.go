package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// lookupHost resolves a host name with the system's resolver.
func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// resolveLoopback checks that addr (host:port) names only loopback addresses
// and returns the ip:port to dial. A name is resolved once, here, and every
// address it resolves to must be loopback; dialing the checked address rather
// than the name keeps a second lookup from pointing somewhere else.
func resolveLoopback(ctx context.Context, addr string, lookup func(context.Context, string) ([]netip.Addr, error)) (string, error) {
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
			return "", fmt.Errorf("-addr %q: refusing non-loopback address %v: this load generator only targets servers on this machine", addr, ip)
		}
	}
	return net.JoinHostPort(ips[0].Unmap().String(), port), nil
}
