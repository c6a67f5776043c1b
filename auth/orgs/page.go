package orgs

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/web"
)

// PagePrefixDefault is where the organizations page is served.
const PagePrefixDefault = "/organizations"

// Template is the page's template, and JoinTemplate the page of an
// invitation's link, which PageOptions.Templates may replace.
const (
	Template     = "orgs/organizations.html"
	JoinTemplate = "orgs/join.html"
)

//go:embed templates
var templatesFS embed.FS

// PageOptions configure a PageHandler. The zero value works.
type PageOptions struct {
	// Prefix is where the page is served; PagePrefixDefault when empty.
	Prefix string
	// Key signs the page's messages across a redirect (the host's
	// groundwork.Keys.PageFlash()); a key of the process's when nil.
	Key []byte
	// Templates replace the page's own (Template) and the layout's, by
	// name.
	Templates fs.FS
	// Logger, Brand and Navigator are the pages' own (see
	// groundwork.HTTPOptions); TrustedOrigins may post to them besides
	// the page's own origin.
	Logger         *slog.Logger
	Brand          groundwork.Brand
	Navigator      groundwork.Navigator
	TrustedOrigins []string
}

// PageHandler is a signed-in user's organizations page, working without
// JavaScript: GET {prefix} lists their organizations with their role,
// marks the one they act for, offers to switch to each other one (POST
// {prefix}/{id}/switch), lists the current one's members, and makes a
// new organization (POST {prefix}), of which they are the owner and in
// which they then act. A guest gets 404: mount it behind auth's
// RequireUser. Posts from other origins are refused.
type PageHandler struct {
	base   *web.Base
	svc    *Service
	prefix string
}

// NewPageHandler returns the organizations page of svc.
func NewPageHandler(svc *Service, opts *PageOptions) (*PageHandler, error) {
	if svc == nil {
		return nil, errors.New("orgs: new page handler: a service is needed")
	}
	var o PageOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "orgs", Prefix: o.Prefix, Default: PagePrefixDefault, Pages: pages,
		Override: o.Templates, Key: o.Key, Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explainPage, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: 16 << 10})
	if err != nil {
		return nil, err
	}
	p := &PageHandler{base: base, svc: svc, prefix: base.Prefix}
	base.Mux.HandleFunc("GET "+p.prefix+"/{$}", base.Func(p.show))
	base.Mux.HandleFunc("GET "+p.prefix, base.Func(p.show))
	base.Mux.HandleFunc("POST "+p.prefix, base.Func(p.create))
	base.Mux.HandleFunc("POST "+p.prefix+"/{id}/switch", base.Func(p.switchTo))
	base.Mux.HandleFunc("POST "+p.prefix+"/{id}/members/{user}", base.Func(p.changeMember))
	base.Mux.HandleFunc("POST "+p.prefix+"/{id}/invitations", base.Func(p.invite))
	base.Mux.HandleFunc("POST "+p.prefix+"/{id}/invitations/{invitation}/revoke", base.Func(p.revoke))
	base.Mux.HandleFunc("GET "+p.prefix+"/join", base.Func(p.showJoin))
	base.Mux.HandleFunc("POST "+p.prefix+"/join", base.Func(p.join))
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	return []string{"GET " + p.prefix, "POST " + p.prefix, "POST " + p.prefix + "/{id}/switch", "POST " + p.prefix + "/{id}/members/{user}",
		"POST " + p.prefix + "/{id}/invitations", "POST " + p.prefix + "/{id}/invitations/{invitation}/revoke", "GET " + p.prefix + "/join",
		"POST " + p.prefix + "/join", "GET " + p.prefix + "/_assets/{file}"}
}

func explainPage(err error) *web.Problem {
	switch {
	case errors.Is(err, errInvitation):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "This invitation does not hold",
			Message: "It has been used, withdrawn or has expired. Ask whoever invited you for a new one."}}
	case errors.Is(err, ErrNotFound):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Page not found",
			Message: "There is no such organization of yours."}}
	case errors.Is(err, ErrForbidden):
		return &web.Problem{Status: http.StatusForbidden, Err: err, ErrorPage: web.ErrorPage{Heading: "Not allowed",
			Message: "Your role in this organization does not allow that: only an owner or an admin manages its members, and only an owner its owners."}}
	}
	return nil
}

// errInvitation is an invitation link that no longer holds.
var errInvitation = errors.New("orgs: the invitation does not hold")

// orgsPage is what the page shows.
type orgsPage struct {
	Action  string
	Current *Membership
	Mine    []Membership
	Members []memberRow
	// Manager is whether the user manages the current organization's
	// members (an owner or an admin); Invitations are its invitations
	// still good, and Email and Role the invitation form's fields.
	Manager     bool
	Invitations []Invitation
	Email, Role web.Field
	Name        web.Field
	Summary     []web.SummaryItem
}

// memberRow is a member with the roles the user may give them (none:
// no change offered), whether the user may remove them, or is them, and
// may leave.
type memberRow struct {
	Member
	Roles                    []web.Option
	Removable, You, CanLeave bool
}

// user is the signed-in user of r; ErrNotFound for a guest.
func (p *PageHandler) user(r *http.Request) (int64, error) {
	id, ok := p.svc.user(r)
	if !ok {
		return 0, ErrNotFound
	}
	return id, nil
}

func (p *PageHandler) show(w http.ResponseWriter, r *http.Request) error {
	return p.draw(w, r, http.StatusOK, drawn{})
}

// drawn is what a post that is refused brings back to the page: the
// fields' values and their messages.
type drawn struct {
	name, email, role string
	errs              map[string][]string
}

func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, d drawn) error {
	userID, err := p.user(r)
	if err != nil {
		return err
	}
	data := &orgsPage{Action: p.prefix, Name: web.Field{Type: "text", Name: "name", ID: web.FieldID("name"), Label: "Name",
		Help: "Your team's or your company's name: its members see it.", Value: d.name, Required: true, Errors: d.errs["name"]}}
	if data.Mine, err = p.svc.Organizations(r.Context(), userID); err != nil {
		return err
	}
	current, found, err := p.svc.chosen(r, userID)
	if err != nil {
		return err
	}
	fields := []web.Field{data.Name}
	if found {
		data.Current = &current
		if err := p.members(r.Context(), data, current, userID); err != nil {
			return err
		}
		if data.Manager {
			if data.Invitations, err = p.svc.Invitations(r.Context(), current.ID); err != nil {
				return err
			}
			data.Email = web.Field{Type: "email", Name: "email", ID: web.FieldID("email"), Label: "Email address", Autocomplete: "off",
				Value: d.email, Required: true, Errors: d.errs["email"], Help: "We email them a link that joins them, good for a week."}
			if p.svc.sealer == nil {
				data.Email.Help = "You get a link to send them, which joins them, good for a week."
			}
			data.Role = web.Field{Type: web.TypeSelect, Name: "role", ID: web.FieldID("role"), Label: "Role", Options: p.roleOptions(current.Role,
				cmp.Or(Role(d.role), RoleMember)), Errors: d.errs["role"]}
			fields = []web.Field{data.Email, data.Role, data.Name}
		}
	}
	data.Summary = web.Summary(fields)
	title := "Organizations"
	if len(d.errs) > 0 {
		title = "Error: " + title
	}
	p.base.Render.Render(w, r, status, Template, &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r),
		Flash: p.base.Render.TakeFlash(w, r, p.prefix)})
	return nil
}

// members fills in the current organization's members, with what the
// user (whose membership is current) may change of each.
func (p *PageHandler) members(ctx context.Context, data *orgsPage, current Membership, userID int64) error {
	list, err := p.svc.Members(ctx, current.ID)
	if err != nil {
		return err
	}
	data.Manager = current.Role == RoleOwner || current.Role == RoleAdmin
	owners := 0
	for _, m := range list {
		if m.Role == RoleOwner {
			owners++
		}
	}
	for _, m := range list {
		// The last owner is offered no way out: they make another owner
		// first.
		row := memberRow{Member: m, You: m.UserID == userID, CanLeave: m.UserID == userID && (m.Role != RoleOwner || owners > 1)}
		if data.Manager && !row.You && (current.Role == RoleOwner || m.Role != RoleOwner) {
			row.Roles, row.Removable = p.roleOptions(current.Role, m.Role), true
		}
		data.Members = append(data.Members, row)
	}
	return nil
}

// roleOptions are the roles one of role may give, chosen marked.
func (p *PageHandler) roleOptions(role, chosen Role) []web.Option {
	var out []web.Option
	for _, r := range p.svc.roles {
		if r == RoleOwner && role != RoleOwner {
			continue
		}
		out = append(out, web.Option{Value: string(r), Label: string(r), Selected: r == chosen})
	}
	return out
}

// pathIDs are the signed-in user of r and the numbers its path names
// (ErrNotFound when one is not a number, or for a guest).
func (p *PageHandler) pathIDs(r *http.Request, names ...string) (int64, []int64, error) {
	userID, err := p.user(r)
	if err != nil {
		return 0, nil, err
	}
	ids := make([]int64, len(names))
	for i, name := range names {
		if ids[i], err = strconv.ParseInt(r.PathValue(name), 10, 64); err != nil {
			return 0, nil, ErrNotFound
		}
	}
	return userID, ids, nil
}

func (p *PageHandler) changeMember(w http.ResponseWriter, r *http.Request) error {
	userID, ids, err := p.pathIDs(r, "id", "user")
	if err != nil {
		return err
	}
	org, member := ids[0], ids[1]
	role, message := Role(r.PostFormValue("role")), "The role is changed."
	if r.PostFormValue("action") == "remove" {
		role, message = "", "The member is removed."
		if member == userID {
			message = "You have left the organization."
		}
	}
	err = p.svc.ChangeMember(r.Context(), org, userID, member, role)
	if errors.Is(err, ErrLastOwner) {
		p.back(w, r, web.Flash{Kind: "error", Message: "The organization keeps at least one owner: make someone else an owner first."})
		return nil
	}
	if err != nil {
		return err
	}
	p.back(w, r, web.Flash{Kind: "success", Message: message})
	return nil
}

func (p *PageHandler) invite(w http.ResponseWriter, r *http.Request) error {
	userID, ids, err := p.pathIDs(r, "id")
	if err != nil {
		return err
	}
	org := ids[0]
	email, role := r.PostFormValue("email"), r.PostFormValue("role")
	inv, token, err := p.svc.Invite(r.Context(), org, userID, email, Role(role))
	if ve, ok := errors.AsType[*api.ValidationError](err); ok {
		return p.draw(w, r, http.StatusUnprocessableEntity, drawn{email: email, role: role, errs: ve.Fields()})
	}
	if err != nil {
		return err
	}
	message := "We have emailed an invitation to " + inv.Email + "."
	if p.svc.sealer == nil {
		link := paging.AbsoluteURL(r, p.svc.o.BaseURL)
		link.Path, link.RawQuery = strings.TrimSuffix(link.Path, r.URL.Path)+p.prefix+"/join", InvitationQuery+"="+token
		message = "Send " + inv.Email + " this link, which joins them once, within a week: " + link.String()
	}
	p.back(w, r, web.Flash{Kind: "success", Message: message})
	return nil
}

func (p *PageHandler) revoke(w http.ResponseWriter, r *http.Request) error {
	userID, ids, err := p.pathIDs(r, "id", "invitation")
	if err != nil {
		return err
	}
	if err := p.svc.RevokeInvitation(r.Context(), ids[0], userID, ids[1]); err != nil {
		return err
	}
	p.back(w, r, web.Flash{Kind: "success", Message: "The invitation is withdrawn: its link no longer joins anyone."})
	return nil
}

// joinPage asks before an invitation's link joins; or, when the user
// signed in is not the invitation's address (Other; SignedInAs theirs,
// when known), says so.
type joinPage struct {
	Invitation    Invitation
	Action, Token string
	Other         bool
	SignedInAs    string
}

func (p *PageHandler) showJoin(w http.ResponseWriter, r *http.Request) error {
	if _, err := p.user(r); err != nil {
		return err
	}
	token := r.URL.Query().Get(InvitationQuery)
	inv, err := p.svc.Invitation(r.Context(), token)
	if errors.Is(err, ErrNotFound) {
		return errInvitation
	}
	if err != nil {
		return err
	}
	return p.drawJoin(w, r, http.StatusOK, inv, token, false)
}

// drawJoin draws the join page of inv: the question, or, for a user of
// another address (other, or auth's user, when signed in with auth),
// what to do.
func (p *PageHandler) drawJoin(w http.ResponseWriter, r *http.Request, status int, inv Invitation, token string, other bool) error {
	data := &joinPage{Invitation: inv, Action: p.prefix + "/join", Token: token, Other: other}
	if u, ok := auth.UserFrom(r.Context()); ok && auth.NormalizeEmail(u.Email) != auth.NormalizeEmail(inv.Email) {
		data.Other, data.SignedInAs = true, u.Email
	}
	title := "Join " + inv.OrganizationName
	if data.Other {
		title = "This invitation is for another address"
	}
	p.base.Render.Render(w, r, status, JoinTemplate, &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r)})
	return nil
}

func (p *PageHandler) join(w http.ResponseWriter, r *http.Request) error {
	userID, err := p.user(r)
	if err != nil {
		return err
	}
	token := r.PostFormValue(InvitationQuery)
	m, err := p.svc.Accept(r.Context(), token, userID)
	if errors.Is(err, ErrNotFound) {
		if inv, err := p.svc.Invitation(r.Context(), token); err == nil {
			return p.drawJoin(w, r, http.StatusForbidden, inv, token, true) // it holds: it is another address's
		}
		return errInvitation
	}
	if err != nil {
		return err
	}
	if err := p.svc.Switch(w, r, userID, m.ID); err != nil {
		return err
	}
	p.back(w, r, web.Flash{Kind: "success", Message: "You have joined " + m.Name + ", as " + string(m.Role) + ", and are working in it."})
	return nil
}

func (p *PageHandler) create(w http.ResponseWriter, r *http.Request) error {
	userID, err := p.user(r)
	if err != nil {
		return err
	}
	name := r.PostFormValue("name")
	o, err := p.svc.Create(r.Context(), name, userID)
	if ve, ok := errors.AsType[*api.ValidationError](err); ok {
		return p.draw(w, r, http.StatusUnprocessableEntity, drawn{name: name, errs: ve.Fields()})
	}
	if err != nil {
		return err
	}
	if err := p.svc.Switch(w, r, userID, o.ID); err != nil {
		return err
	}
	p.back(w, r, web.Flash{Kind: "success", Message: o.Name + " is made, and you are working in it."})
	return nil
}

func (p *PageHandler) switchTo(w http.ResponseWriter, r *http.Request) error {
	userID, ids, err := p.pathIDs(r, "id")
	if err != nil {
		return err
	}
	id := ids[0]
	if err := p.svc.Switch(w, r, userID, id); err != nil {
		return err
	}
	m, err := p.svc.Membership(r.Context(), id, userID)
	if err != nil {
		return err
	}
	p.back(w, r, web.Flash{Kind: "success", Message: "You are working in " + m.Name + " now."})
	return nil
}

func (p *PageHandler) back(w http.ResponseWriter, r *http.Request, f web.Flash) {
	p.base.Render.SetFlash(w, r, p.prefix, f)
	web.SeeOther(w, r, p.prefix)
}
