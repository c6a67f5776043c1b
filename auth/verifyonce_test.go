package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// tokenReads counts the reads of tokens.
type tokenReads struct {
	auth.Store
	reads atomic.Int64
}

func (c *tokenReads) TokenByID(ctx context.Context, id int64) (auth.Token, []byte, error) {
	c.reads.Add(1)
	return c.Store.TokenByID(ctx, id)
}

// tokenAskedTwice is a request whose token a tenancy middleware and then
// its route verify, as orgs.Service.Tenancy and a route's authorizer do.
func tokenAskedTwice(t testing.TB, svc *auth.Service) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.Header.Get("Authorization")[len("Bearer "):]
		first, abilities, err := svc.VerifyToken(r.Context(), token)
		require.NoError(t, err)
		second, again, err := svc.VerifyToken(r.Context(), token)
		require.NoError(t, err)
		require.Equal(t, first, second)
		require.Equal(t, abilities, again)
		if first == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// Under LoadUser a request's token is read once, however many times the
// request asks (without it, each asking reads it); the next request reads
// it again, so a token revoked meanwhile is refused there.
func TestTokenReadOncePerRequest(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		st := &tokenReads{Store: authsql.New(storetest.Open(t, d, authsql.Migrations))}
		svc, err := auth.NewService(st, nil)
		require.NoError(t, err)
		ctx := context.Background()
		plain, tok, err := svc.CreateToken(ctx, auth.NewToken{Name: "deploys", Abilities: []string{"forms:*"}})
		require.NoError(t, err)
		web, err := auth.NewWeb(svc, nil)
		require.NoError(t, err)
		serve := func(h http.Handler) int {
			r := httptest.NewRequest("GET", "/api/v1/forms", nil)
			r.Header.Set("Authorization", "Bearer "+plain)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Code
		}
		loaded, bare := web.LoadUser(tokenAskedTwice(t, svc)), tokenAskedTwice(t, svc)

		require.Equal(t, http.StatusNoContent, serve(loaded))
		require.EqualValues(t, 1, st.reads.Swap(0), "read once under LoadUser")
		require.Equal(t, http.StatusNoContent, serve(bare))
		require.EqualValues(t, 2, st.reads.Swap(0), "read at each asking without it")
		require.NoError(t, svc.RevokeToken(ctx, tok.ID))
		require.Equal(t, http.StatusUnauthorized, serve(loaded), "the next request reads it again")
	})
}
