package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
)

// The ready authorizer: a bearer token by its abilities alone, a
// signed-in user by the capability the ability is granted to.
func TestAuthorizerTokensAndUsers(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	authorize := s.svc.Authorizer(map[string]auth.Grant{
		"reporting:view": {Ability: "reporting:view", Capability: "view_search_reporting"},
		"feeds:manage":   {Ability: "webhookSubscription.view", Capability: "manage_feeds"},
	})
	mux := http.NewServeMux()
	s.web.Mount(mux)
	mux.Handle("GET /ask/{ability}", s.web.LoadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, map[groundwork.Access]string{groundwork.Allowed: "allowed", groundwork.Forbidden: "forbidden",
			groundwork.Unauthenticated: "unauthenticated"}[authorize.AuthorizeRequest(r, r.PathValue("ability"), nil)])
	})))
	s.srv.Config.Handler = mux
	ctx := context.Background()
	reader, _, err := s.svc.CreateToken(ctx, auth.NewToken{Name: "reader", Abilities: []string{"reporting:view"}})
	require.NoError(t, err)
	marketer, _, err := s.svc.CreateToken(ctx, auth.NewToken{Name: "marketer", Abilities: []string{"webhookSubscription.*", "forms:create"}})
	require.NoError(t, err)

	guest := s.browser(t)
	ask := func(b *browser, ability string, header ...string) string {
		t.Helper()
		_, body := b.get("/ask/"+ability, header...)
		return body
	}
	require.Equal(t, "unauthenticated", ask(guest, "reporting:view"))
	require.Equal(t, "allowed", ask(guest, "reporting:view", "Authorization", "Bearer "+reader))
	require.Equal(t, "forbidden", ask(guest, "feeds:manage", "Authorization", "Bearer "+reader))
	require.Equal(t, "allowed", ask(guest, "feeds:manage", "Authorization", "Bearer "+marketer), "the grant's ability, by wildcard")
	require.Equal(t, "forbidden", ask(guest, "reporting:view", "Authorization", "Bearer "+marketer))
	require.Equal(t, "allowed", ask(guest, "forms:create", "Authorization", "Bearer "+marketer), "an ability no grant names: the token's own")
	require.Equal(t, "unauthenticated", ask(guest, "reporting:view", "Authorization", "Bearer "+reader+"x"))

	s.user(t, "viewer@example.com", "view_search_reporting")
	viewer := s.browser(t)
	require.Equal(t, http.StatusSeeOther, viewer.login("viewer@example.com", "correct horse", false).StatusCode)
	require.Equal(t, "allowed", ask(viewer, "reporting:view"))
	require.Equal(t, "forbidden", ask(viewer, "feeds:manage"))
	require.Equal(t, "forbidden", ask(viewer, "forms:create"), "an ability no grant names: never a user's")
	require.Equal(t, "forbidden", ask(viewer, "reporting:view", "Authorization", "Bearer "+marketer), "a token decides alone")
}
