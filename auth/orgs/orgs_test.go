package orgs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/auth/orgs/orgssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

// site is the users of auth and their organizations on one database; a
// request's user is its X-User header (the host's sign-in, in short).
type site struct {
	auth *auth.Service
	orgs *orgs.Service
}

func newSite(t *testing.T, d store.Dialect) *site {
	t.Helper()
	db := storetest.Open(t, d, authsql.Migrations)
	a, err := auth.NewService(authsql.New(db), nil)
	require.NoError(t, err)
	o, err := orgs.New(orgssql.New(db), &orgs.Options{User: func(r *http.Request) (int64, bool) {
		id, err := strconv.ParseInt(r.Header.Get("X-User"), 10, 64)
		return id, err == nil
	}})
	require.NoError(t, err)
	return &site{auth: a, orgs: o}
}

func (s *site) user(t *testing.T, name string) int64 {
	t.Helper()
	u, err := s.auth.CreateUser(context.Background(), auth.NewUser{Name: name, Email: name + "@example.com", Password: "correct horse battery"})
	require.NoError(t, err)
	return u.ID
}

// Organizations and their members: the maker is the owner; members are
// added with a role (one the service knows); a user sees their own
// memberships alone. On both databases.
func TestOrganizationsAndMembers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx := context.Background()
		ann, bo, cy := s.user(t, "ann"), s.user(t, "bo"), s.user(t, "cy")
		acme, err := s.orgs.Create(ctx, "  Acme ", ann)
		require.NoError(t, err)
		require.Equal(t, "Acme", acme.Name)
		require.Equal(t, "org:"+strconv.FormatInt(acme.ID, 10), acme.Tenant())
		_, err = s.orgs.Create(ctx, " ", ann)
		require.Error(t, err)
		_, err = s.orgs.Create(ctx, "Ghost's", 9999)
		require.ErrorIs(t, err, orgs.ErrNotFound, "no such user")
		globex, err := s.orgs.Create(ctx, "Globex", bo)
		require.NoError(t, err)

		require.NoError(t, s.orgs.AddMember(ctx, acme.ID, bo, orgs.RoleMember))
		require.NoError(t, s.orgs.AddMember(ctx, acme.ID, bo, orgs.RoleAdmin), "a member's role changes")
		require.Error(t, s.orgs.AddMember(ctx, acme.ID, cy, "janitor"), "not a role of this service")
		require.ErrorIs(t, s.orgs.AddMember(ctx, acme.ID+100, cy, orgs.RoleMember), orgs.ErrNotFound)

		members, err := s.orgs.Members(ctx, acme.ID)
		require.NoError(t, err)
		require.Len(t, members, 2)
		require.Equal(t, "ann", members[0].Name)
		require.Equal(t, orgs.RoleOwner, members[0].Role)
		require.Equal(t, orgs.RoleAdmin, members[1].Role)
		mine, err := s.orgs.Organizations(ctx, bo)
		require.NoError(t, err)
		require.Equal(t, []string{"Acme", "Globex"}, []string{mine[0].Name, mine[1].Name})
		mine, err = s.orgs.Organizations(ctx, cy)
		require.NoError(t, err)
		require.Empty(t, mine)
		_, err = s.orgs.Membership(ctx, globex.ID, ann)
		require.ErrorIs(t, err, orgs.ErrNotFound)
	})
}

// Tenancy: a guest acts for no tenant, a user in no organization for
// their own, a member for the organization their cookie names (when a
// member of it) or else their first; Switch sets the cookie for a member
// alone.
func TestTenancy(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx := context.Background()
		ann, bo, cy := s.user(t, "ann"), s.user(t, "bo"), s.user(t, "cy")
		acme, err := s.orgs.Create(ctx, "Acme", ann)
		require.NoError(t, err)
		zeta, err := s.orgs.Create(ctx, "Zeta", ann)
		require.NoError(t, err)
		globex, err := s.orgs.Create(ctx, "Globex", bo)
		require.NoError(t, err)

		h := s.orgs.Tenancy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key, ok := tenant.Of(r.Context())
			if !ok {
				key = "(every)"
			}
			if m, ok := orgs.Current(r.Context()); ok {
				key += " as " + string(m.Role)
			}
			_, _ = w.Write([]byte(key))
		}))
		ask := func(user int64, org string) string {
			r := httptest.NewRequest("GET", "/", nil)
			if user != 0 {
				r.Header.Set("X-User", strconv.FormatInt(user, 10))
			}
			if org != "" {
				r.AddCookie(&http.Cookie{Name: orgs.OrgCookie, Value: org})
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Body.String()
		}
		id := func(o orgs.Organization) string { return strconv.FormatInt(o.ID, 10) }
		require.Equal(t, "(every)", ask(0, ""), "a guest")
		require.Equal(t, orgs.PersonalTenant(cy), ask(cy, ""), "in no organization: their own")
		require.Equal(t, acme.Tenant()+" as owner", ask(ann, ""), "the first by name")
		require.Equal(t, zeta.Tenant()+" as owner", ask(ann, id(zeta)))
		require.Equal(t, acme.Tenant()+" as owner", ask(ann, id(globex)), "not a member: the cookie is not heeded")
		require.Equal(t, acme.Tenant()+" as owner", ask(ann, "x"))
		require.Equal(t, orgs.PersonalTenant(cy), ask(cy, id(acme)))

		w := httptest.NewRecorder()
		require.ErrorIs(t, s.orgs.Switch(w, httptest.NewRequest("POST", "/", nil), ann, globex.ID), orgs.ErrNotFound)
		require.Empty(t, w.Result().Cookies())
		w = httptest.NewRecorder()
		require.NoError(t, s.orgs.Switch(w, httptest.NewRequest("POST", "/", nil), ann, zeta.ID))
		c := w.Result().Cookies()[0]
		require.Equal(t, orgs.OrgCookie, c.Name)
		require.True(t, c.HttpOnly)
		require.Equal(t, zeta.Tenant()+" as owner", ask(ann, c.Value))
	})
}

// tokensOf is a TokenVerifier: the token is its abilities, comma-separated.
type tokensOf struct{}

func (tokensOf) VerifyToken(_ context.Context, token string) (string, []string, error) {
	return "token", strings.Split(token, ","), nil
}

// With Options.Tokens, a request with a bearer token acts for the tenant
// the token is bound to, and for none when it is bound to none (the
// route's own check decides what it may do).
func TestTenancyOfTokens(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, authsql.Migrations)
	o, err := orgs.New(orgssql.New(db), &orgs.Options{Tokens: tokensOf{}, User: func(*http.Request) (int64, bool) { return 7, true }})
	require.NoError(t, err)
	h := o.Tenancy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := tenant.Of(r.Context())
		_, _ = w.Write([]byte(strconv.FormatBool(ok) + " " + key))
	}))
	ask := func(auth string) string {
		r := httptest.NewRequest("GET", "/", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Body.String()
	}
	require.Equal(t, "true org:3", ask("Bearer forms:*,tenant:org:3"))
	require.Equal(t, "false ", ask("Bearer forms:*"), "a token of no tenant acts for every one, as its route allows")
	require.Equal(t, "true user:7", ask(""), "no token: the signed-in user's own")
}
