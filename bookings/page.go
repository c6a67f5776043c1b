package bookings

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/tenant"
)

//go:embed all:templates
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
	// Contact is how customers reach the business ("Call us on ..."),
	// shown when a booking can no longer be changed online.
	Contact string
	// FrameOrigins are the origins (https://www.example.com) whose pages
	// may frame the booking and manage pages, which embed.js (served at
	// {Prefix}/embed.js) places in them; none when empty, and then the
	// pages refuse every frame.
	FrameOrigins []string
	// Waitlist is where the waitlist's pages are served
	// (waitlist.PagePrefixDefault, with bookings/waitlist joined): a day
	// with full times then links to its page, to join one's waitlist.
	// Empty for none.
	Waitlist string
}

// PageHandler serves a booking page that works without JavaScript, like
// the best booking pages: GET {prefix}/{slug} shows a card with the
// service (length, providers, price) and a server-drawn month
// (?month=YYYY-MM, never before this month) whose days with free times
// are links (?date=YYYY-MM-DD); the chosen day's times are a grid of
// choices above the customer's fields, all in a time zone the visitor
// picks (?tz=, the service's by default; the page layer's optional
// script picks the browser's). POST books: every mistake at once, in the
// labels' words (422), "no longer available" (409), or a redirect to the
// booking's confirmation: its manage page with calendar links.
//
// The manage page GET {prefix}/manage/{token} shows the booking, links to
// add it to a calendar, and "Reschedule" and "Cancel" as separate steps
// (?step=reschedule shows the month of times it may move to; ?step=cancel
// asks before cancelling, with an optional reason); POST .../cancel and
// .../reschedule change it with the API's checks, texts and statuses.
// Past the change window it says so, with PageOptions.Contact; a
// cancelled booking offers "Book again". Posts from other origins are
// refused (403).
type PageHandler struct {
	base                   *web.Base
	svc                    *Service
	prefix, feedPrefix     string
	render                 *web.Renderer
	post                   *throttle.Throttle
	manageGet, manageToken *throttle.Throttle
	contact, waitlist      string
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
	if o.RateLimiter == nil {
		o.RateLimiter = driverless.NewMemoryRateLimiter(nil)
	}
	base, err := newPageBase(o.HTTPOptions, o.Prefix, PagePrefixDefault, o.Templates, o.Key, o.TrustedOrigins, explainPage, o.FrameOrigins...)
	if err != nil {
		return nil, err
	}
	prefix, r := base.Prefix, base.Render
	if o.FeedPrefix == "" {
		o.FeedPrefix = FeedPrefixDefault
	}
	p := &PageHandler{base: base, svc: svc, prefix: prefix, feedPrefix: strings.TrimSuffix(o.FeedPrefix, "/"), render: r, contact: o.Contact,
		waitlist:    strings.TrimSuffix(o.Waitlist, "/"),
		manageGet:   newBucket(svc, o.RateLimiter, o.TrustedProxies, base.Logger, "manage_get", o.ManageGetLimit, ManageGetLimitDefault),
		manageToken: newBucket(svc, o.RateLimiter, o.TrustedProxies, base.Logger, "manage_token", o.ManageTokenLimit, ManageTokenLimitDefault)}
	if p.manageToken != nil {
		p.manageToken.Key = tokenKey
	}
	if o.PostLimit >= 0 {
		limit := o.PostLimit
		if limit == 0 {
			limit = PostLimitDefault
		}
		p.post = &throttle.Throttle{Name: "bookings_post", Limiter: o.RateLimiter, Limit: limit, Window: time.Minute, Message: msgTooMany,
			TrustedProxies: o.TrustedProxies, Now: svc.o.Now, Logger: base.Logger}
	}
	mux := base.Mux
	mux.HandleFunc("GET "+prefix+"/{slug}", base.Func(p.show))
	mux.HandleFunc("POST "+prefix+"/{slug}", base.Func(p.book))
	mux.HandleFunc("GET "+prefix+"/manage/{token}", base.Func(p.showManage))
	mux.HandleFunc("POST "+prefix+"/manage/{token}/cancel", base.Func(p.cancelManaged))
	mux.HandleFunc("POST "+prefix+"/manage/{token}/reschedule", base.Func(p.rescheduleManaged))
	mux.HandleFunc("GET "+prefix+"/manage/{token}/pay", base.Func(p.payManaged))
	mux.HandleFunc("GET "+prefix+"/embed.js", web.ServeEmbedScript)
	return p, nil
}

// newPageBase is the page layer of the bookings pages at prefix (def
// when empty), protected from other origins' posts.
func newPageBase(h groundwork.HTTPOptions, prefix, def string, templates fs.FS, key []byte, trusted []string, explain func(error) *web.Problem,
	frameOrigins ...string) (*web.Base, error) {
	pages, _ := fs.Sub(templatesFS, "templates")
	return web.NewBase(web.BaseOptions{Domain: "bookings", Prefix: prefix, Default: def, Pages: pages,
		Override: templates, Key: key, Logger: h.Logger, Brand: h.Brand, Navigator: h.Navigator,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explain, Protect: true, TrustedOrigins: trusted, MaxFormBytes: maxFormBytes, FrameOrigins: frameOrigins})
}

// maxFormBytes bounds the body of a post to the pages.
const maxFormBytes = 64 << 10

// explainPage is the page of each error of the booking pages: a missing
// service, a manage link that names no booking.
func explainPage(err error) *web.Problem {
	switch {
	case errors.Is(err, ErrNotFound):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Service not found", Message: msgNoService}}
	case errors.Is(err, ErrBadManageToken):
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Booking link not valid", Message: msgBadManageToken}}
	}
	return nil
}

// ServeHTTP implements http.Handler.
func (p *PageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.base.ServeHTTP(w, r.WithContext(tenant.All(r.Context()))) // public: it serves whoever asks, whatever tenant the request acted for
}

// Routes lists the routes, as "METHOD /path/{param}".
func (p *PageHandler) Routes() []string {
	return []string{"GET " + p.prefix + "/{slug}", "POST " + p.prefix + "/{slug}", "GET " + p.prefix + "/manage/{token}",
		"POST " + p.prefix + "/manage/{token}/cancel", "POST " + p.prefix + "/manage/{token}/reschedule", "GET " + p.prefix + "/manage/{token}/pay",
		"GET " + p.prefix + "/_assets/{file}", "GET " + p.prefix + "/embed.js"}
}

type bookPage struct {
	Service   Offering
	Providers string
	Price     string
	Length    string
	Where     string
	ZoneLabel string
	// Request is what the page says above its button when a booking
	// made here waits for the provider's yes ("" when it is booked at
	// once); Submit is the button's word.
	Request string
	Submit  string
	Action  string
	// Post is where the booking form posts: the page with its zone and
	// day, and a frame's parameters when framed (so the answer is drawn
	// for the frame even before the page's script has run).
	Post     string
	Calendar *monthPicker
	Fields   []web.Field
	Summary  []web.SummaryItem
	// Waitlist is the chosen day's waitlist page, when it has full times.
	Waitlist string
	// From is the number of the form submission the page was opened
	// from (a routing form's), "" for none.
	From string
}

// labelWords puts the booking form's messages in the words of its
// labels ("Enter your name.") instead of the API's field names.
var labelWords = map[string]string{
	api.MsgRequired("customer_name"):                        "Enter your name",
	api.MsgRequired("customer_email"):                       "Enter your email address",
	api.MsgEmail("customer_email"):                          "Enter an email address in the correct format, like name@example.com",
	api.MsgRequired("start_time"):                           "Choose a time",
	"The customer timezone field must be a valid timezone.": "Choose a time zone from the list",
}

// inLabelWords rewrites ve's messages with labelWords, and the API's
// field names in the rest ("The customer phone field ...") as the
// labels read.
func inLabelWords(ve *ValidationError) *ValidationError {
	if ve == nil {
		return nil
	}
	out := &ValidationError{}
	names := strings.NewReplacer("customer name", "name", "customer email", "email address", "customer phone", "phone",
		"start time", "time", "notes field", "notes")
	for _, name := range ve.FieldNames() {
		for _, m := range ve.Fields()[name] {
			if w, ok := labelWords[m]; ok {
				m = w
			} else {
				m = names.Replace(m)
			}
			out.Add(name, m)
		}
	}
	return out
}

// price is the service card's price line, with its currency.
func price(svc Offering) string {
	switch {
	case svc.IsFree || svc.Price == nil:
		return "Free"
	default:
		return money(*svc.Price, svc.Currency)
	}
}

// currencySigns are the signs written before an amount; other codes
// follow it ("45.00 CHF").
var currencySigns = map[string]string{"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥", "INR": "₹", "AUD": "A$", "CAD": "C$", "NZD": "NZ$"}

// money is an amount in a currency as people read it.
func money(amount, currency string) string {
	if sign, ok := currencySigns[currency]; ok {
		return sign + amount
	}
	if currency != "" {
		return amount + " " + currency
	}
	return amount
}

// lengthChoice is the booking page's choice of a service's lengths (nil
// for one length), the chosen one selected.
func lengthChoice(svc Offering, chosen int) []web.Option {
	if len(svc.Lengths) == 0 {
		return nil
	}
	out := make([]web.Option, len(svc.Lengths))
	for i, l := range svc.Lengths {
		withLength, _ := svc.withLength(l.Minutes)
		out[i] = web.Option{Value: strconv.Itoa(l.Minutes), Label: strconv.Itoa(l.Minutes) + " minutes, " + price(withLength),
			Selected: l.Minutes == withLength.Duration && l.Minutes == chosen, Hint: price(withLength)}
	}
	return out
}

// draw renders the booking page: the service card, the month with its
// free days, the chosen day's times, the customer's fields; what the
// visitor typed kept and every error shown at once, in the labels' words.
func (p *PageHandler) draw(w http.ResponseWriter, r *http.Request, status int, svc Offering, ve *ValidationError, general ...string) error {
	ctx := r.Context()
	q := r.URL.Query()
	zone := web.PageZone(q, zoneName(svc.TimeZone))
	// The length chosen (the service's own when none, or one it does not
	// offer), kept by the month's links.
	minutes, _ := strconv.Atoi(cmp.Or(r.PostFormValue("length"), q.Get("length")))
	if chosen, err := svc.withLength(minutes); err == nil && minutes > 0 {
		svc = chosen
	} else {
		minutes = 0
	}
	keep := map[string]string{}
	if minutes > 0 {
		keep["length"] = strconv.Itoa(minutes)
	}
	offers, err := p.svc.bookable(ctx, svc)
	if err != nil {
		return err
	}
	pf, token, providers, prefilled := p.svc.pagePrefill(r, offers)
	if prefilled {
		keep[prefillQuery] = token
		fillIn(r, pf, svc.IntakeSchema)
	}
	data := &bookPage{Service: svc, Action: p.prefix + "/" + svc.Slug, Price: price(svc), Length: strconv.Itoa(svc.Duration) + " minutes",
		Where: svc.Location.publicText(), ZoneLabel: web.ZoneLabel(zone, p.svc.o.Now()), Submit: "Book"}
	data.Request, data.Submit = p.svc.requestWords(svc)
	cal, err := newMonthPicker(q, zone, data.Action, keep, p.svc.o.Now(), r.PostFormValue("start_time"), func(from, to time.Time) ([]Slot, error) {
		return p.svc.Slots(ctx, svc, SlotQuery{From: from, To: to, Providers: providers})
	})
	if err != nil {
		return err
	}
	cal.Form, cal.Lengths = "book", lengthChoice(svc, svc.Duration)
	data.Post = web.InFrame(r, data.Action+"?tz="+url.QueryEscape(cal.Zone)+"&date="+url.QueryEscape(cal.Date))
	data.Calendar = cal
	if data.Waitlist, err = p.waitlistLink(r, svc, cal, minutes); err != nil {
		return err
	}
	offers = onlyProviders(offers, providers)
	names := make([]string, len(offers))
	for i, o := range offers {
		names[i] = o.Name
	}
	data.Providers = strings.Join(names, ", ")
	field := func(typ, name, label, auto string, required bool) web.Field {
		return web.Field{Type: typ, Name: name, ID: web.FieldID(name), Label: label, Value: r.PostFormValue(name), Autocomplete: auto, Required: required}
	}
	data.Fields = slices.Concat([]web.Field{field("text", "customer_name", "Your name", "name", true), field("email", "customer_email", "Email address", "email", true),
		field("tel", "customer_phone", "Phone (optional)", "tel", false)}, intakeFields(r, svc.IntakeSchema),
		[]web.Field{field(web.TypeTextarea, "notes", "Notes (optional)", "", false)})
	if minutes > 0 {
		data.Fields = append(data.Fields, web.Field{Type: "hidden", Name: "length", Value: strconv.Itoa(minutes)})
	}
	if prefilled {
		data.Fields = append(data.Fields, web.Field{Type: "hidden", Name: prefillQuery, Value: token})
		if pf.From != nil {
			data.From = pf.From.Number
		}
	}
	if sr := svc.Series; sr != nil {
		data.Fields = append(data.Fields, seriesFields(r, sr)...)
	}
	if ve = inLabelWords(ve); ve != nil {
		errs := ve.Fields()
		data.Calendar.Time.Errors = errs["start_time"]
		for i := range data.Fields {
			data.Fields[i].Errors = errs[data.Fields[i].Name]
		}
		if schema := svc.IntakeSchema; schema != nil {
			for _, f := range schema.Fields {
				if i := slices.IndexFunc(data.Fields, func(x web.Field) bool { return x.Name == intakeName(f) }); i >= 0 {
					data.Fields[i].Errors = intakeWords(f, data.Fields[i].Errors)
				}
			}
		}
		web.VoiceFields(data.Fields)
		for _, name := range ve.FieldNames() {
			if name != "start_time" && !slices.ContainsFunc(data.Fields, func(f web.Field) bool { return f.Name == name }) {
				general = append(general, errs[name]...)
			}
		}
	}
	data.Summary = web.Summary(append([]web.Field{data.Calendar.Time}, data.Fields...), general...)
	page := &web.Page{Title: "Book " + svc.Name, Data: data, Wide: true, CSRF: web.CSRFToken(w, r), Flash: p.render.TakeFlash(w, r, data.Action)}
	p.render.Render(w, r, status, BookTemplate, page)
	return nil
}

// seriesFields are the booking form's choice of a series: how many
// times, how often when the service allows more than every week (every
// gap it allows), and whether to book the free ones when some are taken.
func seriesFields(r *http.Request, sr *SeriesRule) []web.Field {
	gaps := max(sr.MaxEveryWeeks, 1)
	repeat := web.Field{Type: web.TypeSelect, Name: "repeat", ID: web.FieldID("repeat"), Label: "How many weeks",
		Help: "The same time each week.", Placeholder: "Just this once"}
	if gaps > 1 {
		repeat.Label, repeat.Help = "How many times", "At the same time each time."
	}
	for n := 2; n <= sr.MaxCount; n++ {
		v := strconv.Itoa(n)
		label := v + " weeks in a row"
		if gaps > 1 {
			label = v + " times"
		}
		repeat.Options = append(repeat.Options, web.Option{Value: v, Label: label, Selected: r.PostFormValue("repeat") == v})
	}
	out := []web.Field{repeat}
	if gaps > 1 {
		every := web.Field{Type: web.TypeSelect, Name: "every", ID: web.FieldID("every"), Label: "How often", Placeholder: "Every week"}
		for n := 2; n <= gaps; n++ {
			v := strconv.Itoa(n)
			every.Options = append(every.Options, web.Option{Value: v, Label: "Every " + v + " weeks", Selected: r.PostFormValue("every") == v})
		}
		out = append(out, every)
	}
	return append(out, web.Field{Type: web.TypeCheckbox, Name: "free_only", ID: web.FieldID("free_only"),
		Label: "If some of those times are taken, book the free ones", Checked: r.PostFormValue("free_only") != ""})
}

// requestWords are what the booking page says of approval before its
// button, and the button's word: a service whose every booking waits for
// the provider's yes is requested, not booked; one whose late bookings
// wait says which.
func (s *Service) requestWords(svc Offering) (note, submit string) {
	switch {
	case s.o.ManualConfirm || svc.RequiresConfirmation && svc.ConfirmWithinHours == 0:
		return "This is a request: the provider confirms it, and we email you when they do. The time is held for you until then.", "Request this time"
	case svc.RequiresConfirmation:
		return fmt.Sprintf("A time less than %s from now is a request: the provider confirms it, and we email you when they do. "+
			"A later time is booked at once.", web.Span(time.Duration(svc.ConfirmWithinHours)*time.Hour)), "Book"
	}
	return "", "Book"
}

// waitlistLink is the waitlist page of the day cal shows, when the
// service has a waitlist and the day a full time ("" otherwise).
func (p *PageHandler) waitlistLink(r *http.Request, svc Offering, cal *monthPicker, minutes int) (string, error) {
	if p.waitlist == "" || cal.Date == "" {
		return "", nil
	}
	day, err := time.ParseInLocation(time.DateOnly, cal.Date, location(cal.Zone))
	if err != nil {
		return "", nil
	}
	// The day's free times are the ones drawn: only the rules are run
	// again, without the bookings.
	var free []Slot
	for _, o := range cal.Time.Options {
		if t, err := time.Parse(time.RFC3339, o.Value); err == nil {
			free = append(free, Slot{Period: Period{Start: t.UTC()}})
		}
	}
	full, err := p.svc.fullSlots(r.Context(), svc, SlotQuery{From: day, To: day.AddDate(0, 0, 1)}, free)
	if err != nil || len(full) == 0 {
		return "", err
	}
	q := url.Values{"tz": {cal.Zone}, "date": {cal.Date}}
	if minutes > 0 {
		q.Set("length", strconv.Itoa(minutes))
	}
	return p.waitlist + "/" + svc.Slug + "?" + q.Encode(), nil
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
	zone := web.PageZone(r.URL.Query(), zoneName(svc.TimeZone))
	nb := NewBooking{ServiceSlug: svc.Slug, CustomerName: r.PostFormValue("customer_name"), CustomerEmail: r.PostFormValue("customer_email"),
		CustomerPhone: r.PostFormValue("customer_phone"), Notes: r.PostFormValue("notes"), CustomerTimeZone: zone,
		IntakeData: intakeAnswers(r, svc.IntakeSchema)}
	nb.Length, _ = strconv.Atoi(r.PostFormValue("length"))
	offers, err := p.svc.bookable(r.Context(), svc)
	if err != nil {
		return err
	}
	if pf, _, providers, ok := p.svc.pagePrefill(r, offers); ok {
		nb.Providers, nb.FromForm = providers, pf.From
	}
	if n, _ := strconv.Atoi(r.PostFormValue("repeat")); n > 1 {
		every, _ := strconv.Atoi(r.PostFormValue("every"))
		nb.Repeat = &Repeat{Count: n, EveryWeeks: max(every, 1), FreeOnly: r.PostFormValue("free_only") != ""}
	}
	if t, err := time.Parse(time.RFC3339, r.PostFormValue("start_time")); err == nil {
		nb.Start = t
	}
	// Every mistake at once; and a mistake does not count against the
	// customer's bookings a minute: only an attempt that could book does.
	if ve := (*ValidationError)(nil); errors.As(p.svc.checkNewBooking(svc, &nb), &ve) {
		return p.draw(w, r, http.StatusUnprocessableEntity, svc, ve)
	}
	if p.post != nil {
		allowed, err := p.post.Hit(w, r, proxies.ClientIPString(r, p.post.TrustedProxies))
		if err != nil {
			return err
		}
		if !allowed {
			return p.draw(w, r, http.StatusTooManyRequests, svc, nil, web.WaitMessage(w, msgTooMany))
		}
	}
	var token string
	var booked Booking
	if nb.Repeat != nil {
		var series Series
		series, err = p.svc.CreateSeries(r.Context(), nb)
		token = series.ManageToken
	} else {
		booked, token, err = p.svc.Create(r.Context(), nb)
	}
	var ve *ValidationError
	switch {
	case errors.As(err, &ve):
		return p.draw(w, r, http.StatusUnprocessableEntity, svc, ve)
	case errors.Is(err, ErrSlotTaken):
		return p.draw(w, r, http.StatusConflict, svc, nil, msgTaken)
	case errors.Is(err, ErrBusy):
		return p.draw(w, r, http.StatusServiceUnavailable, svc, nil, msgBusy)
	case errors.Is(err, ErrPaymentUnavailable):
		return p.draw(w, r, http.StatusServiceUnavailable, svc, nil, msgPaymentUnavailable)
	case err != nil:
		return err
	}
	if booked.Status == StatusAwaitingPayment && booked.Payment.CheckoutURL != "" && !p.render.Framed(r) {
		// Booked and held: the customer pays on the provider's page,
		// which sends them back to the booking's own page.
		web.SeeOther(w, r, booked.Payment.CheckoutURL)
		return nil
	}
	// The confirmation is the booking's own page, which the mail links
	// to as well; in a frame, where the payment page refuses to be shown,
	// that page's Pay opens it in a tab of its own.
	web.SeeOther(w, r, p.prefix+"/manage/"+token+"?"+url.Values{"booked": {"1"}, "tz": {zone}}.Encode())
	return nil
}
