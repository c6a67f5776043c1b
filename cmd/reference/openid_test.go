package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// With --openid-issuer the sign-in page offers the provider (an
// in-process zitadel provider here; the whole flow is auth/openid's
// tests'), its link sends the browser to the provider's authorization
// endpoint with this server's client, callback, PKCE and a nonce, and
// the linked accounts' page is a signed-in user's. Without a client ID
// the flag is refused.
func TestOpenIDIssuerFlag(t *testing.T) {
	t.Parallel()
	provider := httptest.NewUnstartedServer(nil)
	issuer := "http://" + provider.Listener.Addr().String()
	clients := map[string]*storage.Client{"reference": storage.WebClient("reference", "secret")}
	provider.Config.Handler = exampleop.SetupServer(issuer, storage.NewStorageWithClients(storage.NewUserStore(issuer), clients),
		slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), false) // the example logs each request at INFO, through the process's default logger, which this sets
	provider.Start()
	t.Cleanup(provider.Close)

	_, err := parseServeFlags([]string{"--db", "sqlite:" + t.TempDir() + "/x.db", "--openid-issuer", issuer}, env{}.get)
	require.ErrorContains(t, err, "GROUNDWORK_OPENID_CLIENT_ID")
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/x.db", "--log-level", "warn", "--uploads", t.TempDir()},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_OPENID_ISSUER": issuer, "GROUNDWORK_OPENID_CLIENT_ID": "reference",
			"GROUNDWORK_OPENID_CLIENT_SECRET": "secret", "GROUNDWORK_OPENID_LABEL": "Zitadel",
			"GROUNDWORK_GITHUB_CLIENT_ID": "gh-app", "GROUNDWORK_GITHUB_CLIENT_SECRET": "gh-secret"}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)

	res, err := http.Get(base + "/login")
	require.NoError(t, err)
	page, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	body := string(page)
	require.Contains(t, body, `<a class="button secondary" href="/login/openid/sso">Sign in with Zitadel</a>`)
	require.Contains(t, body, `<a class="button secondary" href="/login/openid/github">Sign in with GitHub</a>`)

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = client.Get(base + "/login/openid/sso")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode)
	to, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, issuer+"/auth", to.Scheme+"://"+to.Host+to.Path)
	q := to.Query()
	require.Equal(t, "reference", q.Get("client_id"))
	require.Equal(t, base+"/login/openid/sso/callback", q.Get("redirect_uri"))
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.NotEmpty(t, q.Get("nonce"))
	require.NotEmpty(t, q.Get("state"))
	require.Equal(t, "openid email profile", q.Get("scope"))
	require.True(t, strings.HasPrefix(res.Header.Get("Set-Cookie"), "gw_openid_sso="), res.Header.Get("Set-Cookie"))

	// GitHub, by its OAuth flow.
	res, err = client.Get(base + "/login/openid/github")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode)
	to, err = url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "https://github.com/login/oauth/authorize", to.Scheme+"://"+to.Host+to.Path)
	q = to.Query()
	require.Equal(t, "gh-app", q.Get("client_id"))
	require.Equal(t, base+"/login/openid/github/callback", q.Get("redirect_uri"))
	require.Equal(t, "read:user user:email", q.Get("scope"))
	require.Equal(t, "S256", q.Get("code_challenge_method"))

	res, err = client.Get(base + "/settings/sign-in-accounts")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode, "a guest is sent to sign in")
	require.Equal(t, "/login", res.Header.Get("Location"))
}
