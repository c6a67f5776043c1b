package egress_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/egress"
)

// The client connects to a loopback server only when private hosts are
// allowed; a redirect to it from an allowed address is refused the same
// way, at the dial.
func TestClientRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("inside")) }))
	t.Cleanup(srv.Close)
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		_, err := egress.Client(5*time.Second, false).Get(u)
		require.ErrorContains(t, err, "not a public address", u)
		res, err := egress.Client(5*time.Second, true).Get(u)
		require.NoError(t, err, u)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
	}
	require.True(t, egress.IsPublic(netip.MustParseAddr("8.8.8.8")))
	require.False(t, egress.IsPublic(netip.MustParseAddr("::ffff:10.0.0.1")))
}
