package netproxy

import (
	"context"
	"net"
	"net/netip"
)

// Resolver turns a host name into addresses. The proxy resolves every name
// itself (the sandbox has no DNS); tests replace it.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// systemResolver uses the Go resolver of the hew process.
func systemResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// internalPrefixes are ranges that are not the public internet: the
// proxy never connects to them unless a rule names the host exactly.
var internalPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // carrier-grade NAT
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local (cloud metadata lives here)
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, broadcast
		"::/128",          // unspecified
		"::1/128",         // loopback
		"fc00::/7",        // unique local
		"fe80::/10",       // link-local
		"ff00::/8",        // multicast
		"100::/64",        // discard
		"2001:db8::/32",   // documentation
		"64:ff9b:1::/48",  // local-use NAT64
		"::ffff:0:0/96",   // IPv4-mapped (checked unmapped as well)
		"::ffff:0:0:0/96", // IPv4-translated
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Internal reports whether a is loopback, private, link-local, unspecified,
// multicast or otherwise not a public address. IPv4 addresses embedded in
// IPv6 (mapped, NAT64 well-known prefix, 6to4) are judged by the IPv4 part.
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			return Internal(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			return Internal(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
