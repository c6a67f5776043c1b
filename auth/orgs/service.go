package orgs

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/mail"
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
	// Invitations are mailed through Enqueuer (a *store.Queue: the job is
	// registered by RegisterWorkers) by Mailer, from MailFrom, with links
	// on BaseURL; Key (KeySize bytes, such as the host's
	// groundwork.Keys.For("organization invitations")) seals the link in
	// the queued job. Without an Enqueuer and a Mailer nothing is mailed:
	// Invite returns the link for the host to pass on.
	Enqueuer Enqueuer
	Mailer   mail.Mailer
	MailFrom string
	BaseURL  *url.URL
	Key      []byte
	// PagePrefix is where the host serves the organizations page, whose
	// join page the mailed link opens; PagePrefixDefault when empty
	// (Join sets it to the page's Prefix).
	PagePrefix string
	// Tokens, when set, has a request with a bearer token bound to a
	// tenant act for it from the start (the routes that verify tokens
	// themselves, through groundwork's Guard, need none: those a host
	// authorizes with a RequestAuthorizer do).
	Tokens groundwork.TokenVerifier
	// InvitationTTL is how long an invitation holds; a week when 0.
	InvitationTTL time.Duration
	// AppName names the site in the invitation's mail; "groundwork" when
	// empty.
	AppName string
}

// KeySize is the length of Options.Key.
const KeySize = seal.KeySize

// Service keeps organizations and says which one a request acts for.
type Service struct {
	store  Store
	now    func() time.Time
	roles  []Role
	user   func(r *http.Request) (int64, bool)
	o      Options
	sealer *seal.Sealer
	left   []func(ctx context.Context, m Membership)
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
	s := &Service{store: st, now: o.Now, roles: append([]Role{RoleOwner, RoleAdmin, RoleMember}, o.Roles...), user: o.User, o: o}
	if s.o.InvitationTTL <= 0 {
		s.o.InvitationTTL = 7 * 24 * time.Hour
	}
	s.o.AppName = cmp.Or(s.o.AppName, "groundwork")
	if o.Enqueuer != nil && o.Mailer != nil {
		var err error
		if s.sealer, err = seal.New(o.Key); err != nil {
			return nil, fmt.Errorf("orgs: new: mailing invitations needs a %d-byte Key: %w", KeySize, err)
		}
	}
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
// (Current says which) or their own, and one with a bearer token (given
// Options.Tokens) for the tenant the token is bound to.
func (s *Service) Tenancy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token, ok := api.BearerToken(r); ok && s.o.Tokens != nil {
			_, abilities, err := s.o.Tokens.VerifyToken(r.Context(), token)
			if err == nil {
				for _, a := range abilities {
					if key, bound := strings.CutPrefix(a, tenant.AbilityPrefix); bound {
						r = r.WithContext(tenant.With(r.Context(), key))
						break
					}
				}
			}
			next.ServeHTTP(w, r) // the route checks the token itself
			return
		}
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

// manager is by's membership of orgID when it may manage the members
// (owner or admin); ErrForbidden otherwise (ErrNotFound when by is none).
func (s *Service) manager(ctx context.Context, orgID, by int64) (Membership, error) {
	m, err := s.store.Membership(ctx, orgID, by)
	if err != nil {
		return m, err
	}
	if m.Role != RoleOwner && m.Role != RoleAdmin {
		return m, ErrForbidden
	}
	return m, nil
}

// ChangeMember gives a member of orgID another role, or removes them
// (role ""), as by asks: an owner or an admin changes anyone but an
// owner, an owner changes anyone, and anyone may leave. ErrLastOwner
// when the organization would keep no owner (held across instances:
// the store makes the changes of one organization one after another).
func (s *Service) ChangeMember(ctx context.Context, orgID, by, userID int64, role Role) error {
	if role != "" && !slices.Contains(s.roles, role) {
		return api.Invalid("role", api.MsgSelected("role"))
	}
	if !(by == userID && role == "") {
		m, err := s.manager(ctx, orgID, by)
		if err != nil {
			return err
		}
		target, err := s.store.Membership(ctx, orgID, userID)
		if err != nil {
			return err
		}
		if m.Role != RoleOwner && (target.Role == RoleOwner || role == RoleOwner) {
			return ErrForbidden
		}
	}
	if role == "" {
		gone, err := s.store.Membership(ctx, orgID, userID)
		if err != nil {
			return err
		}
		if err := s.store.ChangeMember(ctx, orgID, userID, ""); err != nil {
			return err
		}
		for _, h := range s.left {
			h(ctx, gone)
		}
		return nil
	}
	return s.store.ChangeMember(ctx, orgID, userID, role)
}

// OnMemberLeft registers h, called after a member left or was removed
// from an organization: to revoke the tokens they made for it (they are
// bound to its tenant, and would go on acting for it), say. Register
// before serving.
func (s *Service) OnMemberLeft(h func(ctx context.Context, m Membership)) { s.left = append(s.left, h) }

// Invite asks email to join orgID with role, as by (an owner or an
// admin; only an owner invites an owner) asks: it returns the invitation
// and its link's token (good once, for Options.InvitationTTL), and mails
// the link when the service mails.
func (s *Service) Invite(ctx context.Context, orgID, by int64, email string, role Role) (Invitation, string, error) {
	m, err := s.manager(ctx, orgID, by)
	if err != nil {
		return Invitation{}, "", err
	}
	email = auth.NormalizeEmail(email) // as the user's address is kept, which the invitation must match
	v := &api.Validator{}
	if !api.ValidEmail(email) {
		v.Add("email", api.MsgEmail("email"))
	}
	if !slices.Contains(s.roles, role) {
		v.Add("role", api.MsgSelected("role"))
	}
	if err := v.Err(); err != nil {
		return Invitation{}, "", err
	}
	if role == RoleOwner && m.Role != RoleOwner {
		return Invitation{}, "", ErrForbidden
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return Invitation{}, "", fmt.Errorf("orgs: invite: %w", err)
	}
	token := hex.EncodeToString(raw)
	now := s.now().UTC().Truncate(time.Microsecond)
	inv := Invitation{OrganizationID: orgID, OrganizationName: m.Name, Email: email, Role: role, InvitedBy: by, CreatedAt: now,
		ExpiresAt: now.Add(s.o.InvitationTTL)}
	if err := s.store.CreateInvitation(ctx, &inv, tokenHash(token)); err != nil {
		return Invitation{}, "", fmt.Errorf("orgs: invite: %w", err)
	}
	if err := s.mailInvitation(ctx, inv, token); err != nil {
		return inv, token, err
	}
	return inv, token, nil
}

// Invitations are orgID's invitations still good, newest first.
func (s *Service) Invitations(ctx context.Context, orgID int64) ([]Invitation, error) {
	return s.store.Invitations(ctx, orgID, s.now())
}

// Invitation is the invitation of a link's token, if still good;
// ErrNotFound otherwise.
func (s *Service) Invitation(ctx context.Context, token string) (Invitation, error) {
	return s.store.Invitation(ctx, tokenHash(token), s.now())
}

// RevokeInvitation ends one of orgID's invitations, as by (an owner or
// an admin) asks.
func (s *Service) RevokeInvitation(ctx context.Context, orgID, by, id int64) error {
	if _, err := s.manager(ctx, orgID, by); err != nil {
		return err
	}
	return s.store.RevokeInvitation(ctx, orgID, id, s.now())
}

// Accept uses an invitation's token once, for the user it was sent to:
// userID, whose address must be the invitation's (a link passed on, or
// leaked, joins nobody else), joins its organization with its role (a
// member already keeps theirs). ErrNotFound when it is used (on any
// instance), revoked, expired, not there or for another address.
func (s *Service) Accept(ctx context.Context, token string, userID int64) (Membership, error) {
	return s.store.AcceptInvitation(ctx, tokenHash(token), userID, s.now().UTC().Truncate(time.Microsecond))
}

// InvitationQuery names an invitation's token in its link.
const InvitationQuery = "invitation"

// invitationPath is the address of an invitation's link, under the
// page's prefix: its page asks before it joins.
func invitationPath(prefix, token string) string {
	return prefix + "/join?" + InvitationQuery + "=" + token
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
