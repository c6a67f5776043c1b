package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The owner's bookings list shows a provider's bookings to the signed-in
// user whose verified address is the provider's, and to no one who merely
// registered with that address: an unverified account is refused.
func TestBookingsListTrustsOnlyVerifiedAddresses(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	c, out, stderr := runCmd(t, e, "token", "create", "--name", "seed", "--ability", "*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)
	withStdin("correct horse\n", func() {
		c, _, stderr = runCmd(t, e, "user", "create", "--email", "sam@example.com", "--name", "Sam")
	})
	require.Equal(t, 0, c, stderr)
	withStdin("correct horse\n", func() {
		c, _, stderr = runCmd(t, e, "user", "create", "--email", "Kim@Example.com", "--name", "Not Kim", "--unverified")
	})
	require.Equal(t, 0, c, stderr)
	base := startServe(t, dsn)
	for _, p := range []string{`{"name":"Sam Rivera","email":"sam@example.com","timezone":"Europe/London"}`,
		`{"name":"Kim Lee","email":"kim@example.com","timezone":"Europe/London"}`} {
		code, body := request(t, "POST", base+"/api/bookings/admin/providers", token, p)
		require.Equal(t, 201, code, body)
	}
	list := func(email string) int {
		jar, err := cookiejar.New(nil)
		require.NoError(t, err)
		client := &http.Client{Jar: jar}
		req, err := http.NewRequest("POST", base+"/login", strings.NewReader(url.Values{"email": {email}, "password": {"correct horse"}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		res, err := client.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
		res, err = client.Get(base + "/bookings-list/")
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, 200, list("sam@example.com"), "the provider's own, verified address")
	require.Equal(t, 403, list("kim@example.com"), "an account that registered with a provider's address and never verified it")
}
