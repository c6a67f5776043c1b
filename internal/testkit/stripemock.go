package testkit

import (
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// StripeMockVersion is the stripe-mock .ci/run installs: Stripe's own mock
// of its API, which checks every request against Stripe's OpenAPI
// document and answers with Stripe's fixtures.
const StripeMockVersion = "v0.203.0"

// StripeMock starts stripe-mock on a free loopback port and returns its
// address; without it on the PATH the test is skipped, unless
// GROUNDWORK_REQUIRE_STRIPE_MOCK is set (CI sets it). Install it with
// go install github.com/stripe/stripe-mock@v0.203.0.
func StripeMock(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("stripe-mock")
	if err != nil {
		if os.Getenv("GROUNDWORK_REQUIRE_STRIPE_MOCK") != "" {
			t.Fatal("stripe-mock is not installed: go install github.com/stripe/stripe-mock@" + StripeMockVersion)
		}
		t.Skip("stripe-mock is not installed (go install github.com/stripe/stripe-mock@" + StripeMockVersion + ")")
	}
	// It serves HTTPS too, on a port of its own unless told another.
	addr, tls := freeAddr(t), freeAddr(t)
	runServer(t, "stripe-mock", exec.Command(bin, "-http-addr", addr, "-https-addr", tls))
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		_ = c.Close()
		return true
	}, 15*time.Second, 50*time.Millisecond, "stripe-mock did not start")
	return "http://" + addr
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}
