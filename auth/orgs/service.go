package orgs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/tenant"
)

// OrgCookie names the organization a browser's requests act for (its
// id); Tenancy heeds it only for a member.
const OrgCookie = "gw_org"

// Options configure a Service. The zero value works.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Roles are a host's own roles, beside owner, admin and member.
	Roles []Role
	// User finds the signed-in user of a request; auth.UserFrom (after
	// auth's LoadUser) when nil.
	User func(r *http.Request) (userID int64, ok bool)
}

// Service keeps organizations and says which one a request acts for.
type Service struct {
	store Store
	now   func() time.Time
	roles []Role
	user  func(r *http.Request) (int64, bool)
}

// New returns the organizations of st.
func New(st Store, opts *Options) (*Service, error) {
	if st == nil {
		return nil, errors.New("orgs: new: a store is needed")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Service{store: st, now: o.Now, roles: append([]Role{RoleOwner, RoleAdmin, RoleMember}, o.Roles...), user: o.User}
	if s.now == nil {
		s.now = time.Now
	}
	if s.user == nil {
		s.user = func(r *http.Request) (int64, bool) {
			u, ok := auth.UserFrom(r.Context())
			return u.ID, ok
		}
	}
	return s, nil
}

// Create makes an organization named name, with ownerID its owner. A bad
// name is a *api.ValidationError.
func (s *Service) Create(ctx context.Context, name string, ownerID int64) (Organization, error) {
	name = strings.TrimSpace(name)
	v := &api.Validator{}
	switch {
	case name == "":
		v.Add("name", api.MsgRequired("name"))
	case utf8.RuneCountInString(name) > NameMaxLength:
		v.Add("name", api.MsgMaxChars("name", NameMaxLength))
	}
	if err := v.Err(); err != nil {
		return Organization{}, err
	}
	o := Organization{Name: name, CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.store.CreateOrganization(ctx, &o, ownerID, RoleOwner); err != nil {
		return Organization{}, fmt.Errorf("orgs: create: %w", err)
	}
	return o, nil
}

// Organizations are the memberships of a user, by organization name.
func (s *Service) Organizations(ctx context.Context, userID int64) ([]Membership, error) {
	return s.store.Memberships(ctx, userID)
}

// Membership is a user's membership of an organization; ErrNotFound when
// they are none.
func (s *Service) Membership(ctx context.Context, orgID, userID int64) (Membership, error) {
	return s.store.Membership(ctx, orgID, userID)
}

// AddMember makes a user a member of an organization with role (one of
// the service's roles), or gives a member that role.
func (s *Service) AddMember(ctx context.Context, orgID, userID int64, role Role) error {
	if !slices.Contains(s.roles, role) {
		return api.Invalid("role", api.MsgSelected("role"))
	}
	return s.store.AddMember(ctx, Membership{Organization: Organization{ID: orgID}, UserID: userID, Role: role,
		JoinedAt: s.now().UTC().Truncate(time.Microsecond)})
}

// Members are an organization's members, by name.
func (s *Service) Members(ctx context.Context, orgID int64) ([]Member, error) {
	return s.store.Members(ctx, orgID)
}

type currentKey struct{}

// Current is the membership a request acts for, once Tenancy has run;
// false for a guest, or a user in no organization.
func Current(ctx context.Context) (Membership, bool) {
	m, ok := ctx.Value(currentKey{}).(Membership)
	return m, ok
}

// Tenancy puts in each request's context the tenant it acts for (see
// the package comment): a guest's request acts for no tenant (the pages
// it reaches are public), a signed-in user's for the organization chosen
// (Current says which) or their own.
func (s *Service) Tenancy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		userID, ok := s.user(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		m, found, err := s.chosen(r, userID)
		if err != nil {
			http.Error(w, "The service is unavailable just now; try again in a moment.", http.StatusServiceUnavailable)
			return
		}
		ctx := tenant.With(r.Context(), PersonalTenant(userID))
		if found {
			ctx = context.WithValue(tenant.With(r.Context(), m.Tenant()), currentKey{}, m)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// chosen is the membership a signed-in user's request acts for: the
// cookie's organization if they are its member, else their first.
func (s *Service) chosen(r *http.Request, userID int64) (Membership, bool, error) {
	if c, err := r.Cookie(OrgCookie); err == nil {
		if id, err := strconv.ParseInt(c.Value, 10, 64); err == nil {
			m, err := s.store.Membership(r.Context(), id, userID)
			if err == nil {
				return m, true, nil
			}
			if !errors.Is(err, ErrNotFound) {
				return Membership{}, false, err
			}
		}
	}
	list, err := s.store.Memberships(r.Context(), userID)
	if err != nil || len(list) == 0 {
		return Membership{}, false, err
	}
	return list[0], true, nil
}

// Switch makes the browser's requests act for the organization orgID,
// which userID must be a member of (ErrNotFound otherwise).
func (s *Service) Switch(w http.ResponseWriter, r *http.Request, userID, orgID int64) error {
	if _, err := s.store.Membership(r.Context(), orgID, userID); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: OrgCookie, Value: strconv.FormatInt(orgID, 10), Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, MaxAge: 400 * 24 * 60 * 60})
	return nil
}
