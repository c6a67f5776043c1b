package waitlist

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/tenant"
)

// HandlerOptions configures [NewHandler].
type HandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "api" throttle (APILimit
	// requests a minute per client or token).
	groundwork.HTTPOptions
	// Prefix is the bookings public API's (bookings.PrefixDefault when
	// empty), AdminPrefix its admin API's (bookings.AdminPrefixDefault):
	// the routes sit beside theirs.
	Prefix, AdminPrefix string
	// Tokens checks the admin route's bearer tokens (the ability
	// bookings:manage); without it there is no admin route.
	Tokens   groundwork.TokenVerifier
	APILimit int
}

// Handler serves the waitlists in the bookings APIs:
//
//	GET  {prefix}/services/{slug}/waitlist?from=&to=   the full times one may wait for (days in the service's zone, at most 31)
//	POST {prefix}/services/{slug}/waitlist             join one: 201 {"data": entry} (200 with the entry kept, when already in line)
//	GET  {admin}/waitlist?service_id=&from=            every entry from a time on (bookings:manage)
//
// The public answer is the customer's own entry; the admin one holds
// every entry's name and email. Mount puts the routes on the host's mux
// beside the bookings handlers.
type Handler struct {
	svc           *Service
	public, admin *api.Base
}

// NewHandler returns the waitlist routes of svc. opts may be nil.
func NewHandler(svc *Service, opts *HandlerOptions) (*Handler, error) {
	if svc == nil {
		return nil, errors.New("waitlist: new handler: a service is required")
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	pub, err := api.NewBase(o.Prefix, bookings.PrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("waitlist: new handler: %w", err)
	}
	pub.Throttle = throttle.APIOf(pub.Throttle.Limiter, o.APILimit, o.TrustedProxies, pub.Logger)
	pub.Errors = errorTable
	h := &Handler{svc: svc, public: pub}
	pub.Handle("/services/{slug}/waitlist", api.Methods{http.MethodGet: pub.Throttle.Wrap(pub.Func(h.fullTimes)).ServeHTTP,
		http.MethodPost: pub.Throttle.Wrap(pub.Func(h.join)).ServeHTTP})
	if o.Tokens != nil {
		adm, err := api.NewBase(o.AdminPrefix, bookings.AdminPrefixDefault, o.HTTPOptions)
		if err != nil {
			return nil, fmt.Errorf("waitlist: new handler: %w", err)
		}
		adm.Throttle = throttle.APIOf(adm.Throttle.Limiter, o.APILimit, o.TrustedProxies, adm.Logger)
		adm.Errors = errorTable
		g := &api.Guard{Tokens: o.Tokens, Logger: adm.Logger}
		adm.Handle("/waitlist", api.Methods{http.MethodGet: g.Require(bookings.AbilityManage, adm.Throttle.Wrap(adm.Func(h.list))).ServeHTTP})
		h.admin = adm
	}
	return h, nil
}

// errorTable: a service or entry not found is a 404.
var errorTable = api.Table{{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Not found."}}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.admin != nil && strings.HasPrefix(r.URL.Path, h.admin.Prefix+"/") {
		h.admin.ServeHTTP(w, r)
		return
	}
	h.public.ServeHTTP(w, r.WithContext(tenant.All(r.Context()))) // public: whoever asks, whatever tenant
}

// Routes lists the routes, as "METHOD /path/{param}".
func (h *Handler) Routes() []string {
	routes := h.public.Routes()
	if h.admin != nil {
		routes = append(routes, h.admin.Routes()...)
	}
	return routes
}

// Mount puts each of the handler's paths on mux; the bookings handlers,
// mounted at their prefixes, answer the rest.
func (h *Handler) Mount(mux *http.ServeMux) {
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

//go:embed openapi_admin.json
var openAPIAdminDescription []byte

// OpenAPI describes the routes, under the handler's prefixes, as an
// OpenAPI 3.1 part to merge into a host's document; see groundwork.OpenAPI.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	doc, err := openapi.Part(openAPIDescription, h.public.Prefix, bookings.PrefixDefault, h.public.Routes())
	if err != nil || h.admin == nil {
		return doc, err
	}
	adm, err := openapi.Part(openAPIAdminDescription, h.admin.Prefix, bookings.AdminPrefixDefault, h.admin.Routes())
	if err != nil {
		return nil, err
	}
	return doc, doc.Merge(adm)
}

// maxDays is the longest span of days the full times are asked for.
const maxDays = 31

func (h *Handler) fullTimes(w http.ResponseWriter, r *http.Request) error {
	svc, err := h.svc.bk.ActiveService(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	loc := zone(svc.TimeZone)
	v := &api.Validator{}
	from, err1 := time.ParseInLocation(time.DateOnly, q.Get("from"), loc)
	to, err2 := time.ParseInLocation(time.DateOnly, cmp.Or(q.Get("to"), q.Get("from")), loc)
	switch {
	case err1 != nil:
		v.Add("from", api.MsgDate("from"))
	case err2 != nil:
		v.Add("to", api.MsgDate("to"))
	case to.Before(from):
		v.Add("to", "The to field must be a date after or equal to from.")
	case from.AddDate(0, 0, maxDays).Before(to):
		v.Add("to", fmt.Sprintf("The to field must be at most %d days after from.", maxDays))
	}
	length, _ := strconv.Atoi(q.Get("length"))
	if err := v.Err(); err != nil {
		return err
	}
	full, err := h.svc.fullSlots(r.Context(), svc, bookings.SlotQuery{From: from, To: to.AddDate(0, 0, 1), Length: length})
	if err != nil {
		return err
	}
	type fullTime struct {
		Start string `json:"start_time"`
		End   string `json:"end_time"`
	}
	out := make([]fullTime, len(full))
	for i, f := range full {
		out[i] = fullTime{Start: utc(f.Start), End: utc(f.End)}
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

// joinRequest is the body of a join.
type joinRequest struct {
	StartTime        string `json:"start_time"`
	Length           int    `json:"length"`
	CustomerName     string `json:"customer_name"`
	CustomerEmail    string `json:"customer_email"`
	CustomerTimeZone string `json:"customer_timezone"`
}

// utc writes a time as the bookings APIs do: "2026-11-24T09:00:00+00:00".
func utc(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05-07:00") }

func utcOrNil(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := utc(*t)
	return &s
}

// publicEntry is an entry as its customer is answered.
type publicEntry struct {
	ID        int64  `json:"id"`
	Status    Status `json:"status"`
	Start     string `json:"start_time"`
	Length    int    `json:"length,omitempty"`
	CreatedAt string `json:"created_at"`
}

// adminEntry is an entry as the admin list answers it.
type adminEntry struct {
	ID               int64   `json:"id"`
	ServiceID        int64   `json:"service_id"`
	Start            string  `json:"start_time"`
	Length           int     `json:"length,omitempty"`
	CustomerName     string  `json:"customer_name"`
	CustomerEmail    string  `json:"customer_email"`
	CustomerTimeZone string  `json:"customer_timezone,omitempty"`
	Status           Status  `json:"status"`
	ProviderID       *int64  `json:"provider_id,omitempty"`
	OfferedAt        *string `json:"offered_at,omitempty"`
	OfferExpires     *string `json:"offer_expires_at,omitempty"`
	BookingID        *int64  `json:"booking_id,omitempty"`
	CreatedAt        string  `json:"created_at"`
	UpdatedAt        string  `json:"updated_at"`
}

func (h *Handler) join(w http.ResponseWriter, r *http.Request) error {
	var req joinRequest
	if err := api.DecodeJSON(w, r, &req, 0); err != nil {
		return err
	}
	start, err := time.Parse(time.RFC3339, req.StartTime)
	if err != nil {
		ve := &api.ValidationError{}
		ve.Add("start_time", "The start time field must be a date and time with an offset (RFC 3339).")
		checkCustomer(ve, req.CustomerName, req.CustomerEmail)
		return ve.Err()
	}
	if req.CustomerTimeZone != "" {
		if _, err := time.LoadLocation(req.CustomerTimeZone); err != nil || req.CustomerTimeZone == "Local" {
			return api.Invalid("customer_timezone", "The customer timezone field must be a valid timezone.")
		}
	}
	e, added, err := h.svc.Join(r.Context(), NewEntry{Service: r.PathValue("slug"), Start: start, Length: req.Length, Name: req.CustomerName,
		Email: req.CustomerEmail, TimeZone: req.CustomerTimeZone})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if added {
		status = http.StatusCreated
	}
	reply.WriteData(w, status, publicEntry{ID: e.ID, Status: e.Status, Start: utc(e.Start), Length: e.Length, CreatedAt: utc(e.CreatedAt)})
	return nil
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	v := &api.Validator{}
	var service int64
	if s := q.Get("service_id"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id < 1 {
			v.Add("service_id", "The service id field must be an integer of at least 1.")
		}
		service = id
	}
	from := h.svc.o.Now()
	if s := q.Get("from"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			v.Add("from", "The from field must be a date and time with an offset (RFC 3339).")
		}
		from = t
	}
	if err := v.Err(); err != nil {
		return err
	}
	entries, err := h.svc.Entries(r.Context(), service, from)
	if err != nil {
		return err
	}
	out := make([]adminEntry, len(entries))
	for i, e := range entries {
		out[i] = adminEntry{ID: e.ID, ServiceID: e.ServiceID, Start: utc(e.Start), Length: e.Length, CustomerName: e.Name, CustomerEmail: e.Email,
			CustomerTimeZone: e.TimeZone, Status: e.Status, ProviderID: e.ProviderID, OfferedAt: utcOrNil(e.OfferedAt),
			OfferExpires: utcOrNil(e.OfferExpires), BookingID: e.BookingID, CreatedAt: utc(e.CreatedAt), UpdatedAt: utc(e.UpdatedAt)}
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}
