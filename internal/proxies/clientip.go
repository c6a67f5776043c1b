// Package proxies reads a request through the proxies a host trusts: the
// client's address from X-Forwarded-For, whether it came over TLS from
// X-Forwarded-Proto, and the trusted ranges from their text.
package proxies

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP is the address of the client that sent r. It is the socket's
// peer, unless that peer is one of the trusted proxies: then
// X-Forwarded-For is read from the right, skipping trusted proxies, and
// the first address not trusted is the client. An entry that does not
// parse ends the walk at the last trusted hop, so a forged header can only
// ever name the proxy itself. IPv4-mapped IPv6 addresses are unmapped.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if hop == "" {
			continue
		}
		addr := parseHost(hop)
		if !addr.IsValid() {
			return client
		}
		client = addr
		if !isTrusted(addr, trusted) {
			return addr
		}
	}
	return client
}

// ViaTLS reports whether r came over TLS: on this connection, or through a
// trusted proxy (the socket's peer is one) that says so in
// X-Forwarded-Proto. The header of anyone else is ignored.
func ViaTLS(r *http.Request, trusted []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
		return false
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}

// ClientIPString is ClientIP as text, "unknown" when the peer address is
// not an IP (a test recorder, a Unix socket).
func ClientIPString(r *http.Request, trusted []netip.Prefix) string {
	if a := ClientIP(r, trusted); a.IsValid() {
		return a.String()
	}
	return "unknown"
}

func parseHost(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParsePrefixes reads a comma-separated list of CIDR prefixes or single
// addresses ("10.0.0.0/8, 192.0.2.7").
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, err
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
