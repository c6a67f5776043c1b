package waitlist

import (
	"cmp"
	"embed"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/tenant"
)

//go:embed templates
var templatesFS embed.FS

// maxFormBytes bounds the body of a post to the page.
const maxFormBytes = 16 << 10

// PagePrefixDefault is where [NewPageHandler] serves the waitlist's
// pages.
const PagePrefixDefault = "/waitlist"

// Template is the waitlist page's "content", by the name a host's
// PageOptions.Templates may replace it under.
const Template = "bookings/waitlist.html"

// PageOptions configures [NewPageHandler].
type PageOptions struct {
	groundwork.HTTPOptions
	// Prefix: PagePrefixDefault when empty.
	Prefix string
	// Bookings is where the bookings pages are served
	// (bookings.PagePrefixDefault when empty): the page links back to a
	// service's booking page, and a booking made from an offer goes on to
	// its manage page there.
	Bookings string
	// Templates replaces the page's template or the page layer's ones.
	Templates fs.FS
	// Key signs the flash; give every instance the same.
	Key []byte
	// TrustedOrigins may post to the page besides its own origin.
	TrustedOrigins []string
	// FrameOrigins may frame the pages, as the booking page's
	// (bookings.PageOptions.FrameOrigins), whose full days link here: give
	// both the same.
	FrameOrigins []string
}

// PageHandler serves the waitlist's pages, working without JavaScript:
// GET {prefix}/{service} shows a day's full times (?date=YYYY-MM-DD,
// ?tz= the customer's zone, ?length=) and the form that joins one's
// waitlist with a name and email, POST {prefix}/{service} joins it;
// GET {prefix}/offer/{token} shows an offer mailed to a customer and
// POST books it, going on to the booking's manage page (or the payment
// page, for a service that takes payment). Posts from other origins are
// refused.
type PageHandler struct {
	base     *web.Base
	svc      *Service
	prefix   string
	bookings string
}

// NewPageHandler returns the waitlist pages of svc. Mount it at the
// prefix with a trailing slash.
func NewPageHandler(svc *Service, opts *PageOptions) (*PageHandler, error) {
	if svc == nil {
		return nil, errors.New("waitlist: new page handler: a service is needed")
	}
	var o PageOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "waitlist", Prefix: o.Prefix, Default: PagePrefixDefault, Pages: pages,
		Override: o.Templates, Key: o.Key, Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explainPage, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: maxFormBytes, FrameOrigins: o.FrameOrigins})
	if err != nil {
		return nil, err
	}
	p := &PageHandler{base: base, svc: svc, prefix: base.Prefix, bookings: strings.TrimSuffix(cmp.Or(o.Bookings, bookings.PagePrefixDefault), "/")}
	base.Mux.HandleFunc("GET "+p.prefix+"/{slug}", base.Func(p.show))
	base.Mux.HandleFunc("POST "+p.prefix+"/{slug}", base.Func(p.join))
	base.Mux.HandleFunc("GET "+p.prefix+"/offer/{token}", base.Func(p.offer))
	base.Mux.HandleFunc("POST "+p.prefix+"/offer/{token}", base.Func(p.take))
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.base.ServeHTTP(w, r.WithContext(tenant.All(r.Context()))) // public: it serves whoever asks, whatever tenant the request acted for
}

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	return []string{"GET " + p.prefix + "/{slug}", "POST " + p.prefix + "/{slug}", "GET " + p.prefix + "/offer/{token}",
		"POST " + p.prefix + "/offer/{token}", "GET " + p.prefix + "/_assets/{file}"}
}

func explainPage(err error) *web.Problem {
	if errors.Is(err, ErrNotFound) {
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Not found",
			Message: "There is no such service or offer. Check the address, or ask the business for a new link."}}
	}
	return nil
}

type waitlistPage struct {
	Service  string
	Action   string
	Back     string
	Zone     string
	Date     string
	DayLabel string
	Length   int
	Window   string
	// Times are the day's full times, Fields the customer's.
	Times   web.Field
	Fields  []web.Field
	Summary []web.SummaryItem
	// Joined is the entry just joined; Offer the offer shown (Gone when
	// it can no longer be taken).
	Joined *joinedView
	Offer  *offerView
}

type joinedView struct{ When, Email string }

type offerView struct {
	When, Until, Name string
	Gone, Booked      bool
}

// zoneOf is the zone the request asks for, else the service's.
func zoneOf(q url.Values, fallback string) (string, *time.Location) {
	for _, name := range []string{q.Get("tz"), fallback} {
		if loc, err := time.LoadLocation(name); err == nil && name != "" {
			return name, loc
		}
	}
	return "UTC", time.UTC
}

// when writes a time for a customer in loc, naming the zone.
func when(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Monday 2 January 2006, 15:04") + " (" + strings.ReplaceAll(loc.String(), "_", " ") + " time)"
}

func (p *PageHandler) show(w http.ResponseWriter, r *http.Request) error {
	return p.draw(w, r, http.StatusOK, nil, nil)
}

// draw is the join page: the day's full times as choices, the fields,
// every error at once.
func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, ve *api.ValidationError, joined *joinedView) error {
	ctx := r.Context()
	svc, err := p.svc.bk.ActiveService(ctx, r.PathValue("slug"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	zone, loc := zoneOf(q, svc.TimeZone)
	day, err := time.ParseInLocation(time.DateOnly, q.Get("date"), loc)
	if err != nil {
		day = p.svc.o.Now().In(loc)
		day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
	}
	length, _ := strconv.Atoi(cmp.Or(r.PostFormValue("length"), q.Get("length")))
	data := &waitlistPage{Service: svc.Name, Zone: zone, Date: day.Format(time.DateOnly), DayLabel: day.Format("Monday 2 January 2006"),
		Length: length, Window: web.Span(p.svc.o.OfferWindow), Joined: joined,
		Back: p.bookings + "/" + svc.Slug + "?" + url.Values{"tz": {zone}, "date": {day.Format(time.DateOnly)}}.Encode()}
	data.Action = p.prefix + "/" + svc.Slug + "?" + url.Values{"tz": {zone}, "date": {data.Date}}.Encode()
	full, err := p.svc.fullSlots(ctx, svc, bookings.SlotQuery{From: day, To: day.AddDate(0, 0, 1), Length: length})
	var bad *api.ValidationError
	if errors.As(err, &bad) {
		full, length, data.Length = nil, 0, 0
	} else if err != nil {
		return err
	}
	data.Times = web.Field{Type: web.TypeRadio, Name: "start_time", ID: web.FieldID("start_time"), Label: "Full time to wait for", Required: true}
	for _, f := range full {
		v := f.Start.UTC().Format(time.RFC3339)
		data.Times.Options = append(data.Times.Options, web.Option{Value: v, Label: f.Start.In(loc).Format("15:04"),
			Selected: r.PostFormValue("start_time") == v})
	}
	field := func(typ, name, label, auto string) web.Field {
		return web.Field{Type: typ, Name: name, ID: web.FieldID(name), Label: label, Value: r.PostFormValue(name), Autocomplete: auto, Required: true}
	}
	data.Fields = []web.Field{field("text", "customer_name", "Your name", "name"), field("email", "customer_email", "Email address", "email")}
	var general []string
	if ve != nil {
		errs := ve.Fields()
		data.Times.Errors = errs["start_time"]
		for i := range data.Fields {
			data.Fields[i].Errors = errs[data.Fields[i].Name]
		}
		web.VoiceFields(data.Fields)
		for _, name := range ve.FieldNames() {
			if name != "start_time" && name != "customer_name" && name != "customer_email" {
				general = append(general, errs[name]...)
			}
		}
	}
	data.Summary = web.Summary(append([]web.Field{data.Times}, data.Fields...), general...)
	title := "Join the waitlist: " + svc.Name
	if joined != nil {
		title = "You are on the waitlist: " + svc.Name
	}
	page := &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r)}
	p.base.Render.Render(w, r, status, Template, page)
	return nil
}

func (p *PageHandler) join(w http.ResponseWriter, r *http.Request) error {
	ne := NewEntry{Service: r.PathValue("slug"), Name: r.PostFormValue("customer_name"), Email: r.PostFormValue("customer_email"),
		TimeZone: r.URL.Query().Get("tz")}
	ne.Length, _ = strconv.Atoi(r.PostFormValue("length"))
	if t, err := time.Parse(time.RFC3339, r.PostFormValue("start_time")); err == nil {
		ne.Start = t
	} else {
		// Every mistake at once: the time's and the customer's.
		ve := &api.ValidationError{}
		ve.Add("start_time", msgChooseTime)
		checkCustomer(ve, ne.Name, ne.Email)
		return p.draw(w, r, http.StatusUnprocessableEntity, ve, nil)
	}
	e, _, err := p.svc.Join(r.Context(), ne)
	var bad *api.ValidationError
	if errors.As(err, &bad) {
		return p.draw(w, r, http.StatusUnprocessableEntity, bad, nil)
	} else if err != nil {
		return err
	}
	_, loc := zoneOf(r.URL.Query(), "")
	return p.draw(w, r, http.StatusOK, nil, &joinedView{When: when(e.Start, loc), Email: e.Email})
}

// offerPage is the page of an offer: what is kept, until when, the
// button; or that it has gone.
func (p *PageHandler) offerPage(w http.ResponseWriter, r *http.Request, status int, e Entry, general ...string) error {
	ctx := r.Context()
	name, slug := "your appointment", ""
	if svc, err := p.svc.service(ctx, e.ServiceID); err == nil {
		name, slug = svc.Name, svc.Slug
	}
	_, loc := zoneOf(r.URL.Query(), e.TimeZone)
	v := &offerView{When: when(e.Start, loc), Name: e.Name, Booked: e.Status == StatusBooked,
		Gone: e.Status != StatusOffered || e.OfferExpires == nil || !p.svc.o.Now().Before(*e.OfferExpires)}
	if e.OfferExpires != nil {
		v.Until = when(*e.OfferExpires, loc)
	}
	if v.Gone && !v.Booked && status == http.StatusOK {
		status = http.StatusGone
	}
	data := &waitlistPage{Service: name, Offer: v, Action: p.prefix + "/offer/" + r.PathValue("token"), Back: p.bookings + "/" + slug,
		Summary: web.Summary(nil, general...)}
	title := "A place has come free: " + name
	switch {
	case v.Booked:
		title = "You have booked this time: " + name
	case v.Gone:
		title = "This offer has gone: " + name
	}
	page := &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r)}
	p.base.Render.Render(w, r, status, Template, page)
	return nil
}

func (p *PageHandler) offer(w http.ResponseWriter, r *http.Request) error {
	e, err := p.svc.Offer(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	return p.offerPage(w, r, http.StatusOK, e)
}

func (p *PageHandler) take(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	b, manage, err := p.svc.Take(r.Context(), token)
	var ve *api.ValidationError
	switch {
	case errors.As(err, &ve), errors.Is(err, bookings.ErrSlotTaken):
		e, oerr := p.svc.Offer(r.Context(), token)
		if oerr != nil {
			return oerr
		}
		status := http.StatusGone
		if e.Status == StatusBooked {
			status = http.StatusOK // taken already, by this customer: a second click
		}
		return p.offerPage(w, r, status, e)
	case errors.Is(err, bookings.ErrBusy), errors.Is(err, bookings.ErrPaymentUnavailable):
		e, oerr := p.svc.Offer(r.Context(), token)
		if oerr != nil {
			return oerr
		}
		return p.offerPage(w, r, http.StatusServiceUnavailable, e, "We could not book it just now. Please try again in a moment.")
	case err != nil:
		return err
	}
	if b.Payment != nil && b.Payment.CheckoutURL != "" {
		web.SeeOther(w, r, b.Payment.CheckoutURL)
		return nil
	}
	tz := b.CustomerTimeZone
	web.SeeOther(w, r, p.bookings+"/manage/"+manage+"?"+url.Values{"booked": {"1"}, "tz": {cmp.Or(tz, "UTC")}}.Encode())
	return nil
}
