package bookings

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// AdminPrefixDefault is where [NewAdminHandler] serves.
const AdminPrefixDefault = "/api/bookings/admin"

// Abilities of the admin API; "bookings:*" covers them all.
const (
	AbilityView       = "bookings:view"
	AbilityConfirm    = "bookings:confirm"
	AbilityCancel     = "bookings:cancel"
	AbilityComplete   = "bookings:complete"
	AbilityNoShow     = "bookings:no-show"
	AbilityReschedule = "bookings:reschedule"
	AbilityReassign   = "bookings:reassign"
	AbilityReissue    = "bookings:reissue"
)

// AdminHandlerOptions configures [NewAdminHandler].
type AdminHandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "api" throttle (APILimit
	// requests a minute per token); BaseURL makes the list's links
	// absolute (the request's when nil).
	groundwork.HTTPOptions
	// Prefix: AdminPrefixDefault when empty.
	Prefix   string
	APILimit int
}

// AdminHandler serves the bookings admin API (bearer token):
//
//	GET  {prefix}/bookings                 ?service_id ?provider_id ?status ?from ?to (dates) ?page ?per_page
//	GET  {prefix}/bookings/{id}
//	POST {prefix}/bookings/{id}/confirm    requested → confirmed
//	POST {prefix}/bookings/{id}/cancel     {"reason"}: active → cancelled
//	POST {prefix}/bookings/{id}/complete   active → completed
//	POST {prefix}/bookings/{id}/no-show    active → no_show
//	POST {prefix}/bookings/{id}/reschedule {"start_time"}: same provider, length, status
//	POST {prefix}/bookings/{id}/reassign   {"provider_id"}: same time
//	POST {prefix}/bookings/{id}/manage-token  a new manage token (204; the old one stops working; the
//	                                       new one goes to the host's hook, never into a response)
//
// and, with the ability bookings:manage, the catalog:
//
//	GET POST        {prefix}/services              PATCH/PUT, GET {prefix}/services/{slug}
//	PUT DELETE      {prefix}/services/{slug}/providers/{provider}   {"custom_duration", "custom_price"}
//	GET POST        {prefix}/providers             PATCH/PUT, GET {prefix}/providers/{provider}
//	GET POST        {prefix}/providers/{provider}/hours       DELETE .../hours/{id}
//	GET POST        {prefix}/providers/{provider}/overrides   DELETE .../overrides/{id}
//	GET POST        {prefix}/blackouts            DELETE {prefix}/blackouts/{id}
//	POST DELETE     {prefix}/providers/{provider}/feed-token   mint or rotate (201 {"data": {"token"}}, shown once;
//	                                       the feed is /bookings/ical/providers/{token}.ics) or revoke (204)
//
// A move the booking's status does not allow is 409 with a message naming
// the status.
type AdminHandler struct {
	svc     *Service
	base    *api.Base
	baseURL *url.URL
}

// NewAdminHandler returns the admin API of svc; tokens checks the bearer
// token of every request. opts may be nil.
func NewAdminHandler(svc *Service, tokens groundwork.TokenVerifier, opts *AdminHandlerOptions) (*AdminHandler, error) {
	if svc == nil || tokens == nil {
		return nil, errors.New("bookings: new admin handler: a service and a token verifier are required")
	}
	var o AdminHandlerOptions
	if opts != nil {
		o = *opts
	}
	opts = &o
	b, err := api.NewBase(opts.Prefix, AdminPrefixDefault, opts.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("bookings: new admin handler: %w", err)
	}
	b.Throttle = throttle.APIOf(b.Throttle.Limiter, opts.APILimit, opts.TrustedProxies, b.Logger)
	b.Errors = adminErrors
	h := &AdminHandler{svc: svc, base: b, baseURL: opts.BaseURL}
	g := &api.Guard{Tokens: tokens, Logger: b.Logger}
	guard := func(ability string, f api.HandlerFunc) http.HandlerFunc {
		return g.Require(ability, b.Throttle.Wrap(b.Func(f))).ServeHTTP
	}
	b.Handle("/bookings", api.Methods{http.MethodGet: guard(AbilityView, h.list)})
	b.Handle("/bookings/{id}", api.Methods{http.MethodGet: guard(AbilityView, h.show)})
	b.Handle("/bookings/{id}/confirm", api.Methods{http.MethodPost: guard(AbilityConfirm, h.transition(func(ctx context.Context, id int64, _ moveRequest) (Booking, error) {
		return svc.Confirm(ctx, id, ActorAdmin)
	}))})
	b.Handle("/bookings/{id}/cancel", api.Methods{http.MethodPost: guard(AbilityCancel, h.transition(func(ctx context.Context, id int64, m moveRequest) (Booking, error) {
		return svc.Cancel(ctx, id, ActorAdmin, deref(m.Reason))
	}))})
	b.Handle("/bookings/{id}/complete", api.Methods{http.MethodPost: guard(AbilityComplete, h.transition(func(ctx context.Context, id int64, _ moveRequest) (Booking, error) {
		return svc.Complete(ctx, id, ActorAdmin)
	}))})
	b.Handle("/bookings/{id}/no-show", api.Methods{http.MethodPost: guard(AbilityNoShow, h.transition(func(ctx context.Context, id int64, _ moveRequest) (Booking, error) {
		return svc.NoShow(ctx, id, ActorAdmin)
	}))})
	b.Handle("/bookings/{id}/reschedule", api.Methods{http.MethodPost: guard(AbilityReschedule, h.transition(func(ctx context.Context, id int64, m moveRequest) (Booking, error) {
		t, err := time.Parse(time.RFC3339, deref(m.StartTime))
		if err != nil {
			return Booking{}, invalid("start_time", "The start time field must be a date and time with an offset (RFC 3339).")
		}
		return svc.Reschedule(ctx, id, t, ActorAdmin)
	}))})
	b.Handle("/bookings/{id}/reassign", api.Methods{http.MethodPost: guard(AbilityReassign, h.transition(func(ctx context.Context, id int64, m moveRequest) (Booking, error) {
		if m.ProviderID == nil || *m.ProviderID < 1 {
			return Booking{}, invalid("provider_id", api.MsgRequired("provider_id"))
		}
		return svc.Reassign(ctx, id, *m.ProviderID, ActorAdmin)
	}))})
	b.Handle("/bookings/{id}/manage-token", api.Methods{http.MethodPost: guard(AbilityReissue, func(w http.ResponseWriter, r *http.Request) error {
		id, ok := api.PathID(r, "id")
		if !ok {
			return ErrNotFound
		}
		if _, err := svc.Booking(r.Context(), id); err != nil {
			return err // another tenant's is not found
		}
		if _, err := svc.ReissueManageToken(r.Context(), id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})})
	h.catalog(guard)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *AdminHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path/{param}".
func (h *AdminHandler) Routes() []string { return h.base.Routes() }

// adminBooking is a booking as the admin API shows it: everything but the
// manage token's hash.
type adminBooking struct {
	ID                 int64          `json:"id"`
	Number             string         `json:"booking_number"`
	ServiceID          int64          `json:"service_id"`
	ProviderID         *int64         `json:"provider_id"`
	Status             Status         `json:"status"`
	StartTime          string         `json:"start_time"`
	EndTime            string         `json:"end_time"`
	CustomerName       string         `json:"customer_name"`
	CustomerEmail      string         `json:"customer_email"`
	CustomerPhone      string         `json:"customer_phone"`
	CustomerTimeZone   string         `json:"customer_timezone"`
	AssignmentStrategy Assignment     `json:"assignment_strategy"`
	IntakeVersion      int            `json:"intake_schema_version"`
	IntakeData         map[string]any `json:"intake_data"`
	Notes              string         `json:"notes"`
	CreatedAt          string         `json:"created_at"`
	UpdatedAt          string         `json:"updated_at"`
	Location           *Location      `json:"location,omitempty"`
	Payment            *paymentJSON   `json:"payment,omitempty"`
	// FromForm is the routing form's submission it was made from.
	FromForm *FromForm `json:"from_form,omitempty"`
	// Visit is where the visit it was made in came from.
	Visit *groundwork.Visit `json:"visit,omitempty"`
}

func toAdmin(b Booking) adminBooking {
	return adminBooking{ID: b.ID, Number: b.Number, ServiceID: b.ServiceID, ProviderID: b.ProviderID, Status: b.Status, StartTime: utc(b.Start),
		EndTime: utc(b.End), CustomerName: b.CustomerName, CustomerEmail: b.CustomerEmail, CustomerPhone: b.CustomerPhone,
		CustomerTimeZone: b.CustomerTimeZone, AssignmentStrategy: b.AssignmentStrategy, IntakeVersion: b.IntakeVersion,
		IntakeData: b.IntakeData, Notes: b.Notes, CreatedAt: utc(b.CreatedAt), UpdatedAt: utc(b.UpdatedAt), Location: b.Location,
		Payment: paymentOf(b.Payment, true), FromForm: b.FromForm, Visit: b.Visit}
}

// adminErrors is the admin API's table: a refused status change is a 409
// with its own words, anything not found a plain 404.
var adminErrors = append(api.Table{
	{As: func(err error) *api.Error {
		var se *statusError
		if errors.As(err, &se) {
			return api.Errorf(http.StatusConflict, "%s", se.Error())
		}
		return nil
	}},
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Not found."},
}, errorTable...)

var statuses = []Status{StatusRequested, StatusConfirmed, StatusAwaitingPayment, StatusCancelled, StatusCompleted, StatusNoShow}

func (h *AdminHandler) list(w http.ResponseWriter, r *http.Request) error {
	v := &api.Validator{}
	page := paging.ParsePage(r, 0, v)
	q := r.URL.Query()
	f := BookingFilter{Limit: page.PerPage, Offset: page.Offset(), Status: Status(q.Get("status"))}
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"service_id", &f.ServiceID}, {"provider_id", &f.ProviderID}} {
		if s := q.Get(p.name); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				v.Add(p.name, api.MsgInteger(p.name))
			}
			*p.dst = n
		}
	}
	if f.Status != "" && !slices.Contains(statuses, f.Status) {
		v.Add("status", api.MsgSelected("status"))
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
		add  int
	}{{"from", &f.From, 0}, {"to", &f.To, 1}} {
		if s := q.Get(p.name); s != "" {
			d, ok := slots.ParseDate(s)
			if !ok {
				v.Add(p.name, api.MsgDate(p.name))
			}
			*p.dst = d.AddDays(p.add).In(time.UTC)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, total, err := h.svc.ListBookings(r.Context(), f)
	if err != nil {
		return err
	}
	out := make([]adminBooking, len(list))
	for i, b := range list {
		out[i] = toAdmin(b)
	}
	base := h.baseURL
	if base == nil {
		base = &url.URL{Scheme: "http", Host: r.Host}
		if r.TLS != nil {
			base.Scheme = "https"
		}
	}
	self := *base
	self.Path, self.RawQuery = r.URL.Path, r.URL.RawQuery
	reply.WriteJSON(w, http.StatusOK, paging.NewPage(out, page, total, &self))
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (h *AdminHandler) show(w http.ResponseWriter, r *http.Request) error {
	id, ok := api.PathID(r, "id")
	if !ok {
		return ErrNotFound
	}
	b, err := h.svc.Booking(r.Context(), id)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, toAdmin(b))
	return nil
}

type moveRequest struct {
	Reason     *string `json:"reason"`
	StartTime  *string `json:"start_time"`
	ProviderID *int64  `json:"provider_id"`
}

func (h *AdminHandler) transition(do func(ctx context.Context, id int64, m moveRequest) (Booking, error)) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, ok := api.PathID(r, "id")
		if !ok {
			return ErrNotFound
		}
		var m moveRequest
		if err := api.DecodeJSON(w, r, &m, 0); err != nil {
			return err
		}
		if _, err := h.svc.Booking(r.Context(), id); err != nil {
			return err // another tenant's is not found
		}
		b, err := do(r.Context(), id, m)
		if err != nil {
			return err
		}
		reply.WriteData(w, http.StatusOK, toAdmin(b))
		return nil
	}
}

//go:embed openapi_admin.json
var openAPIAdminDescription []byte

// OpenAPI describes the admin routes, under the handler's prefix, as an
// OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *AdminHandler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIAdminDescription, h.base.Prefix, AdminPrefixDefault, h.Routes())
}
