package reportinggoogle_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggoogle"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// authServer is a fake Google authorization server: it issues a code for
// the challenge it was shown, and the token endpoint checks the PKCE
// verifier against it.
type authServer struct {
	*httptest.Server
	mu         sync.Mutex
	challenge  string
	expiresIn  int
	refreshes  int
	refuseNext bool
	codeUsed   bool
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{expiresIn: 3600}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/auth":
			q := r.URL.Query()
			a.challenge = q.Get("code_challenge")
			if q.Get("code_challenge_method") != "S256" || q.Get("access_type") != "offline" {
				w.WriteHeader(400)
				return
			}
			http.Redirect(w, r, q.Get("redirect_uri")+"?state="+url.QueryEscape(q.Get("state"))+"&code=the-code", http.StatusFound)
		case "/token":
			r.ParseForm()
			switch r.Form.Get("grant_type") {
			case "authorization_code":
				sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
				if r.Form.Get("code") != "the-code" || a.codeUsed || base64.RawURLEncoding.EncodeToString(sum[:]) != a.challenge {
					w.WriteHeader(400)
					io.WriteString(w, `{"error":"invalid_grant"}`)
					return
				}
				a.codeUsed = true
				io.WriteString(w, `{"access_token":"at-1","refresh_token":"rt-1","token_type":"Bearer","expires_in":`+itoa(a.expiresIn)+
					`,"scope":"openid https://www.googleapis.com/auth/webmasters.readonly"}`)
			case "refresh_token":
				a.refreshes++
				if a.refuseNext || r.Form.Get("refresh_token") != "rt-1" {
					w.WriteHeader(400)
					io.WriteString(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
					return
				}
				io.WriteString(w, `{"access_token":"at-`+itoa(a.refreshes+1)+`","token_type":"Bearer","expires_in":3600}`)
			}
		}
	}))
	t.Cleanup(a.Close)
	return a
}

type userKey struct{}

// The connect flow end to end; the connection's token refreshed early;
// invalid_grant disconnects it.
func TestOAuthConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	auth := newAuthServer(t)
	api := newFakeGoogle(t)
	db := storetest.Open(t, store.SQLite, reportingsql.Migrations)
	st := reportingsql.New(db)
	var app *httptest.Server
	var o *reportinggoogle.OAuth
	var checked http.Handler // o, each JSON answer checked against its description
	app = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { checked.ServeHTTP(w, r) }))
	t.Cleanup(app.Close)
	var err error
	o, err = reportinggoogle.NewOAuth(reportinggoogle.OAuthOptions{ClientID: "cid", ClientSecret: "secret", RedirectURL: app.URL + "/google/auth/callback",
		Endpoint: oauth2.Endpoint{AuthURL: auth.URL + "/auth", TokenURL: auth.URL + "/token"}, Scopes: []string{reportinggoogle.ScopeSearchConsole},
		Store: st, Key: bytes.Repeat([]byte{5}, 32), AfterConnect: "/reporting",
		UserID:          func(r *http.Request) (string, bool) { u := r.Header.Get("X-User"); return u, u != "" },
		UserFromContext: func(ctx context.Context) (string, bool) { u, ok := ctx.Value(userKey{}).(string); return u, ok }})
	require.NoError(t, err)
	checked = apitest.Documented(t, o)

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Transport: userTransport{"7"}}
	// Signed out: 401.
	res, err := http.Get(app.URL + "/google/auth/connect")
	require.NoError(t, err)
	require.Equal(t, 401, res.StatusCode)
	res.Body.Close()

	// A state that does not match is refused, the code never exchanged.
	noFollow := &http.Client{Jar: jar, Transport: userTransport{"7"}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noFollow.Get(app.URL + "/google/auth/connect")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 302, res.StatusCode)
	loc, _ := url.Parse(res.Header.Get("Location"))
	require.Equal(t, "offline", loc.Query().Get("access_type"))
	require.Equal(t, "consent", loc.Query().Get("prompt"))
	require.Contains(t, loc.Query().Get("scope"), "webmasters.readonly")
	res, err = noFollow.Get(app.URL + "/google/auth/callback?state=forged&code=the-code")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, "/reporting?google=error", res.Header.Get("Location"))
	auth.mu.Lock()
	require.False(t, auth.codeUsed)
	auth.mu.Unlock()

	// The whole flow: connect → Google → callback → connected.
	res, err = noFollow.Get(app.URL + "/google/auth/connect")
	require.NoError(t, err)
	res.Body.Close()
	res, err = client.Get(res.Header.Get("Location")) // the fake Google redirects back to the callback
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, "/reporting", res.Request.URL.Path)
	require.Equal(t, "connected", res.Request.URL.Query().Get("google"))
	c, err := st.GoogleConnection(ctx, "7")
	require.NoError(t, err)
	require.Equal(t, reportingstore.StatusConnected, c.Status)
	require.NotContains(t, c.SealedAccessToken+c.SealedRefreshToken, "at-1", "sealed at rest")
	require.NotContains(t, c.SealedRefreshToken, "rt-1")

	status := func(user string) reportinggoogle.Status {
		req, _ := http.NewRequest("GET", app.URL+"/google/auth/status", nil)
		req.Header.Set("X-User", user)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var s reportinggoogle.Status
		require.NoError(t, json.NewDecoder(res.Body).Decode(&s))
		return s
	}
	require.True(t, status("7").Connected)
	require.False(t, status("8").Connected)

	// A source through the user's connection; another user has none.
	src, err := reportinggoogle.NewSearchConsole(reportinggoogle.SearchConsoleOptions{SiteURL: "https://example.com/", Clients: o, Endpoint: api.URL + "/"})
	require.NoError(t, err)
	userCtx := context.WithValue(ctx, userKey{}, "7")
	conn, err := src.Connection(userCtx)
	require.NoError(t, err)
	require.Equal(t, "google:7", conn)
	_, err = src.TopQueries(userCtx, 7, 10)
	require.NoError(t, err)
	_, err = src.TopQueries(context.WithValue(ctx, userKey{}, "8"), 7, 10)
	require.ErrorIs(t, err, reporting.ErrNotConnected)
	auth.mu.Lock()
	require.Zero(t, auth.refreshes, "the token is fresh")
	auth.mu.Unlock()

	// A token expiring within a minute is refreshed before use, and the
	// new one stored.
	c.ExpiresAt = c.UpdatedAt.Add(-time30s())
	require.NoError(t, st.SaveGoogleConnection(ctx, c))
	_, err = src.TopQueries(userCtx, 7, 10)
	require.NoError(t, err)
	auth.mu.Lock()
	require.Equal(t, 1, auth.refreshes)
	auth.mu.Unlock()
	after, err := st.GoogleConnection(ctx, "7")
	require.NoError(t, err)
	require.NotEqual(t, c.SealedAccessToken, after.SealedAccessToken, "the refreshed token is stored")
	// The refresh token is kept (the fake refuses any other).
	after.ExpiresAt = after.UpdatedAt.Add(-time30s())
	require.NoError(t, st.SaveGoogleConnection(ctx, after))
	_, err = src.TopQueries(userCtx, 7, 10)
	require.NoError(t, err)
	auth.mu.Lock()
	require.Equal(t, 2, auth.refreshes)
	auth.mu.Unlock()
	after, err = st.GoogleConnection(ctx, "7")
	require.NoError(t, err)

	// invalid_grant: reconnect (502), then not connected (409).
	after.ExpiresAt = after.UpdatedAt.Add(-time30s())
	require.NoError(t, st.SaveGoogleConnection(ctx, after))
	auth.mu.Lock()
	auth.refuseNext = true
	auth.mu.Unlock()
	_, err = src.TopQueries(userCtx, 7, 10)
	require.ErrorIs(t, err, reporting.ErrReconnect)
	require.Equal(t, "disconnected", status("7").Status)
	require.Equal(t, "invalid_grant", status("7").Reason)
	_, err = src.TopQueries(userCtx, 7, 10)
	require.ErrorIs(t, err, reporting.ErrNotConnected)

	// Disconnect is local.
	req, _ := http.NewRequest("POST", app.URL+"/google/auth/disconnect", strings.NewReader(""))
	req.Header.Set("X-User", "7")
	req.Header.Set("Accept", "application/json")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 204, res.StatusCode)
}

type userTransport struct{ user string }

func (u userTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-User", u.user)
	return http.DefaultTransport.RoundTrip(r)
}
