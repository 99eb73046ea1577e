package netproxy

import (
	"net/netip"
	"strings"
)

// Rules are the domain lists a proxy decides by. Patterns are a host name
// ("example.com", matching only itself), "*.example.com" (any name below
// example.com, not example.com itself) or an IP address.
type Rules struct {
	// Allowed are the user's sandbox.allowedDomains.
	Allowed []string
	// Denied are sandbox.deniedDomains; they win over everything.
	Denied []string
	// Defaults is the built-in list (DefaultDomains) unless replaced.
	Defaults []string
}

// NormalizeHost lowercases a host, strips one trailing dot and IPv6
// brackets, and reports whether what is left can be a host name or an IP.
func NormalizeHost(h string) (string, bool) {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return "", false
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return h, true
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return "", false
			}
		}
	}
	return h, true
}

// Match reports whether host (normalized) matches pattern.
func Match(pattern, host string) bool {
	p, ok := NormalizeHost(strings.TrimPrefix(pattern, "*."))
	if !ok {
		return false
	}
	if strings.HasPrefix(pattern, "*.") {
		return strings.HasSuffix(host, "."+p)
	}
	if a, err := netip.ParseAddr(p); err == nil {
		b, err := netip.ParseAddr(host)
		return err == nil && a.Unmap() == b.Unmap()
	}
	return host == p
}

// firstMatch returns the first pattern of list that matches host.
func firstMatch(list []string, host string) (string, bool) {
	for _, p := range list {
		if Match(p, host) {
			return p, true
		}
	}
	return "", false
}

// namesExplicitly reports whether one of the user's allowed patterns names
// host exactly (no wildcard). Only such a rule lets the proxy connect to a
// loopback, private or link-local address.
func (r Rules) namesExplicitly(host string) bool {
	for _, p := range r.Allowed {
		if !strings.HasPrefix(p, "*.") && Match(p, host) {
			return true
		}
	}
	return false
}
