package main

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/webhooks"
)

//go:embed pages
var pagesFS embed.FS

// site is the reference server's own pages: the home page at /, the
// signed-in user's dashboard, and the error pages browsers get.
type site struct {
	render     *web.Renderer
	forms      *forms.Service
	bookings   *bookings.Service
	adminEmail string
	// publicOrigin is the site's configured public address ("" when
	// none), for the API reference's examples.
	publicOrigin string
	logger       *slog.Logger
	// api is the API reference page's content.
	api *apiDocsPage
}

// tile is one link of the dashboard or the home page, with a sentence.
type tile struct{ Text, URL, About string }

// tools are what the dashboard offers, each shown to users who have its
// capability (none: everyone).
var tools = []struct {
	tile
	Capability string
}{
	{tile{"Reports", "/reporting", "Visitors, pages, sources and devices, against the period before."}, reporting.CapabilityView},
	{tile{"Form answers", forms.SummaryPathDefault + "/", "What people answered, how many saw each form and where they stopped."}, forms.CapabilityViewAnswers},
	{tile{"Bookings", bookings.ListPagePrefixDefault + "/", "Upcoming, requested, past and cancelled bookings: confirm, move or cancel them."}, bookings.CapabilityViewBookings},
}

// developerAreas are the parts of the API a user's tokens may be given,
// each by the capability that opens it; the dashboard's one Developers
// link names those the user has.
var developerAreas = []struct{ Name, Capability string }{
	{"forms", forms.AbilityViewAny},
	{"webhooks", webhooks.AbilityViewAny},
	{"bookings", bookings.AbilityView},
	{"AI colour reviews", a11y.AIAbilityDefault},
}

type dashboardPage struct {
	User  auth.User
	Tools []tile
	// Developer names the API areas the user's tokens may use; none: no
	// Developers link and no tokens offered.
	Developer  []string
	Verified   bool
	AdminEmail string
}

// HasAccess reports whether the user may use anything beyond their
// account.
func (p *dashboardPage) HasAccess() bool { return len(p.Tools) > 0 || len(p.Developer) > 0 }

// dashboard is GET /dashboard, the signed-in user's home: their links,
// their address's state, and who grants access when they have none.
func (s *site) dashboard(w http.ResponseWriter, req *http.Request) {
	u, ok := auth.UserFrom(req.Context())
	if !ok {
		s.errorPage(w, req, http.StatusUnauthorized)
		return
	}
	page := &dashboardPage{User: u, Verified: req.URL.Query().Get("verified") == "1", AdminEmail: s.adminEmail}
	for _, t := range tools {
		if t.Capability == "" || u.Can(t.Capability) {
			page.Tools = append(page.Tools, t.tile)
		}
	}
	for _, a := range developerAreas {
		if u.Can(a.Capability) {
			page.Developer = append(page.Developer, a.Name)
		}
	}
	s.render.Render(w, req, http.StatusOK, "pages/dashboard.html", &web.Page{Title: "Dashboard", Data: page})
}

type homePage struct {
	Forms, Bookings []homeTile
}

// homeTile is a form or a service on the home page; Detail says a
// service's length and price ("30 minutes · 25.00 EUR").
type homeTile struct {
	tile
	Detail string
}

// home is GET /: for a browser, a small page linking sign-in and the
// public forms and booking pages; for anything else, the JSON index of
// endpoints.
func (s *site) home(w http.ResponseWriter, req *http.Request) {
	if !wantsPage(req) {
		index(w, req)
		return
	}
	page, err := s.publicPages(req.Context())
	if err != nil && api.ClientGone(req) {
		api.AnswerClientGone(w, req, s.logger, err)
		return
	}
	if err != nil {
		s.logger.ErrorContext(req.Context(), "reference: home page", "error", err)
		s.errorPage(w, req, http.StatusInternalServerError)
		return
	}
	s.render.Render(w, req, http.StatusOK, "pages/home.html", &web.Page{Title: "Home", Data: page})
}

// publicPages lists the open forms (of the first 50 active: one closed
// by its dates or full is left out) and the bookable services, each with
// its length and price.
func (s *site) publicPages(ctx context.Context) (*homePage, error) {
	page := &homePage{}
	active := true
	list, _, err := s.forms.ListForms(ctx, &active, groundwork.PageRequest{Page: 1, PerPage: 50})
	if err != nil {
		return nil, err
	}
	now := time.Now()
	for _, f := range list {
		if !forms.Open(&f, now) {
			continue
		}
		if full, err := s.forms.Full(ctx, &f); err != nil || full {
			continue
		}
		page.Forms = append(page.Forms, homeTile{tile: tile{f.Name, forms.PagePrefixDefault + "/" + f.Slug, f.Description}})
	}
	services, err := s.bookings.ListServices(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range services {
		detail := fmt.Sprintf("%d minutes", o.Duration)
		switch {
		case o.IsFree:
			detail += " · free"
		case o.Price != nil && *o.Price != "":
			detail += " · " + strings.TrimSpace(*o.Price+" "+o.Currency)
		}
		page.Bookings = append(page.Bookings, homeTile{tile: tile{o.Name, bookings.PagePrefixDefault + "/" + o.Slug, o.Description}, Detail: detail})
	}
	return page, nil
}

// wantsPage reports whether a request is a browser's asking for a page:
// its Accept names HTML, and it is not a script asking for JSON.
func wantsPage(r *http.Request) bool {
	return !web.WantsJSON(r) && web.AcceptsHTML(r)
}

// errorPages are the statuses a browser gets as a page rather than the
// API's JSON, with what the page says.
var errorPages = map[int]web.ErrorPage{
	http.StatusUnauthorized: {Heading: "Sign in first", Message: "This address answers signed-in users and scripts with a token.",
		Link: "/login", LinkText: "Sign in"},
	http.StatusForbidden: {Heading: "You do not have access to this page", Message: "Your account may not use this page or action."},
	http.StatusNotFound:  {Heading: "Page not found", Message: "There is no page at this address. Check the link, or start again from the home page."},
	http.StatusMethodNotAllowed: {Heading: "Not possible here", Message: "This address does not take that kind of request. " +
		"Go back to the page you came from and use its links and buttons."},
	http.StatusTooManyRequests: {Heading: "Too many requests", Message: "Too many requests came from you in a short time."},
	http.StatusInternalServerError: {Heading: "Something went wrong", Message: "The page could not be shown because of an error on our side. " +
		"It has been logged; please try again in a moment."},
	http.StatusServiceUnavailable: {Heading: "The site is busy for a moment", Message: "Nothing you sent was saved half-way. " +
		"Try again in a few seconds."},
}

// errorPage answers status with its page in the layout (the signed-in
// header kept, a link home), saying how long to wait when the answer has
// a Retry-After.
func (s *site) errorPage(w http.ResponseWriter, req *http.Request, status int) {
	e, ok := errorPages[status]
	if !ok {
		e = web.ErrorPage{Heading: http.StatusText(status), Message: "The request could not be answered."}
	}
	if status == http.StatusForbidden {
		e = web.ErrorPage{Heading: "You do not have access to this page", Message: "Your account may not use the page at " + req.URL.Path + " yet.",
			Contact: s.adminEmail}
		if e.Contact == "" {
			e.Message += " Ask the person who runs this site for access."
		}
	}
	if secs, err := strconv.Atoi(w.Header().Get("Retry-After")); err == nil && secs > 0 {
		e.Message += " Please try again in " + web.Count(secs, "second") + "."
		if e.Link == "" {
			e.Link, e.LinkText = req.URL.RequestURI(), "Try again"
		}
	}
	s.render.Error(w, req, status, e)
}

// pages answers browsers' errors as pages: a response from h with one of
// the errorPages statuses and no page of its own (the API's JSON, the
// mux's plain text) is replaced by the error page, keeping the headers
// that say when to retry or what is allowed. Scripts keep the JSON.
func (s *site) pages(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !wantsPage(r) {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&errorPageWriter{ResponseWriter: w, r: r, site: s}, r)
	})
}

// errorPageWriter passes a response through unless its status calls for
// an error page and it is not a page already.
type errorPageWriter struct {
	http.ResponseWriter
	r        *http.Request
	site     *site
	wrote    bool
	replaced bool
}

func (e *errorPageWriter) WriteHeader(status int) {
	if e.wrote {
		return
	}
	e.wrote = true
	_, isPage := errorPages[status]
	ct := e.Header().Get("Content-Type")
	if isPage && status != http.StatusUnauthorized && !strings.HasPrefix(ct, "text/html") {
		e.replaced = true
		h := e.Header()
		for _, k := range []string{"Content-Type", "Content-Length", "X-Content-Type-Options", "Cache-Control"} {
			h.Del(k)
		}
		e.site.errorPage(e.ResponseWriter, e.r, status)
		return
	}
	e.ResponseWriter.WriteHeader(status)
}

func (e *errorPageWriter) Write(b []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	if e.replaced {
		return len(b), nil
	}
	return e.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (e *errorPageWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
