package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

type httpBundle struct {
	svc    *auth.Service
	server *httptest.Server
	clock  *clock
}

func setupHTTP(t testing.TB, d store.Dialect) *httpBundle {
	t.Helper()
	db := storetest.Open(t, d, authsql.Migrations)
	c := &clock{}
	c.Set(time.Now().Add(-time.Hour)) // not the real time: anything that reads the real clock shows
	svc, err := auth.NewService(authsql.New(db), &auth.Options{Now: c.Now})
	require.NoError(t, err)
	h, err := auth.NewHandler(svc, &auth.HandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: store.NewSQLRateLimiter(db, &driverless.RateLimiterOptions{Now: c.Now})}})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle(auth.PrefixDefault+"/", apitest.Of(t, h).Handler(h))
	mux.Handle("/guarded", svc.Middleware("forms:create")(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := groundwork.CallerFrom(r.Context())
		caller, abilities := c.ID, c.Abilities
		if !ok {
			http.Error(w, "no caller in context", http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"caller": caller, "abilities": abilities})
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &httpBundle{svc: svc, server: srv, clock: c}
}

func (b *httpBundle) get(t *testing.T, path, token string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.server.URL+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(body)
}

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		b := setupHTTP(t, d)
		plain, tok, err := b.svc.CreateToken(ctx, auth.NewToken{Name: "me", Abilities: []string{"*"}, ExpiresAt: b.clock.Now().Add(time.Hour)})
		require.NoError(t, err)

		res, body := b.get(t, "/api/v1/auth/token", plain)
		require.Equal(t, 200, res.StatusCode, body)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		require.Equal(t, "60", res.Header.Get("X-RateLimit-Limit"))
		require.Equal(t, "59", res.Header.Get("X-RateLimit-Remaining"))
		var got struct {
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Equal(t, float64(tok.ID), got.Data["id"])
		require.Equal(t, "me", got.Data["name"])
		require.Equal(t, []any{"*"}, got.Data["abilities"])
		require.Equal(t, tok.ExpiresAt.UTC().Truncate(time.Microsecond).Format("2006-01-02T15:04:05.000000Z07:00"), got.Data["expires_at"], "six digits, always")
		require.NotNil(t, got.Data["last_used_at"])
		require.Nil(t, got.Data["revoked_at"])
		require.NotContains(t, body, plain[2:], "the secret is never echoed")

		// Every way a token can be wrong answers the same 401.
		expiring, _, err := b.svc.CreateToken(ctx, auth.NewToken{Name: "short", Abilities: []string{"*"}, ExpiresAt: b.clock.Now().Add(time.Minute)})
		require.NoError(t, err)
		revoked, revokedTok, err := b.svc.CreateToken(ctx, auth.NewToken{Name: "gone", Abilities: []string{"*"}})
		require.NoError(t, err)
		require.NoError(t, b.svc.RevokeToken(ctx, revokedTok.ID))
		b.clock.Advance(2 * time.Minute)
		for name, token := range map[string]string{"Missing": "", "Malformed": "not-a-token", "Unknown": "999|gw_" + plain[len(plain)-40:],
			"Revoked": revoked, "Expired": expiring} {
			res, body := b.get(t, "/api/v1/auth/token", token)
			require.Equal(t, 401, res.StatusCode, name)
			require.JSONEq(t, `{"message": "Unauthenticated."}`, body, name)
			require.Equal(t, "Bearer", res.Header.Get("WWW-Authenticate"))
		}

		res, body = b.get(t, "/api/v1/auth/nothing", plain)
		require.Equal(t, 404, res.StatusCode)
		require.JSONEq(t, `{"message": "Not Found."}`, body)
	})
}

func TestTokenEndpointThrottle(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, store.SQLite)
	plain, _, err := b.svc.CreateToken(context.Background(), auth.NewToken{Name: "me", Abilities: []string{"*"}})
	require.NoError(t, err)
	for i := range 60 {
		res, _ := b.get(t, "/api/v1/auth/token", plain)
		require.Equal(t, 200, res.StatusCode)
		require.Equal(t, strconv.Itoa(59-i), res.Header.Get("X-RateLimit-Remaining"))
	}
	res, body := b.get(t, "/api/v1/auth/token", plain)
	require.Equal(t, 429, res.StatusCode)
	require.JSONEq(t, `{"message": "Too Many Attempts."}`, body)
	require.Equal(t, "60", res.Header.Get("Retry-After"))
	b.clock.Advance(time.Minute)
	res, _ = b.get(t, "/api/v1/auth/token", plain)
	require.Equal(t, 200, res.StatusCode)
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupHTTP(t, store.SQLite)
	wide, _, err := b.svc.CreateToken(ctx, auth.NewToken{Name: "wide", Abilities: []string{"forms:*"}})
	require.NoError(t, err)
	narrow, _, err := b.svc.CreateToken(ctx, auth.NewToken{Name: "narrow", Abilities: []string{"forms:viewAny"}})
	require.NoError(t, err)

	res, body := b.get(t, "/guarded", wide)
	require.Equal(t, 200, res.StatusCode)
	require.JSONEq(t, `{"caller": "token:1", "abilities": ["forms:*"]}`, body)
	res, body = b.get(t, "/guarded", narrow)
	require.Equal(t, 403, res.StatusCode)
	require.JSONEq(t, `{"message": "This action is unauthorized.", "ability": "forms:create"}`, body)
	res, body = b.get(t, "/guarded", "")
	require.Equal(t, 401, res.StatusCode)
	require.JSONEq(t, `{"message": "Unauthenticated."}`, body)
}

func TestNewHandlerOptions(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	_, err := auth.NewHandler(nil, nil)
	require.Error(t, err)
	_, err = auth.NewHandler(svc, &auth.HandlerOptions{Prefix: "api"})
	require.Error(t, err)
	h, err := auth.NewHandler(svc, &auth.HandlerOptions{Prefix: "/custom/"})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/custom/token", nil))
	require.Equal(t, 401, w.Code)
}

// A disabled user's token describes nothing (401), on both databases,
// and again once they are enabled; a token of no user is not asked.
func TestTokenEndpointOfADisabledUser(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		b := setupHTTP(t, d)
		u, err := b.svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse battery", Capabilities: []string{"*"}})
		require.NoError(t, err)
		plain, _, err := b.svc.CreateUserToken(ctx, u, auth.NewToken{Name: "ci", Abilities: []string{"forms:create"}})
		require.NoError(t, err)
		res, _ := b.get(t, "/api/v1/auth/token", plain)
		require.Equal(t, http.StatusOK, res.StatusCode)
		_, err = b.svc.SetDisabled(ctx, u.ID, true)
		require.NoError(t, err)
		for _, path := range []string{"/api/v1/auth/token", "/guarded"} {
			res, body := b.get(t, path, plain)
			require.Equal(t, http.StatusUnauthorized, res.StatusCode, path+": "+body)
		}
		_, err = b.svc.SetDisabled(ctx, u.ID, false)
		require.NoError(t, err)
		res, _ = b.get(t, "/api/v1/auth/token", plain)
		require.Equal(t, http.StatusOK, res.StatusCode)
	})
}
