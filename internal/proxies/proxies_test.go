package proxies_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/proxies"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	trusted, err := proxies.ParsePrefixes("10.0.0.0/8, 192.0.2.7, ::1")
	require.NoError(t, err)
	_, err = proxies.ParsePrefixes("10.0.0.0/33")
	require.Error(t, err)
	tests := []struct {
		name, remote, xff string
		trusted           bool
		want              string
	}{
		{"PeerWithoutProxies", "203.0.113.9:1234", "198.51.100.1", false, "203.0.113.9"},
		{"UntrustedPeerIgnoresHeader", "203.0.113.9:1234", "198.51.100.1", true, "203.0.113.9"},
		{"TrustedPeer", "10.1.2.3:80", "198.51.100.1", true, "198.51.100.1"},
		{"ChainOfProxies", "10.1.2.3:80", "198.51.100.1, 203.0.113.5, 192.0.2.7", true, "203.0.113.5"},
		{"ForgedLeftmostIgnored", "10.1.2.3:80", "1.1.1.1, 198.51.100.1", true, "198.51.100.1"},
		{"AllTrusted", "10.1.2.3:80", "10.9.9.9", true, "10.9.9.9"},
		{"GarbageStopsAtProxy", "10.1.2.3:80", "198.51.100.1, nonsense", true, "10.1.2.3"},
		{"NoHeader", "10.1.2.3:80", "", true, "10.1.2.3"},
		{"MappedIPv6Peer", "[::ffff:203.0.113.9]:443", "", false, "203.0.113.9"},
		{"IPv6Loopback", "[::1]:443", "2001:db8::1", true, "2001:db8::1"},
		{"HopWithPort", "10.1.2.3:80", "[2001:db8::2]:5000", true, "2001:db8::2"},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		var tr []netip.Prefix
		if tc.trusted {
			tr = trusted
		}
		require.Equal(t, tc.want, proxies.ClientIPString(r, tr), tc.name)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "@"
	require.Equal(t, "unknown", proxies.ClientIPString(r, nil))
}
