// Package useradmin is the administrators' page of auth's users: find a
// user by name or address, and disable or enable them, turn off their
// two-factor sign-in (when they lost their phone and their recovery
// codes), sign them out of every browser, and see the organizations
// they belong to. It is behind a capability (Capability unless
// Options.Capability names another), and its changes also ask the
// administrator to have typed their password recently, as the account's
// own settings do. It works without JavaScript.
//
// Every change is logged at info with the administrator's ID, so who
// did what can be found again.
package useradmin

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store"
)

// PagePath is the list of users; one user's page is PagePath/{id}.
const PagePath = "/admin/users"

// Capability is what a user needs to see the pages, unless
// Options.Capability names another.
const Capability = "manage-users"

// The pages' templates, which Options.Templates may replace.
const (
	ListTemplate = "useradmin/users.html"
	UserTemplate = "useradmin/user.html"
)

// pageSize is how many users one page of the list shows.
const pageSize = 50

// Membership is an organization a user belongs to, as their page shows
// it.
type Membership struct {
	// Name is the organization's; Role the user's in it ("owner").
	Name, Role string
}

// Options configure a Handler.
type Options struct {
	// Users finds and changes the users; SignIn guards the pages. Both
	// required.
	Users  *auth.Service
	SignIn *auth.Web
	// Capability is what a user needs to see the pages; Capability when
	// "".
	Capability string
	// Organizations lists a user's organizations for their page (the
	// host's, or auth/orgs'); the page shows none when nil.
	Organizations func(ctx context.Context, userID int64) ([]Membership, error)
	// Key signs the pages' CSRF and flash cookies; 32 bytes (the host's
	// groundwork.Keys.For("useradmin")).
	Key []byte
	// Templates replace the pages' own (ListTemplate, UserTemplate) and
	// the layout's, by name. Logger, Brand and Navigator are the pages'
	// (see groundwork.HTTPOptions); TrustedOrigins may post to them
	// besides their own origin.
	Templates      fs.FS
	Logger         *slog.Logger
	Brand          groundwork.Brand
	Navigator      groundwork.Navigator
	TrustedOrigins []string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Handler serves the pages:
//
//	GET  /admin/users                      the users, searched (?q=) and paged (?after=)
//	GET  /admin/users/{id}                 one user: their state, sessions, tokens, organizations
//	POST /admin/users/{id}/disable         disable them (and sign them out everywhere)
//	POST /admin/users/{id}/enable          enable them again
//	POST /admin/users/{id}/two-factor/off  turn off their two-factor sign-in
//	POST /admin/users/{id}/sign-out        sign them out of every browser
//
// An administrator cannot disable themselves. Posts from other origins
// are refused.
type Handler struct {
	base    *web.Base
	serve   http.Handler
	users   *auth.Service
	orgs    func(ctx context.Context, userID int64) ([]Membership, error)
	logger  *slog.Logger
	now     func() time.Time
	pattern []string
}

//go:embed templates
var templatesFS embed.FS

// New returns the handler of o.
func New(opts *Options) (*Handler, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Users == nil || o.SignIn == nil {
		return nil, errors.New("useradmin: new: Users and SignIn are needed")
	}
	if len(o.Key) != 32 {
		return nil, errors.New("useradmin: new: a Key of 32 bytes is needed")
	}
	capability := cmp.Or(o.Capability, Capability)
	h := &Handler{users: o.Users, orgs: o.Organizations, logger: cmp.Or(o.Logger, slog.Default()), now: o.Now}
	if h.now == nil {
		h.now = time.Now
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "useradmin", Pages: pages, Override: o.Templates, Key: o.Key, Logger: o.Logger,
		Brand: o.Brand, Navigator: o.Navigator, AssetPrefix: PagePath + "/_assets",
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no such user.", Link: PagePath, LinkText: "Back to the users"},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explain, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: 1 << 10})
	if err != nil {
		return nil, err
	}
	h.base = base
	admin := o.SignIn.RequireCapability(capability)
	sudo := func(next http.Handler) http.Handler { return admin(o.SignIn.RequirePasswordConfirmed(next)) }
	routes := []struct {
		pattern string
		guard   func(http.Handler) http.Handler
		fn      func(http.ResponseWriter, *http.Request) error
	}{
		{"GET " + PagePath, admin, h.list},
		{"GET " + PagePath + "/{id}", sudo, h.user},
		{"POST " + PagePath + "/{id}/disable", sudo, h.change(disable)},
		{"POST " + PagePath + "/{id}/enable", sudo, h.change(enable)},
		{"POST " + PagePath + "/{id}/two-factor/off", sudo, h.change(twoFactorOff)},
		{"POST " + PagePath + "/{id}/sign-out", sudo, h.change(signOut)},
	}
	for _, r := range routes {
		base.Mux.Handle(r.pattern, r.guard(base.Func(r.fn)))
		h.pattern = append(h.pattern, r.pattern)
	}
	h.serve = o.SignIn.LoadUser(base)
	return h, nil
}

// Join returns the users' page of o on env: what o leaves unset comes
// from the environment (its Key, the environment's key for "useradmin";
// Now; the pages' Logger, Brand and Navigator). Join auth first
// (authsql.Join) for o.Users and o.SignIn.
func Join(env *store.Env, o Options) (*Handler, error) {
	if o.Key == nil {
		o.Key = env.Keys.For("useradmin")
	}
	if o.Now == nil {
		o.Now = env.Now
	}
	web := env.HTTPOptions(env.HTTP)
	o.Logger, o.Brand = cmp.Or(o.Logger, web.Logger), cmp.Or(o.Brand, web.Brand)
	if o.Navigator == nil {
		o.Navigator = web.Navigator
	}
	h, err := New(&o)
	if err != nil {
		return nil, err
	}
	return h, env.Join("useradmin", nil, nil)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.serve.ServeHTTP(w, r) }

// Mount puts the handler's routes on mux.
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.Handle(PagePath, h)
	mux.Handle(PagePath+"/", h)
}

// Routes lists the routes, as "METHOD /path/{param}".
func (h *Handler) Routes() []string {
	return append(append([]string(nil), h.pattern...), "GET "+PagePath+"/_assets/{file}")
}

// errSelf: an administrator tried to disable themselves.
var errSelf = errors.New("useradmin: an administrator cannot disable themselves")

func explain(err error) *web.Problem {
	switch {
	case errors.Is(err, auth.ErrNotFound):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Page not found",
			Message: "There is no such user: they may have deleted their account.", Link: PagePath, LinkText: "Back to the users"}}
	case errors.Is(err, errSelf):
		return &web.Problem{Status: http.StatusForbidden, Err: err, ErrorPage: web.ErrorPage{Heading: "You cannot disable yourself",
			Message: "Another administrator can disable your account, if it must be.", Link: PagePath, LinkText: "Back to the users"}}
	}
	return nil
}

// listPage is what the list shows.
type listPage struct {
	Action, Search string
	Users          []row
	// Next is the next page's address; "" on the last.
	Next string
	// First is the first page's address when this is not it.
	First string
}

// row is a user in the list.
type row struct {
	auth.User
	URL string
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if r := []rune(q); len(r) > 200 {
		q = string(r[:200]) // whole characters: Postgres refuses a cut one
	}
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	users, err := h.users.ListUsers(r.Context(), auth.UserQuery{Search: q, After: max(after, 0), Limit: pageSize + 1})
	if err != nil {
		return err
	}
	data := &listPage{Action: PagePath, Search: q}
	keep := url.Values{}
	if q != "" {
		keep.Set("q", q)
	}
	if after > 0 {
		data.First = PagePath + query(keep)
	}
	if len(users) > pageSize {
		users = users[:pageSize]
		next := url.Values{"after": {strconv.FormatInt(users[len(users)-1].ID, 10)}}
		if q != "" {
			next.Set("q", q)
		}
		data.Next = PagePath + query(next)
	}
	for _, u := range users {
		data.Users = append(data.Users, row{User: u, URL: PagePath + "/" + strconv.FormatInt(u.ID, 10)})
	}
	h.base.Render.Render(w, r, http.StatusOK, ListTemplate, &web.Page{Title: "Users", Data: data, Wide: true,
		Flash: h.base.Render.TakeFlash(w, r, PagePath)})
	return nil
}

func query(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// userPage is what one user's page shows.
type userPage struct {
	User          auth.User
	Action        string
	Self          bool
	Sessions      int
	LastSeen      string
	Tokens        int
	Capabilities  []string
	Organizations []Membership
	// ShowOrganizations is set when the host lists them.
	ShowOrganizations bool
}

// target is the user the path names.
func (h *Handler) target(r *http.Request) (auth.User, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return auth.User{}, auth.ErrNotFound
	}
	return h.users.User(r.Context(), id)
}

func (h *Handler) user(w http.ResponseWriter, r *http.Request) error {
	u, err := h.target(r)
	if err != nil {
		return err
	}
	me, _ := auth.UserFrom(r.Context())
	data := &userPage{User: u, Action: PagePath + "/" + strconv.FormatInt(u.ID, 10), Self: me.ID == u.ID,
		Capabilities: u.Capabilities, ShowOrganizations: h.orgs != nil}
	sessions, err := h.users.Sessions(r.Context(), u.ID, "")
	if err != nil {
		return err
	}
	data.Sessions = len(sessions)
	if len(sessions) > 0 {
		data.LastSeen = sessions[0].LastSeenAt.UTC().Format("2 January 2006, 15:04 UTC")
	}
	tokens, err := h.users.UserTokens(r.Context(), u.ID)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		if t.Active(h.now()) {
			data.Tokens++
		}
	}
	if h.orgs != nil {
		if data.Organizations, err = h.orgs(r.Context(), u.ID); err != nil {
			return err
		}
	}
	h.base.Render.Render(w, r, http.StatusOK, UserTemplate, &web.Page{Title: cmp.Or(u.Name, u.Email), Data: data,
		CSRF: web.CSRFToken(w, r), Flash: h.base.Render.TakeFlash(w, r, data.Action)})
	return nil
}

// An action of the user page: what it does, and what the flash says.
type action int

const (
	disable action = iota
	enable
	twoFactorOff
	signOut
)

func (h *Handler) change(a action) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := h.target(r)
		if err != nil {
			return err
		}
		me, _ := auth.UserFrom(r.Context())
		ctx := r.Context()
		var done, what string
		switch a {
		case disable:
			if me.ID == u.ID {
				return errSelf
			}
			_, err = h.users.SetDisabled(ctx, u.ID, true)
			what, done = "disabled", "Disabled: they are signed out everywhere and cannot sign in, and their API tokens do not work, until you enable them."
		case enable:
			_, err = h.users.SetDisabled(ctx, u.ID, false)
			what, done = "enabled", "Enabled: they can sign in again, and their API tokens work again."
		case twoFactorOff:
			err = h.users.TurnOffTwoFactor(ctx, u.ID)
			what, done = "two-factor sign-in turned off", "Two-factor sign-in is off: they sign in with their password alone until they turn it on again."
		case signOut:
			err = h.users.SignOutEverywhere(ctx, u.ID)
			what, done = "signed out everywhere", "Signed out of every browser. Their API tokens are left as they are."
		}
		if err != nil {
			return err
		}
		h.logger.InfoContext(ctx, "useradmin: user "+what, "user", u.ID, "by", me.ID)
		back := PagePath + "/" + strconv.FormatInt(u.ID, 10)
		h.base.Render.SetFlash(w, r, back, web.Flash{Kind: "success", Message: done})
		web.SeeOther(w, r, back)
		return nil
	}
}
