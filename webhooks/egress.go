package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork/internal/egress"
)

// Errors of Guard.Check; test with errors.Is.
var (
	// ErrInvalidURL: not an absolute http(s) URL with a host.
	ErrInvalidURL = errors.New("webhooks: invalid URL")
	// ErrInsecureURL: http:// while insecure URLs are not allowed.
	ErrInsecureURL = errors.New("webhooks: URL is not https")
	// ErrNotPublic: the host is, or resolves to, an address that is not
	// public (or resolves to nothing).
	ErrNotPublic = errors.New("webhooks: URL does not resolve to a public address")
)

// IsPublic reports whether a delivery may reach addr: an IPv4 address (or
// an IPv4-mapped IPv6 one) outside the special-purpose ranges, or an IPv6
// global unicast address outside the special-purpose blocks. A zoned
// address is never public.
func IsPublic(addr netip.Addr) bool { return egress.IsPublic(addr) }

// Resolver looks up a host's addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard vets the URLs deliveries go to: at subscription time and again
// before every attempt. The zero value uses the system resolver and the
// strict rules.
type Guard struct {
	// AllowInsecureURLs permits http:// URLs.
	AllowInsecureURLs bool
	// AllowPrivateHosts permits any address, private ones included.
	AllowPrivateHosts bool
	// Resolver resolves host names; net.DefaultResolver when nil.
	Resolver Resolver
}

// Target is a vetted URL and the addresses a delivery may connect to:
// the connection is pinned to them, so a DNS answer that changes after
// the check cannot redirect it.
type Target struct {
	URL   *url.URL
	Addrs []netip.Addr
}

// MaxURLLength bounds a subscription's URL.
const MaxURLLength = 1000

// Check parses rawURL and vets it: http(s) with a host, https unless
// insecure URLs are allowed, and every address the host is or resolves to
// public unless private hosts are allowed. A host written as an IP address
// in any form the C library accepts (2130706433, 0x7f.1, 0177.0.0.1,
// 127.1, [::ffff:127.0.0.1]) is that address, never looked up.
func (g *Guard) Check(ctx context.Context, rawURL string) (*Target, error) {
	if len(rawURL) > MaxURLLength {
		return nil, fmt.Errorf("%w: longer than %d characters", ErrInvalidURL, MaxURLLength)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.AllowInsecureURLs {
			return nil, ErrInsecureURL
		}
	default:
		return nil, fmt.Errorf("%w: scheme must be https", ErrInvalidURL)
	}
	host := u.Hostname()
	if host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: bad port", ErrInvalidURL)
		}
	}
	var addrs []netip.Addr
	if addr, ok := literalIP(host); ok {
		addrs = []netip.Addr{addr}
	} else {
		// A name is letters, digits, hyphens and dots (IDN in any
		// script); a bracket, a percent sign or a space is no name's, and
		// a lenient parser's leftovers ("127.0.0.0]") never reach a
		// resolver.
		if strings.ContainsAny(host, "[]%@/\\?# ") {
			return nil, fmt.Errorf("%w: %q is not a host name", ErrInvalidURL, host)
		}
		r := g.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		found, err := r.LookupNetIP(ctx, "ip", host)
		if err != nil || len(found) == 0 {
			return nil, fmt.Errorf("%w: %s does not resolve", ErrNotPublic, host)
		}
		addrs = found
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
		if !g.AllowPrivateHosts && !IsPublic(a) {
			return nil, fmt.Errorf("%w: %s is %s", ErrNotPublic, host, a)
		}
	}
	return &Target{URL: u, Addrs: addrs}, nil
}

// literalIP reads host as an IP address: IPv6 (without a zone: a zoned
// address is refused as not public by IsPublic) or IPv4 in any notation
// inet_aton accepts, a trailing dot allowed.
func literalIP(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	h := strings.TrimSuffix(host, ".")
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := atonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	// The last part fills the bytes the others leave.
	var v uint64
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 0xff {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	if nums[last] >= 1<<(32-8*last) {
		return netip.Addr{}, false
	}
	v |= nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// atonPart reads one part of an inet_aton address: 0x-prefixed hex, a
// leading 0 for octal, else decimal.
func atonPart(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
