package webhooks_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/webhooks"
)

// Every special-purpose range, at its first and last address, in IPv4-mapped
// form too; and public neighbours that must pass.
func TestIsPublic(t *testing.T) {
	t.Parallel()
	ranges := []string{"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"224.0.0.0/4", "240.0.0.0/4", "::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32",
		"2002::/16", "fc00::/7", "fe80::/10", "ff00::/8",
		// Only IPv6 global unicast (2000::/3) passes, less its special blocks.
		"2001::/32", "2001::/23", "3fff::/20", "5f00::/16", "::ffff:0:0:0/96", "::/3", "4000::/2", "c000::/3"}
	for _, r := range ranges {
		p := netip.MustParsePrefix(r)
		first := p.Masked().Addr()
		last := lastAddr(p)
		for _, a := range []netip.Addr{first, last} {
			require.False(t, webhooks.IsPublic(a), "%s (%s)", a, r)
			if a.Is4() {
				mapped := netip.AddrFrom16(a.As16())
				require.False(t, webhooks.IsPublic(mapped), "%s (%s, mapped)", mapped, r)
			}
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.0", "172.15.255.255",
		"172.32.0.0", "192.0.1.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255", "11.0.0.0",
		"2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "2001:db9::1", "2001:200::1", "2a00:1450:4001::1",
		"3ffe::1", "3fff:1000::1"} {
		require.True(t, webhooks.IsPublic(netip.MustParseAddr(s)), s)
	}
	require.False(t, webhooks.IsPublic(netip.MustParseAddr("fe80::1%eth0")))
	// An IPv4-translated address (::ffff:0:a.b.c.d) is not IPv4-mapped:
	// it is refused as outside 2000::/3, whatever IPv4 address it holds.
	require.False(t, webhooks.IsPublic(netip.MustParseAddr("::ffff:0:7f00:1")))
	require.False(t, webhooks.IsPublic(netip.MustParseAddr("::ffff:0:808:808")))
	require.False(t, webhooks.IsPublic(netip.MustParseAddr("64:ff9b:2::1")), "outside 2000::/3")
	require.False(t, webhooks.IsPublic(netip.Addr{}))
}

func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr()
	b := a.AsSlice()
	for i := range b {
		bit := i * 8
		if bit >= p.Bits() {
			b[i] = 0xff
		} else if bit+8 > p.Bits() {
			b[i] |= byte(0xff >> (p.Bits() - bit))
		}
	}
	out, _ := netip.AddrFromSlice(b)
	return out
}

// resolver answers from a table; names not in it do not resolve.
type resolver map[string][]string

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	list, ok := r[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, s := range list {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func TestGuardCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := &webhooks.Guard{Resolver: resolver{
		"hooks.example":  {"93.184.216.34"},
		"mixed.example":  {"93.184.216.34", "10.0.0.7"},
		"mapped.example": {"::ffff:127.0.0.1"},
		"v6.example":     {"2606:4700:4700::1111"},
	}}
	for _, c := range []struct {
		url  string
		want error
	}{
		{"https://hooks.example/path", nil},
		{"https://hooks.example:8443/path?q=1", nil},
		{"https://v6.example/", nil},
		{"https://[2606:4700:4700::1111]/", nil},
		{"https://8.8.8.8/", nil},
		{"http://hooks.example/", webhooks.ErrInsecureURL},
		{"ftp://hooks.example/", webhooks.ErrInvalidURL},
		{"hooks.example/x", webhooks.ErrInvalidURL},
		{"https:///nohost", webhooks.ErrInvalidURL},
		{"https://hooks.example:0/", webhooks.ErrInvalidURL},
		{"https://hooks.example:99999/", webhooks.ErrInvalidURL},
		{"https://unknown.example/", webhooks.ErrNotPublic},
		{"https://mixed.example/", webhooks.ErrNotPublic},
		{"https://mapped.example/", webhooks.ErrNotPublic},
		{"https://localhost.invalid/", webhooks.ErrNotPublic},
		{"https://127.0.0.1/", webhooks.ErrNotPublic},
		{"https://2130706433/", webhooks.ErrNotPublic},            // decimal 127.0.0.1
		{"https://0x7f000001/", webhooks.ErrNotPublic},            // hex
		{"https://0177.0.0.1/", webhooks.ErrNotPublic},            // octal
		{"https://0x7f.1/", webhooks.ErrNotPublic},                // short, hex
		{"https://127.1/", webhooks.ErrNotPublic},                 // short
		{"https://127.0.1/", webhooks.ErrNotPublic},               // three parts
		{"https://127.000.000.001/", webhooks.ErrNotPublic},       // zero-padded octal
		{"https://127.0.0.1./", webhooks.ErrNotPublic},            // trailing dot
		{"https://169.254.169.254/latest", webhooks.ErrNotPublic}, // cloud metadata
		{"https://0251.0376.0251.0376/", webhooks.ErrNotPublic},   // octal metadata
		{"https://[::1]/", webhooks.ErrNotPublic},
		{"https://[::ffff:127.0.0.1]/", webhooks.ErrNotPublic},
		{"https://[::ffff:7f00:1]/", webhooks.ErrNotPublic},
		{"https://[::ffff:0:7f00:1]/", webhooks.ErrNotPublic},
		{"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", webhooks.ErrNotPublic},
		{"https://[64:ff9b::7f00:1]/", webhooks.ErrNotPublic},
		{"https://[::127.0.0.1]/", webhooks.ErrNotPublic},
		{"https://[fe80::1%25eth0]/", webhooks.ErrNotPublic},
		{"https://[64:ff9b::7f00:1]/", webhooks.ErrNotPublic},
		{"https://%31%32%37.0.0.1/", webhooks.ErrInvalidURL}, // percent-encoded: Go refuses escapes in a host
		{"https://0/", webhooks.ErrNotPublic},
	} {
		_, err := g.Check(ctx, c.url)
		if c.want == nil {
			require.NoError(t, err, c.url)
		} else {
			require.ErrorIs(t, err, c.want, c.url)
		}
	}

	target, err := g.Check(ctx, "https://0x5d.0xb8.0xd8.0x22/")
	require.NoError(t, err, "a public address in hex is that address")
	require.Equal(t, []netip.Addr{netip.MustParseAddr("93.184.216.34")}, target.Addrs)

	loose := &webhooks.Guard{AllowInsecureURLs: true, AllowPrivateHosts: true, Resolver: g.Resolver}
	for _, u := range []string{"http://hooks.example/", "https://127.0.0.1/", "http://mixed.example/", "https://[::1]:8080/"} {
		_, err := loose.Check(ctx, u)
		require.NoError(t, err, u)
	}
	_, err = loose.Check(ctx, "https://unknown.example/")
	require.ErrorIs(t, err, webhooks.ErrNotPublic, "a host that does not resolve is refused even so")
}
