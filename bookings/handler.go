package bookings

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/tenant"
)

// PrefixDefault is where [NewHandler] serves the public API.
const PrefixDefault = "/api/bookings"

// Rate-limit defaults, per client IP (the manage token for
// ManageTokenLimitDefault) and minute.
const (
	PostLimitDefault        = 5
	ReadLimitDefault        = 60
	ManageGetLimitDefault   = 20
	ManageTokenLimitDefault = 60
)

// HandlerOptions configures [NewHandler]. Nil means the defaults.
type HandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "post" and "read" buckets
	// (give a store.SQLRateLimiter to share them across instances); without
	// TrustedProxies every customer behind a proxy shares one bucket.
	groundwork.HTTPOptions
	// Prefix: PrefixDefault when empty. Mount with mux.Handle(prefix+"/", h)
	// and mux.Handle(prefix, h) (POST {prefix} creates a booking).
	Prefix string
	// PostLimit and ReadLimit are the buckets' requests a minute per
	// client IP; the ...Default when zero, no limit when negative.
	PostLimit, ReadLimit int
	// ManageGetLimit (per IP, GET of a manage link) and ManageTokenLimit
	// (per token, every manage route) run before the token is looked up;
	// as PostLimit.
	ManageGetLimit, ManageTokenLimit int
}

// Handler serves the public bookings API:
//
//	GET  {prefix}/services                    the active services
//	GET  {prefix}/services/{slug}/providers   who takes bookings for one
//	GET  {prefix}/services/{slug}/slots       ?date=YYYY-MM or ?from=&to=, [&provider_id=N] [&timezone=Zone]
//	POST {prefix}/services/{slug}/holds       keep a slot 5 minutes: 201 {"data": {"hold_token", ...}}
//	GET  {prefix}/manage/{token}              the booking of a manage link: {"data", "meta": {can_cancel, can_reschedule, changes_allowed_until, reschedule_from}}
//	POST {prefix}/manage/{token}/cancel       {"reason"}
//	POST {prefix}/manage/{token}/reschedule   {"start_time"}
//	POST {prefix}                              book: 201 {"data": booking} (with "hold_token" for a held slot)
type Handler struct {
	svc                    *Service
	base                   *api.Base
	post, read             *throttle.Throttle
	manageGet, manageToken *throttle.Throttle
}

// NewHandler returns the public API of svc.
func NewHandler(svc *Service, opts *HandlerOptions) (*Handler, error) {
	if svc == nil {
		return nil, errors.New("bookings: new handler: service is nil")
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	b, err := api.NewBase(o.Prefix, PrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("bookings: new handler: %w", err)
	}
	bucket := func(name string, limit, def int) *throttle.Throttle {
		return newBucket(svc, b.Throttle.Limiter, o.TrustedProxies, b.Logger, name, limit, def)
	}
	b.Errors = errorTable
	h := &Handler{svc: svc, base: b, post: bucket("post", o.PostLimit, PostLimitDefault), read: bucket("read", o.ReadLimit, ReadLimitDefault)}
	read := func(f api.HandlerFunc) http.HandlerFunc { return h.read.Wrap(b.Func(f)).ServeHTTP }
	b.Handle("/services", api.Methods{http.MethodGet: read(h.listServices)})
	b.Handle("/services/{slug}/providers", api.Methods{http.MethodGet: read(h.listProviders)})
	b.Handle("/services/{slug}/slots", api.Methods{http.MethodGet: read(h.listSlots)})
	b.Handle("/services/{slug}/holds", api.Methods{http.MethodPost: h.post.Wrap(b.Func(h.hold)).ServeHTTP})
	h.manageGet = bucket("manage_get", o.ManageGetLimit, ManageGetLimitDefault)
	h.manageToken = bucket("manage_token", o.ManageTokenLimit, ManageTokenLimitDefault)
	if h.manageToken != nil {
		h.manageToken.Key = tokenKey
	}
	b.Handle("/manage/{token}", api.Methods{http.MethodGet: h.manageGet.Wrap(h.manageToken.Wrap(b.Func(h.manage))).ServeHTTP})
	b.Handle("/manage/{token}/cancel", api.Methods{http.MethodPost: h.post.Wrap(h.manageToken.Wrap(b.Func(h.manageCancel))).ServeHTTP})
	b.Handle("/manage/{token}/reschedule", api.Methods{http.MethodPost: h.post.Wrap(h.manageToken.Wrap(b.Func(h.manageReschedule))).ServeHTTP})
	create := api.Methods{http.MethodPost: h.post.Wrap(b.Func(h.create)).ServeHTTP}
	b.Handle("", create)
	b.Handle("/{$}", create)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.base.ServeHTTP(w, r.WithContext(tenant.All(r.Context()))) // public: it serves whoever asks, whatever tenant the request acted for
}

// Routes lists the routes, as "METHOD /path/{param}".
func (h *Handler) Routes() []string { return h.base.Routes() }

func (h *Handler) listServices(w http.ResponseWriter, r *http.Request) error {
	list, err := h.svc.ListServices(r.Context())
	if err != nil {
		return err
	}
	for i := range list {
		if list[i].TimeZone == "" {
			list[i].TimeZone = TimeZoneDefault
		}
	}
	reply.WriteData(w, http.StatusOK, list)
	return nil
}

func (h *Handler) listProviders(w http.ResponseWriter, r *http.Request) error {
	svc, err := h.svc.ActiveService(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	offers, err := h.svc.bookable(r.Context(), svc)
	if err != nil {
		return err
	}
	out := make([]Provider, len(offers))
	for i, o := range offers {
		out[i] = o.Provider
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

var monthPattern = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)

// utc is the wire form of an instant: UTC, "+00:00".
func utc(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05-07:00") }

type slotJSON struct {
	Start      string `json:"start"`
	End        string `json:"end"`
	ProviderID *int64 `json:"provider_id"`
	LocalStart string `json:"local_start,omitempty"`
	LocalEnd   string `json:"local_end,omitempty"`
	SeatsLeft  int    `json:"seats_left,omitempty"`
}

func (h *Handler) listSlots(w http.ResponseWriter, r *http.Request) error {
	svc, err := h.svc.ActiveService(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v := &api.Validator{}
	var query SlotQuery
	loc := location(svc.TimeZone)
	var display *time.Location
	if tz := q.Get("timezone"); tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil || tz == "Local" {
			v.Add("timezone", "The timezone field must be a valid timezone.")
		}
		display = l
	}
	switch month := q.Get("date"); {
	case month != "":
		if !monthPattern.MatchString(month) {
			v.Add("date", "The date must be a month in YYYY-MM form.")
			break
		}
		t, _ := time.Parse("2006-01", month)
		query.From, query.To = monthSpan(t.Year(), t.Month(), loc)
	case q.Get("from") != "" || q.Get("to") != "":
		from, ok1 := slots.ParseDate(q.Get("from"))
		to, ok2 := slots.ParseDate(q.Get("to"))
		switch {
		case !ok1:
			v.Add("from", api.MsgDate("from"))
		case !ok2:
			v.Add("to", api.MsgDate("to"))
		case to.Before(from):
			v.Add("to", "The to field must be a date after or equal to from.")
		case from.AddDays(62).Before(to):
			v.Add("to", "The to field must be at most 62 days after from.")
		default:
			query.From, query.To = from.In(loc), to.AddDays(1).In(loc)
		}
	default:
		v.Add("date", "The date must be a month in YYYY-MM form.")
	}
	if p := q.Get("provider_id"); p != "" {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id < 1 {
			v.Add("provider_id", "The provider id field must be an integer of at least 1.")
		}
		query.ProviderID = id
	}
	if l := q.Get("length"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			v.Add("length", "The length field must be a number of minutes of at least 1.")
		}
		query.Length = n
	}
	if err := v.Err(); err != nil {
		return err
	}
	slots, err := h.svc.Slots(r.Context(), svc, query)
	if err != nil {
		return err
	}
	out := make([]slotJSON, len(slots))
	for i, s := range slots {
		out[i] = slotJSON{Start: utc(s.Start), End: utc(s.End), SeatsLeft: s.SeatsLeft}
		if s.ProviderID != 0 {
			id := s.ProviderID
			out[i].ProviderID = &id
		}
		if display != nil {
			out[i].LocalStart = s.Start.In(display).Format(time.RFC3339)
			out[i].LocalEnd = s.End.In(display).Format(time.RFC3339)
		}
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

type createRequest struct {
	Service          *string        `json:"service"`
	ServiceSlug      *string        `json:"service_slug"`
	ProviderID       *int64         `json:"provider_id"`
	StartTime        *string        `json:"start_time"`
	CustomerName     *string        `json:"customer_name"`
	CustomerEmail    *string        `json:"customer_email"`
	CustomerPhone    *string        `json:"customer_phone"`
	CustomerTimeZone *string        `json:"customer_timezone"`
	Notes            *string        `json:"notes"`
	IntakeData       map[string]any `json:"intake_data"`
	HoldToken        *string        `json:"hold_token"`
	Length           *int           `json:"length"`
	Repeat           *Repeat        `json:"repeat"`
}

type ref struct {
	ID   int64  `json:"id"`
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// bookingJSON is a booking as the API shows it (never its number or
// manage token).
type bookingJSON struct {
	ID               int64     `json:"id"`
	Status           Status    `json:"status"`
	StartTime        string    `json:"start_time"`
	EndTime          string    `json:"end_time"`
	CustomerName     string    `json:"customer_name"`
	CustomerEmail    string    `json:"customer_email"`
	CustomerTimeZone string    `json:"customer_timezone"`
	Service          ref       `json:"service"`
	Provider         *ref      `json:"provider"`
	Location         *Location `json:"location,omitempty"`
	// Payment is a paid booking's: what it owes, until when its time is
	// held, and the page to pay on (the provider's ids left out).
	Payment *paymentJSON `json:"payment,omitempty"`
}

// paymentJSON is a booking's Payment as the APIs show it.
type paymentJSON struct {
	Amount      string  `json:"amount"`
	Currency    string  `json:"currency"`
	DueAt       string  `json:"due_at"`
	CheckoutURL string  `json:"checkout_url,omitempty"`
	Session     string  `json:"session,omitempty"`
	Reference   string  `json:"reference,omitempty"`
	PaidAt      *string `json:"paid_at,omitempty"`
	RefundedAt  *string `json:"refunded_at,omitempty"`
}

// paymentOf is p as the APIs show it, the provider's ids only with ids;
// nil for none.
func paymentOf(p *Payment, ids bool) *paymentJSON {
	if p == nil {
		return nil
	}
	out := &paymentJSON{Amount: p.Amount, Currency: p.Currency, DueAt: utc(p.DueAt), CheckoutURL: p.CheckoutURL, PaidAt: utcOrNil(p.PaidAt),
		RefundedAt: utcOrNil(p.RefundedAt)}
	if ids {
		out.Session, out.Reference = p.Session, p.Reference
	}
	return out
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := api.DecodeJSON(w, r, &req, 0); err != nil {
		return err
	}
	v := &api.Validator{}
	slug := deref(req.ServiceSlug)
	if slug == "" {
		slug = deref(req.Service)
	}
	if slug == "" {
		v.Add("service_slug", api.MsgRequired("service_slug"))
	}
	nb := NewBooking{ServiceSlug: slug, CustomerName: deref(req.CustomerName), CustomerEmail: deref(req.CustomerEmail),
		CustomerPhone: deref(req.CustomerPhone), CustomerTimeZone: deref(req.CustomerTimeZone), Notes: deref(req.Notes), IntakeData: req.IntakeData}
	if req.ProviderID != nil {
		if *req.ProviderID < 1 {
			v.Add("provider_id", "The provider id field must be an integer of at least 1.")
		}
		nb.ProviderID = *req.ProviderID
	}
	if st := deref(req.StartTime); st != "" {
		t, err := time.Parse(time.RFC3339, st)
		if err != nil {
			v.Add("start_time", "The start time field must be a date and time with an offset (RFC 3339).")
		}
		nb.Start = t
	}
	if req.Length != nil {
		if *req.Length < 1 {
			v.Add("length", "The length field must be a number of minutes of at least 1.")
		}
		nb.Length = *req.Length
	}
	if err := v.Err(); err != nil {
		return err
	}
	nb.HoldToken = deref(req.HoldToken)
	if req.Repeat != nil {
		nb.Repeat = req.Repeat
		return h.createSeries(w, r, nb)
	}
	b, _, svc, o, err := h.svc.create(r.Context(), nb, false)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, resource(b, svc, &o.Provider))
	return nil
}

// seriesJSON is a series as the API shows it, on its first booking.
type seriesJSON struct {
	bookingJSON
	Series struct {
		ID          string        `json:"id"`
		Occurrences []bookingJSON `json:"occurrences"`
		Skipped     []string      `json:"skipped"`
	} `json:"series"`
}

func (h *Handler) createSeries(w http.ResponseWriter, r *http.Request, nb NewBooking) error {
	series, err := h.svc.CreateSeries(r.Context(), nb)
	if err != nil {
		return err
	}
	svc, err := h.svc.serviceByID(r.Context(), series.Bookings[0].ServiceID)
	if err != nil {
		return err
	}
	p, err := h.svc.Provider(r.Context(), *series.Bookings[0].ProviderID)
	if err != nil {
		return err
	}
	var out seriesJSON
	out.bookingJSON = resource(series.Bookings[0], svc, &p)
	out.Series.ID, out.Series.Skipped = series.ID, []string{}
	for _, b := range series.Bookings {
		out.Series.Occurrences = append(out.Series.Occurrences, resource(b, svc, &p))
	}
	for _, t := range series.Skipped {
		out.Series.Skipped = append(out.Series.Skipped, utc(t))
	}
	reply.WriteData(w, http.StatusCreated, out)
	return nil
}

// resource is b as the API shows it, with its service and provider (nil
// for none).
func resource(b Booking, svc Offering, p *Provider) bookingJSON {
	out := bookingJSON{ID: b.ID, Status: b.Status, StartTime: utc(b.Start), EndTime: utc(b.End), CustomerName: b.CustomerName,
		CustomerEmail: b.CustomerEmail, CustomerTimeZone: b.CustomerTimeZone, Service: ref{svc.ID, svc.Slug, svc.Name}, Location: b.Location}
	if p != nil && b.ProviderID != nil {
		out.Provider = &ref{p.ID, p.Slug, p.Name}
	}
	out.Payment = paymentOf(b.Payment, false)
	return out
}

type holdRequest struct {
	ProviderID *int64  `json:"provider_id"`
	StartTime  *string `json:"start_time"`
	Length     *int    `json:"length"`
}

type holdJSON struct {
	HoldToken  string `json:"hold_token"`
	ExpiresAt  string `json:"expires_at"`
	Start      string `json:"start"`
	End        string `json:"end"`
	ProviderID int64  `json:"provider_id"`
}

func (h *Handler) hold(w http.ResponseWriter, r *http.Request) error {
	var req holdRequest
	if err := api.DecodeJSON(w, r, &req, 0); err != nil {
		return err
	}
	nb := NewBooking{ServiceSlug: r.PathValue("slug")}
	v := &api.Validator{}
	if req.ProviderID != nil {
		nb.ProviderID = *req.ProviderID
	}
	if req.Length != nil {
		if *req.Length < 1 {
			v.Add("length", "The length field must be a number of minutes of at least 1.")
		}
		nb.Length = *req.Length
	}
	switch st := deref(req.StartTime); {
	case st == "":
		v.Add("start_time", api.MsgRequired("start_time"))
	default:
		t, err := time.Parse(time.RFC3339, st)
		if err != nil {
			v.Add("start_time", "The start time field must be a date and time with an offset (RFC 3339).")
		}
		nb.Start = t
	}
	if err := v.Err(); err != nil {
		return err
	}
	held, token, err := h.svc.Hold(r.Context(), nb)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusCreated, holdJSON{HoldToken: token, ExpiresAt: utc(held.ExpiresAt), Start: utc(held.Start), End: utc(held.End),
		ProviderID: held.ProviderID})
	return nil
}

type manageJSON struct {
	Data bookingJSON `json:"data"`
	Meta manageMeta  `json:"meta"`
}

type manageMeta struct {
	CanCancel           bool    `json:"can_cancel"`
	CanReschedule       bool    `json:"can_reschedule"`
	ChangesAllowedUntil *string `json:"changes_allowed_until"`
	RescheduleFrom      *string `json:"reschedule_from"`
}

// utcOrNil is utc of t, nil for none.
func utcOrNil(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := utc(*t)
	return &s
}

// answerManaged writes a manage envelope, or the error.
func (h *Handler) answerManaged(w http.ResponseWriter, r *http.Request, b Booking, m ManageMeta, err error) error {
	if errors.Is(err, ErrBadManageToken) {
		reply.WriteMessage(w, http.StatusNotFound, msgBadManageToken)
		return nil
	}
	if err != nil {
		return err
	}
	svc, err := h.svc.serviceByID(r.Context(), b.ServiceID)
	if err != nil {
		return err
	}
	var p *Provider
	if b.ProviderID != nil {
		got, err := h.svc.Provider(r.Context(), *b.ProviderID)
		if err != nil {
			return err
		}
		p = &got
	}
	out := manageJSON{Data: resource(b, svc, p), Meta: manageMeta{CanCancel: m.CanCancel, CanReschedule: m.CanReschedule,
		ChangesAllowedUntil: utcOrNil(m.ChangesAllowedUntil), RescheduleFrom: utcOrNil(m.RescheduleFrom)}}
	reply.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) manage(w http.ResponseWriter, r *http.Request) error {
	b, m, err := h.svc.Managed(r.Context(), r.PathValue("token"))
	return h.answerManaged(w, r, b, m, err)
}

type manageRequest struct {
	Reason    *string `json:"reason"`
	StartTime *string `json:"start_time"`
	// Scope of a cancel: "this" (the default) or "following" (it and the
	// later occurrences of its series).
	Scope *string `json:"scope"`
}

func (h *Handler) manageCancel(w http.ResponseWriter, r *http.Request) error {
	var req manageRequest
	if err := api.DecodeJSON(w, r, &req, 0); err != nil {
		return err
	}
	if scope := deref(req.Scope); scope == "following" {
		cancelled, err := h.svc.CancelSeriesFrom(r.Context(), r.PathValue("token"), deref(req.Reason))
		if err != nil {
			return err
		}
		m := h.svc.meta(r.Context(), cancelled[0])
		return h.answerManaged(w, r, cancelled[0], m, nil)
	} else if scope != "" && scope != "this" {
		return invalid("scope", "The scope must be this or following.")
	}
	b, m, err := h.svc.CancelManaged(r.Context(), r.PathValue("token"), deref(req.Reason))
	return h.answerManaged(w, r, b, m, err)
}

func (h *Handler) manageReschedule(w http.ResponseWriter, r *http.Request) error {
	var req manageRequest
	if err := api.DecodeJSON(w, r, &req, 0); err != nil {
		return err
	}
	b, m, err := h.svc.RescheduleManaged(r.Context(), r.PathValue("token"), deref(req.StartTime))
	return h.answerManaged(w, r, b, m, err)
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the public booking routes, under the handler's prefix, as an
// OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, PrefixDefault, h.Routes())
}
