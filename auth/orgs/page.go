package orgs

import (
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
)

// PagePrefixDefault is where the organizations page is served.
const PagePrefixDefault = "/organizations"

// Template is the page's template, which PageOptions.Templates may
// replace.
const Template = "orgs/organizations.html"

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
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	return []string{"GET " + p.prefix, "POST " + p.prefix, "POST " + p.prefix + "/{id}/switch", "GET " + p.prefix + "/_assets/{file}"}
}

func explainPage(err error) *web.Problem {
	if errors.Is(err, ErrNotFound) {
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Page not found",
			Message: "There is no such organization of yours."}}
	}
	return nil
}

// orgsPage is what the page shows.
type orgsPage struct {
	Action  string
	Current *Membership
	Mine    []Membership
	Members []Member
	Name    web.Field
	Summary []web.SummaryItem
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
	return p.draw(w, r, http.StatusOK, "", nil)
}

func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, name string, errs []string) error {
	userID, err := p.user(r)
	if err != nil {
		return err
	}
	data := &orgsPage{Action: p.prefix, Name: web.Field{Type: "text", Name: "name", ID: web.FieldID("name"), Label: "Name",
		Help: "Your team's or your company's name: its members see it.", Value: name, Required: true, Errors: errs}}
	if data.Mine, err = p.svc.Organizations(r.Context(), userID); err != nil {
		return err
	}
	current, found, err := p.svc.chosen(r, userID)
	if err != nil {
		return err
	}
	if found {
		data.Current = &current
		if data.Members, err = p.svc.Members(r.Context(), current.ID); err != nil {
			return err
		}
	}
	data.Summary = web.Summary([]web.Field{data.Name})
	title := "Organizations"
	if len(errs) > 0 {
		title = "Error: " + title
	}
	p.base.Render.Render(w, r, status, Template, &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r),
		Flash: p.base.Render.TakeFlash(w, r, p.prefix)})
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
		return p.draw(w, r, http.StatusUnprocessableEntity, name, ve.Fields()["name"])
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
	userID, err := p.user(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return ErrNotFound
	}
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
