// Package egress keeps outbound requests to addresses a host chose off
// the machine's own network: the public-address test webhooks vet their
// URLs with, and an HTTP client that connects only to public addresses
// (checked when it dials, so a name that resolves elsewhere later, or a
// redirect, cannot reach inside).
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// nonPublic4 are the IPv4 special-purpose ranges no outbound request may reach
// unless private hosts are allowed: this network, private, shared,
// loopback, link-local, protocol assignments, documentation,
// benchmarking, multicast and reserved blocks.
var nonPublic4 = prefixes("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
	"224.0.0.0/4", "240.0.0.0/4")

// globalUnicast6 is the only IPv6 space an outbound request may reach (2000::/3),
// less nonPublic6: the IETF protocol assignments (Teredo's 2001::/32
// among them), 6to4, and the documentation blocks. Everything outside
// 2000::/3 is refused whatever it holds: IPv4-compatible and
// IPv4-translated forms of an address, NAT64 (64:ff9b::/96,
// 64:ff9b:1::/48), unique-local, link-local, multicast, 5f00::/16.
var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nonPublic6     = prefixes("2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20")
)

func prefixes(list ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(list))
	for i, p := range list {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// IsPublic reports whether an outbound request may reach addr: an IPv4 address (or
// an IPv4-mapped IPv6 one) outside the special-purpose ranges, or an IPv6
// global unicast address outside the special-purpose blocks. A zoned
// address is never public.
func IsPublic(addr netip.Addr) bool {
	if !addr.IsValid() || addr.Zone() != "" {
		return false
	}
	addr = addr.Unmap()
	blocked := nonPublic4
	if addr.Is6() {
		if !globalUnicast6.Contains(addr) {
			return false
		}
		blocked = nonPublic6
	}
	for _, p := range blocked {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// ErrNotPublic is a dial refused because the host resolves only to
// addresses that are not public.
var ErrNotPublic = errors.New("egress: not a public address")

// Client is an HTTP client for addresses a user gave: it connects only to
// the public addresses a host resolves to (any address with
// allowPrivate, for a host whose calendars or endpoints live on its own
// network), follows at most five redirects, and gives up after timeout.
func Client(timeout time.Duration, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		var last error
		for _, a := range addrs {
			if !allowPrivate && !IsPublic(a) {
				last = fmt.Errorf("%w: %s is %s", ErrNotPublic, host, a)
				continue
			}
			conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			last = err
		}
		if last == nil {
			last = fmt.Errorf("egress: %s has no address", host)
		}
		return nil, last
	}
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return fmt.Errorf("egress: more than 5 redirects")
		}
		return nil
	}}
}
