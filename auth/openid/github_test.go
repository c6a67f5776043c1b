package openid_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/auth/openid/openidsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// githubAccount is an account of the stand-in GitHub.
type githubAccount struct {
	ID     int64             `json:"id"`
	Login  string            `json:"login"`
	Name   string            `json:"name"`
	Emails []json.RawMessage `json:"-"`
}

// github speaks GitHub's OAuth web flow and the two REST calls a sign-in
// makes, as GitHub answers them: the authorize page (here, an account
// already signed in who already allowed the app: straight back to the
// callback, or a page while hold is set), the code's exchange (once, with
// its PKCE verifier and the app's secret; a used code is a 200 with
// error=bad_verification_code, as GitHub says it), GET /user and GET
// /user/emails under /api/v3, as a GitHub Enterprise Server serves them.
type github struct {
	srv *httptest.Server
	mu  sync.Mutex
	// as is the account that signs in next.
	as    *githubAccount
	hold  bool
	codes map[string]githubCode
	// tokens are the access tokens given, by the account they are for.
	tokens map[string]*githubAccount
	n      int
}

type githubCode struct {
	challenge, redirect string
	account             *githubAccount
}

func newGitHub(t *testing.T) *github {
	g := &github{codes: map[string]githubCode{}, tokens: map[string]*githubAccount{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "gh-client" || q.Get("code_challenge_method") != "S256" || q.Get("scope") != "read:user user:email" {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.hold {
			fmt.Fprint(w, "Authorize groundwork?")
			return
		}
		g.n++
		code := fmt.Sprintf("code%d", g.n)
		g.codes[code] = githubCode{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), account: g.as}
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		c, found := g.codes[r.PostFormValue("code")]
		delete(g.codes, r.PostFormValue("code"))
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		if id != "gh-client" || secret != "gh-secret" {
			fmt.Fprint(w, "error=incorrect_client_credentials&error_description=The+client_id+and%2For+client_secret+passed+are+incorrect.")
			return
		}
		if !found || c.redirect != r.PostFormValue("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			fmt.Fprint(w, "error=bad_verification_code&error_description=The+code+passed+is+incorrect+or+expired.")
			return
		}
		g.n++
		token := fmt.Sprintf("gho_%d", g.n)
		g.tokens[token] = c.account
		fmt.Fprintf(w, "access_token=%s&scope=read%%3Auser%%2Cuser%%3Aemail&token_type=bearer", token)
	})
	account := func(r *http.Request) *githubAccount {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	}
	mux.HandleFunc("GET /api/v3/user", func(w http.ResponseWriter, r *http.Request) {
		a := account(r)
		if a == nil {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(a)
	})
	mux.HandleFunc("GET /api/v3/user/emails", func(w http.ResponseWriter, r *http.Request) {
		a := account(r)
		if a == nil {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(a.Emails)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

func (g *github) signInAs(a *githubAccount, hold bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.as, g.hold = a, hold
}

func email(address string, primary, verified bool) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"email": address, "primary": primary, "verified": verified, "visibility": nil})
	return b
}

// Sign-in with GitHub's OAuth flow (GitHub's accounts have no OpenID
// Connect), on both databases: the account's ID is the subject, its
// verified primary address finds or makes the user; an unverified one
// takes over no one; a forged state and a replayed code sign no one in.
func TestSignInWithGitHub(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		gh := newGitHub(t)
		db := storetest.Open(t, d, authsql.Migrations)
		users, err := auth.NewService(authsql.New(db), &auth.Options{Key: []byte("a test key of thirty-two bytes!!"),
			Password: auth.PasswordParams{Memory: 1024, Time: 1, Threads: 1}})
		require.NoError(t, err)
		providers := []openid.Provider{{Name: "github", Label: "GitHub", Issuer: gh.srv.URL, ClientID: "gh-client", ClientSecret: "gh-secret", GitHub: true}}
		signIn, err := auth.NewWeb(users, &auth.WebOptions{SignInWith: openid.SignInButtons(providers)})
		require.NoError(t, err)
		s := &site{users: users, store: openidsql.New(db)}
		h, err := openid.New(s.store, &openid.Options{Providers: providers, Users: users, SignIn: signIn, Navigator: signIn,
			Key: []byte("another test key of 32 bytes!!!!"), Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
		require.NoError(t, err)
		mux := http.NewServeMux()
		signIn.Mount(mux)
		h.Mount(mux)
		s.srv = httptest.NewServer(mux)
		t.Cleanup(s.srv.Close)
		ctx := t.Context()

		octocat := &githubAccount{ID: 583231, Login: "octocat", Name: "The Octocat",
			Emails: []json.RawMessage{email("octo@old.example", false, true), email("octocat@github.example", true, true)}}
		gh.signInAs(octocat, false)
		c := s.client(t)
		code, body := c.do("GET", s.srv.URL+"/login/openid/github", nil)
		require.Equal(t, 200, code, body)
		require.Equal(t, "octocat@github.example", c.signedIn(s), "the primary address")
		u := s.user(t, "octocat@github.example")
		require.Equal(t, "The Octocat", u.Name)
		require.NotNil(t, u.EmailVerifiedAt)
		ids, err := s.store.Identities(ctx, u.ID)
		require.NoError(t, err)
		require.Len(t, ids, 1)
		require.Equal(t, openid.Identity{ID: ids[0].ID, UserID: u.ID, Provider: "github", Issuer: gh.srv.URL, Subject: "583231",
			Email: "octocat@github.example", CreatedAt: ids[0].CreatedAt}, ids[0])

		// The login and the address may change; the ID signs in the same
		// user.
		octocat.Login, octocat.Emails = "octo-renamed", []json.RawMessage{email("new@github.example", true, true)}
		again := s.client(t)
		code, body = again.do("GET", s.srv.URL+"/login/openid/github", nil)
		require.Equal(t, 200, code, body)
		require.Equal(t, "octocat@github.example", again.signedIn(s))

		// An unverified primary address that a user has.
		_, err = users.CreateUser(ctx, auth.NewUser{Name: "Ann", Email: "ann@example.com", Password: "correct horse battery"})
		require.NoError(t, err)
		gh.signInAs(&githubAccount{ID: 7, Login: "not-ann", Emails: []json.RawMessage{email("ann@example.com", true, false)}}, false)
		mallory := s.client(t)
		code, body = mallory.do("GET", s.srv.URL+"/login/openid/github", nil)
		require.Equal(t, 403, code)
		require.Contains(t, body, "Sign in with your password first")
		require.Empty(t, mallory.signedIn(s))

		// A callback of another browser's flow; the code used already,
		// under this browser's own new state.
		gh.signInAs(octocat, false)
		first := s.client(t)
		first.do("GET", s.srv.URL+"/login/openid/github", nil)
		require.Len(t, first.callbacks, 1)
		used := first.callbacks[0]
		other := s.client(t)
		code, body = other.do("GET", used, nil)
		require.Equal(t, 400, code)
		require.Contains(t, body, "This sign-in did not start here")
		gh.signInAs(octocat, true)
		code, _ = other.do("GET", s.srv.URL+"/login/openid/github", nil)
		require.Equal(t, 200, code)
		require.Equal(t, "/login/oauth/authorize", other.last.Path, "held at GitHub's page")
		replay, err := url.Parse(used)
		require.NoError(t, err)
		q := replay.Query()
		q.Set("state", other.last.Query().Get("state"))
		replay.RawQuery = q.Encode()
		code, body = other.do("GET", replay.String(), nil)
		require.Equal(t, 400, code)
		require.Contains(t, body, "The sign-in could not be confirmed")
		require.Empty(t, other.signedIn(s))
		all, err := users.ListUsers(ctx, auth.UserQuery{})
		require.NoError(t, err)
		require.Len(t, all, 2, "the octocat and Ann")
	})
}
