package calendars

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// AdminHandlerOptions configures [NewAdminHandler].
type AdminHandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "api" throttle (APILimit
	// requests a minute per token).
	groundwork.HTTPOptions
	// Prefix is the bookings admin API's (bookings.AdminPrefixDefault
	// when empty): the routes sit beside its own.
	Prefix   string
	APILimit int
}

// AdminHandler serves the providers' calendar connections in the
// bookings admin API, with a bearer token of the ability bookings:manage:
//
//	GET POST          {prefix}/providers/{provider}/calendars   list, connect (read once first: 422 saying why it cannot be)
//	GET PATCH DELETE  {prefix}/calendars/{id}                    one; choose what it reads and writes; disconnect
//	POST              {prefix}/calendars/{id}/sync               read it now (409 while another read runs)
//	POST              {prefix}/providers/{provider}/calendar-page-link   a link to the provider's calendar page (72 hours)
//
// A connection's secret is never answered. Mount puts the routes on the
// host's mux beside the bookings admin handler.
type AdminHandler struct {
	svc  *Service
	base *api.Base
}

// NewAdminHandler returns the calendar routes of the admin API of svc;
// tokens checks the bearer token of every request. opts may be nil.
func NewAdminHandler(svc *Service, tokens groundwork.TokenVerifier, opts *AdminHandlerOptions) (*AdminHandler, error) {
	if svc == nil || tokens == nil {
		return nil, errors.New("calendars: new admin handler: a service and a token verifier are required")
	}
	var o AdminHandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, bookings.AdminPrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("calendars: new admin handler: %w", err)
	}
	b.Throttle = throttle.APIOf(b.Throttle.Limiter, o.APILimit, o.TrustedProxies, b.Logger)
	b.Errors = adminErrors
	h := &AdminHandler{svc: svc, base: b}
	g := &api.Guard{Tokens: tokens, Logger: b.Logger}
	m := func(f api.HandlerFunc) http.HandlerFunc {
		return g.Require(bookings.AbilityManage, b.Throttle.Wrap(b.Func(f))).ServeHTTP
	}
	b.Handle("/providers/{provider}/calendars", api.Methods{http.MethodGet: m(h.listCalendars), http.MethodPost: m(h.connectCalendar)})
	b.Handle("/calendars/{id}", api.Methods{http.MethodGet: m(h.showCalendar), http.MethodPatch: m(h.chooseCalendars),
		http.MethodDelete: m(h.disconnectCalendar)})
	b.Handle("/calendars/{id}/sync", api.Methods{http.MethodPost: m(h.syncCalendar)})
	b.Handle("/providers/{provider}/calendar-page-link", api.Methods{http.MethodPost: m(h.calendarPageLink)})
	return h, nil
}

// adminErrors: anything not found is a plain 404, as in the rest of the
// bookings admin API.
var adminErrors = api.Table{{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Not found."}}

// ServeHTTP implements http.Handler.
func (h *AdminHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (h *AdminHandler) Routes() []string { return h.base.Routes() }

// Mount puts each of the handler's paths on mux; the bookings admin
// handler, mounted at the prefix, answers the rest.
func (h *AdminHandler) Mount(mux *http.ServeMux) {
	var paths []string
	for _, r := range h.Routes() {
		_, path, _ := strings.Cut(r, " ")
		if !slices.Contains(paths, path) {
			paths = append(paths, path)
			mux.Handle(path, h)
		}
	}
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the routes, under the handler's prefix, as an OpenAPI
// 3.1 part to merge into a host's document; see groundwork.OpenAPI.
func (h *AdminHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, bookings.AdminPrefixDefault, h.Routes())
}

// errNoProvider answers a {provider} that is not a positive number.
var errNoProvider = api.Errorf(http.StatusNotFound, "Provider not found.")

// providerParam reads {provider}.
func providerParam(r *http.Request) (int64, error) {
	id, ok := api.PathID(r, "provider")
	if !ok {
		return 0, errNoProvider
	}
	return id, nil
}

// calendarResource is a calendar connection as the admin API answers it:
// never its secret; whether it has gone unread for a day; and, after a
// change that read it, the calendars it can read.
type calendarResource struct {
	Connection
	Stale     bool     `json:"stale"`
	Available []Remote `json:"available_calendars,omitempty"`
}

// The keys a connection's bodies take; the rest of what the API answers
// is read-only.
var (
	calendarChoiceShape = &api.Shape{Name: "a calendar connection",
		Keys:     []string{"name", "calendars", "destination", "block_when_stale"},
		ReadOnly: []string{"id", "provider_id", "kind", "endpoint", "username", "created_at", "updated_at", "synced_at", "synced_until", "next_sync_at", "last_error", "failures", "stale", "available_calendars"}}
	calendarInputShape = &api.Shape{Name: "a calendar connection",
		Keys:     []string{"kind", "name", "url", "username", "password", "calendars", "destination", "block_when_stale"},
		ReadOnly: []string{"id", "provider_id", "endpoint", "created_at", "updated_at", "synced_at", "synced_until", "next_sync_at", "last_error", "failures", "stale", "available_calendars"}}
)

// errCalendarSyncRunning answers a sync asked for while another runs.
var errCalendarSyncRunning = api.Errorf(http.StatusConflict, "This calendar is being read just now; try again in a moment.")

// PageLinkTTL is how long a calendar page link the admin API makes
// works.
const PageLinkTTL = 72 * time.Hour

// calendarPageLink makes the {access} part of the provider's calendar
// page address: the page is at {calendar page prefix}/{link}.
func (h *AdminHandler) calendarPageLink(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	if _, err := h.svc.bk.Provider(r.Context(), id); err != nil {
		return err
	}
	link := h.svc.PageLink(id, PageLinkTTL)
	out := map[string]string{"link": link, "path": PagePrefixDefault + "/" + link,
		"expires_at": h.svc.o.Now().Add(PageLinkTTL).UTC().Format("2006-01-02T15:04:05-07:00")}
	return api.Answer(w, http.StatusCreated, out, nil)
}

func (h *AdminHandler) resource(c Connection, available []Remote) calendarResource {
	return calendarResource{Connection: c, Stale: c.Stale(h.svc.o.Now()), Available: available}
}

func (h *AdminHandler) listCalendars(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	if _, err := h.svc.bk.Provider(r.Context(), id); err != nil {
		return err
	}
	list, err := h.svc.Connections(r.Context(), id)
	out := make([]calendarResource, len(list))
	for i, c := range list {
		out[i] = h.resource(c, nil)
	}
	return api.Answer(w, http.StatusOK, out, err)
}

func (h *AdminHandler) connectCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	var in Input
	if err := api.DecodeShaped(w, r, &in, calendarInputShape); err != nil {
		return err
	}
	in.ProviderID = id
	c, cals, err := h.svc.Connect(r.Context(), in)
	return api.Answer(w, http.StatusCreated, h.resource(c, cals), err)
}

func calendarParam(r *http.Request) (int64, error) {
	id, ok := api.PathID(r, "id")
	if !ok {
		return 0, ErrNotFound
	}
	return id, nil
}

func (h *AdminHandler) showCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	c, err := h.svc.Connection(r.Context(), id)
	return api.Answer(w, http.StatusOK, h.resource(c, nil), err)
}

func (h *AdminHandler) chooseCalendars(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	var in Choice
	if err := api.DecodeShaped(w, r, &in, calendarChoiceShape); err != nil {
		return err
	}
	c, err := h.svc.Choose(r.Context(), id, in)
	return api.Answer(w, http.StatusOK, h.resource(c, nil), err)
}

func (h *AdminHandler) disconnectCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	return api.Answer(w, 0, nil, h.svc.Disconnect(r.Context(), id))
}

// syncCalendar reads a connection now: 200 with it as read, 422 with the
// reason when it could not be read (the reason is kept on it too), 409
// while another read runs.
func (h *AdminHandler) syncCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	if _, err := h.svc.Connection(r.Context(), id); err != nil {
		return err
	}
	ok, err := h.svc.Sync(r.Context(), id)
	switch {
	case err != nil && !ok:
		return err
	case !ok:
		return errCalendarSyncRunning
	case err != nil:
		return &api.Error{Status: http.StatusUnprocessableEntity, Message: "The calendar could not be read. " + Reason(err), Err: err}
	}
	c, err := h.svc.Connection(r.Context(), id)
	return api.Answer(w, http.StatusOK, h.resource(c, nil), err)
}
