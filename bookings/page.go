package bookings

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store/lite"
)

//go:embed templates
var templatesFS embed.FS

// PagePrefixDefault is where [NewPageHandler] serves the booking page.
const PagePrefixDefault = "/bookings"

// BookTemplate is the booking page's "content", by the name a host's
// PageOptions.Templates may replace it under.
const BookTemplate = "bookings/book.html"

// PageOptions configures [NewPageHandler]. Nil means the defaults.
type PageOptions struct {
	// HTTPOptions: its RateLimiter, with PostLimit, is the "post" bucket,
	// as the API's (share one limiter to count both in one budget).
	groundwork.HTTPOptions
	// Prefix: PagePrefixDefault when empty; the page is {Prefix}/{slug}.
	Prefix string
	// Templates replaces the page's template or the page layer's ones.
	Templates fs.FS
	// Key signs the flash after a booking; give every instance the same.
	Key       []byte
	PostLimit int
	// ManageGetLimit and ManageTokenLimit: the manage page's buckets, as
	// the API's (share one limiter to count both in one budget).
	ManageGetLimit, ManageTokenLimit int
	// FeedPrefix is where the calendar feeds are served (the manage
	// page links to the booking's); FeedPrefixDefault when empty.
	FeedPrefix string
	// TrustedOrigins may post to the page besides its own origin.
	TrustedOrigins []string
}

// PageHandler serves a booking page that works without JavaScript:
// GET {prefix}/{slug}?date=YYYY-MM-DD lists the day's free times (in the
// service's zone) as choices with name and email fields; POST books, and
// redirects back with a confirmation (Post/Redirect/Get), or shows the
// page again with the errors (422) or "no longer available" (409). Posts
// from other origins are refused (403).
//
// The manage page GET {prefix}/manage/{token}?date=YYYY-MM-DD shows the
// booking of a manage link, the times it may move to on a day, a cancel
// form, and a link to its calendar file; POST .../cancel and
// .../reschedule change it with the API's checks, texts and statuses.
type PageHandler struct {
	svc                    *Service
	prefix, feedPrefix     string
	render                 *web.Renderer
	handler                http.Handler
	post                   *api.Throttle
	manageGet, manageToken *api.Throttle
	logger                 *slog.Logger
}

// NewPageHandler returns the booking page of svc. Mount it at the prefix
// with a trailing slash.
func NewPageHandler(svc *Service, opts *PageOptions) (*PageHandler, error) {
	if svc == nil {
		return nil, errors.New("bookings: new page handler: service is nil")
	}
	var o PageOptions
	if opts != nil {
		o = *opts
	}
	prefix := strings.TrimSuffix(o.Prefix, "/")
	if o.Prefix == "" {
		prefix = PagePrefixDefault
	}
	if !strings.HasPrefix(prefix, "/") {
		return nil, errors.New("bookings: new page handler: the prefix must start with /")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RateLimiter == nil {
		o.RateLimiter = lite.NewMemoryRateLimiter(nil)
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	r, err := web.New(web.Options{Pages: pages, Override: o.Templates, AssetPrefix: prefix + "/_assets", Key: o.Key, Logger: o.Logger,
		Brand: o.Brand, Navigator: o.Navigator})
	if err != nil {
		return nil, fmt.Errorf("bookings: new page handler: %w", err)
	}
	if o.FeedPrefix == "" {
		o.FeedPrefix = FeedPrefixDefault
	}
	p := &PageHandler{svc: svc, prefix: prefix, feedPrefix: strings.TrimSuffix(o.FeedPrefix, "/"), render: r, logger: o.Logger,
		manageGet:   newBucket(svc, o.RateLimiter, o.TrustedProxies, o.Logger, "manage_get", o.ManageGetLimit, ManageGetLimitDefault),
		manageToken: newBucket(svc, o.RateLimiter, o.TrustedProxies, o.Logger, "manage_token", o.ManageTokenLimit, ManageTokenLimitDefault)}
	if p.manageToken != nil {
		p.manageToken.Key = tokenKey
	}
	if o.PostLimit >= 0 {
		limit := o.PostLimit
		if limit == 0 {
			limit = PostLimitDefault
		}
		p.post = &api.Throttle{Name: "bookings_post", Limiter: o.RateLimiter, Limit: limit, Window: time.Minute, Message: MsgTooMany,
			TrustedProxies: o.TrustedProxies, Now: svc.o.Now, Logger: o.Logger}
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+prefix+"/_assets/{file}", r.Assets())
	mux.HandleFunc("GET "+prefix+"/{slug}", p.page(p.show))
	mux.HandleFunc("POST "+prefix+"/{slug}", p.page(p.book))
	mux.HandleFunc("GET "+prefix+"/manage/{token}", p.page(p.showManage))
	mux.HandleFunc("POST "+prefix+"/manage/{token}/cancel", p.page(p.cancelManaged))
	mux.HandleFunc("POST "+prefix+"/manage/{token}/reschedule", p.page(p.rescheduleManaged))
	mux.HandleFunc(prefix+"/", func(w http.ResponseWriter, req *http.Request) {
		r.Error(w, req, http.StatusNotFound, web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."})
	})
	if p.handler, err = r.Protect(mux, o.TrustedOrigins...); err != nil {
		return nil, fmt.Errorf("bookings: new page handler: %w", err)
	}
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := api.CheckRequestText(r); e != nil {
		p.render.Error(w, r, e.Status, web.ErrorPage{Heading: "Address not understood",
			Message: "The address of this page holds characters it cannot take. Check the link, or go back and try again."})
		return
	}
	api.ServeDrained(w, r, p.handler)
}

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	return []string{"GET " + p.prefix + "/{slug}", "POST " + p.prefix + "/{slug}", "GET " + p.prefix + "/manage/{token}",
		"POST " + p.prefix + "/manage/{token}/cancel", "POST " + p.prefix + "/manage/{token}/reschedule", "GET " + p.prefix + "/_assets/{file}"}
}

type bookPage struct {
	Service                Offering
	Zone                   string
	Action                 string
	Day, Prev, Next, Today string
	DayLabel               string
	Time                   web.Field
	Fields                 []web.Field
	Summary                []web.SummaryItem
}

func (p *PageHandler) notFound(w http.ResponseWriter, r *http.Request) {
	p.render.Error(w, r, http.StatusNotFound, web.ErrorPage{Heading: "Service not found", Message: MsgNoService})
}

// day is the page's day: ?date, else today in the service's zone.
func (p *PageHandler) day(r *http.Request, loc *time.Location) Date {
	if d, ok := ParseDate(r.URL.Query().Get("date")); ok {
		return d
	}
	return DateOf(p.svc.o.Now().In(loc))
}

// draw renders the page for the day with the slots it offers, keeping
// what the visitor typed and the errors.
func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, svc Offering, ve *ValidationError, general ...string) error {
	loc := location(svc.TimeZone)
	day := p.day(r, loc)
	slots, err := p.svc.Slots(r.Context(), svc, SlotQuery{From: day.In(loc), To: day.AddDays(1).In(loc)})
	if err != nil {
		return err
	}
	data := &bookPage{Service: svc, Zone: svc.TimeZone, Action: p.prefix + "/" + svc.Slug, Day: day.String(), Prev: day.AddDays(-1).String(),
		Next: day.AddDays(1).String(), Today: DateOf(p.svc.o.Now().In(loc)).String(), DayLabel: day.In(loc).Format("Monday 2 January 2006")}
	chosen := r.PostFormValue("start_time")
	data.Time = web.Field{Type: web.TypeRadio, Name: "start_time", ID: web.FieldID("start_time"), Label: "Time", Required: true}
	for _, s := range slots {
		v := s.Start.UTC().Format(time.RFC3339)
		data.Time.Options = append(data.Time.Options, web.Option{Value: v, Label: s.Start.In(loc).Format("15:04"), Selected: v == chosen})
	}
	field := func(typ, name, label, auto string, required bool) web.Field {
		return web.Field{Type: typ, Name: name, ID: web.FieldID(name), Label: label, Value: r.PostFormValue(name), Autocomplete: auto, Required: required}
	}
	data.Fields = []web.Field{field("text", "customer_name", "Your name", "name", true), field("email", "customer_email", "Email address", "email", true),
		field("tel", "customer_phone", "Phone (optional)", "tel", false), field(web.TypeTextarea, "notes", "Notes (optional)", "", false)}
	if ve != nil {
		errs := ve.Fields()
		data.Time.Errors = errs["start_time"]
		for i := range data.Fields {
			data.Fields[i].Errors = errs[data.Fields[i].Name]
		}
		for _, name := range ve.FieldNames() {
			if name != "start_time" && !strings.HasPrefix(name, "customer_") && name != "notes" {
				general = append(general, errs[name]...)
			}
		}
	}
	data.Summary = web.Summary(append([]web.Field{data.Time}, data.Fields...), general...)
	page := &web.Page{Title: "Book " + svc.Name, Data: data, CSRF: web.CSRFToken(w, r), Flash: p.render.TakeFlash(w, r, data.Action)}
	p.render.Render(w, r, status, BookTemplate, page)
	return nil
}

// page adapts a page handler that returns its error; the error's answer
// is an error page: 404 for what is not there, else a logged 500.
func (p *PageHandler) page(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			p.errorPage(w, r, err)
		}
	}
}

func (p *PageHandler) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNotFound) {
		p.notFound(w, r)
		return
	}
	if r.Context().Err() == nil {
		p.logger.ErrorContext(r.Context(), "bookings: page", "error", err)
	}
	p.render.Error(w, r, http.StatusInternalServerError, web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."})
}

func (p *PageHandler) show(w http.ResponseWriter, r *http.Request) error {
	svc, err := p.svc.ActiveService(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return p.draw(w, r, http.StatusOK, svc, nil)
}

func (p *PageHandler) book(w http.ResponseWriter, r *http.Request) error {
	svc, err := p.svc.ActiveService(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		p.render.Error(w, r, http.StatusBadRequest, web.ErrorPage{Heading: "Form not understood", Message: "The form could not be read. Go back and try again."})
		return nil
	}
	nb := NewBooking{ServiceSlug: svc.Slug, CustomerName: r.PostFormValue("customer_name"), CustomerEmail: r.PostFormValue("customer_email"),
		CustomerPhone: r.PostFormValue("customer_phone"), Notes: r.PostFormValue("notes")}
	if st := r.PostFormValue("start_time"); st == "" {
		nb.Start = time.Time{}
	} else if t, err := time.Parse(time.RFC3339, st); err == nil {
		nb.Start = t
	}
	if nb.Start.IsZero() {
		return p.draw(w, r, http.StatusUnprocessableEntity, svc, api.Invalid("start_time", "Choose a time."))
	}
	// A mistake in the form does not count against the customer's
	// bookings a minute: only an attempt that could book does.
	if ve := (*ValidationError)(nil); errors.As(p.svc.checkNewBooking(svc, &nb), &ve) {
		return p.draw(w, r, http.StatusUnprocessableEntity, svc, ve)
	}
	if p.post != nil {
		allowed, err := p.post.Hit(w, r, api.ClientIPString(r, p.post.TrustedProxies))
		if err != nil {
			return err
		}
		if !allowed {
			return p.draw(w, r, http.StatusTooManyRequests, svc, nil, tooMany(w))
		}
	}
	b, _, err := p.svc.Create(r.Context(), nb)
	var ve *ValidationError
	switch {
	case errors.As(err, &ve):
		return p.draw(w, r, http.StatusUnprocessableEntity, svc, ve)
	case errors.Is(err, ErrSlotTaken):
		return p.draw(w, r, http.StatusConflict, svc, nil, MsgTaken)
	case errors.Is(err, ErrBusy):
		return p.draw(w, r, http.StatusServiceUnavailable, svc, nil, MsgBusy)
	case err != nil:
		return err
	}
	loc := location(svc.TimeZone)
	action := p.prefix + "/" + svc.Slug
	msg := fmt.Sprintf("Booked: %s, %s.", svc.Name, b.Start.In(loc).Format("Monday 2 January 2006 at 15:04 MST"))
	if p.svc.SendsMail() {
		msg += fmt.Sprintf(" A confirmation is on its way to %s.", b.CustomerEmail)
	}
	p.render.SetFlash(w, r, action, web.Flash{Kind: "success", Message: msg})
	web.SeeOther(w, r, action+"?date="+DateOf(b.Start.In(loc)).String())
	return nil
}
