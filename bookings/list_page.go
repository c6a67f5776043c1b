package bookings

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/spreadsheet"
	"github.com/groundwork-go/groundwork/internal/web"
)

// The owner's list of bookings, as Cal.com's "Bookings" page: upcoming,
// requested, past and cancelled, each booking's customer, service,
// provider and time in the viewer's zone; confirm, cancel, reschedule and
// mark a no-show from the list and the booking's page.
const (
	// ListPagePrefixDefault is where [NewListPage] serves the pages.
	ListPagePrefixDefault = "/bookings-list"
	// CapabilityViewBookings is the capability a host's signed-in user
	// holds to see and manage every booking (the reference server's);
	// a provider without it sees their own.
	CapabilityViewBookings = "view_bookings"
	// ListTemplate and BookingTemplate are the pages' "content".
	ListTemplate    = "bookings/list.html"
	BookingTemplate = "bookings/booking.html"
	listPageSize    = 50
)

// ListPageOptions configures [NewListPage]. Nil means the defaults.
type ListPageOptions struct {
	groundwork.HTTPOptions
	// Prefix: ListPagePrefixDefault when empty.
	Prefix string
	// Templates replaces the pages' templates or the page layer's ones.
	Templates fs.FS
	// Key signs the notices across a redirect; give every instance the
	// same.
	Key []byte
	// Viewer says who asks: every booking (all), or one provider's
	// (providerID), or nothing (ok false: 403). Required.
	Viewer func(r *http.Request) (all bool, providerID int64, ok bool)
	// TrustedOrigins may post to the pages besides their own origin.
	TrustedOrigins []string
}

// ListPage serves the list of bookings and each booking's page, working
// without JavaScript. Its POSTs are refused from other origins and
// without the page's CSRF token.
type ListPage struct {
	base   *web.Base
	svc    *Service
	viewer func(r *http.Request) (bool, int64, bool)
}

// NewListPage returns the bookings list pages of svc.
func NewListPage(svc *Service, opts *ListPageOptions) (*ListPage, error) {
	if svc == nil || opts == nil || opts.Viewer == nil {
		return nil, errors.New("bookings: new list page: a service and a Viewer are required")
	}
	o := *opts
	pages, _ := fs.Sub(templatesFS, "templates")
	notFound := web.ErrorPage{Heading: "Booking not found", Message: "There is no such booking among yours."}
	base, err := web.NewBase(web.BaseOptions{Domain: "bookings", Prefix: o.Prefix, Default: ListPagePrefixDefault, Pages: pages, Override: o.Templates,
		Key: o.Key, Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator, NotFound: notFound, Protect: true, TrustedOrigins: o.TrustedOrigins,
		MaxFormBytes: 64 << 10,
		Failure: web.Problem{Status: http.StatusServiceUnavailable, ErrorPage: web.ErrorPage{Heading: "Bookings unavailable",
			Message: "The bookings cannot be shown just now. Please try again in a few minutes."}},
		Explain: func(err error) *web.Problem {
			if errors.Is(err, ErrNotFound) {
				return &web.Problem{Status: http.StatusNotFound, ErrorPage: notFound, Err: err}
			}
			return nil
		}})
	if err != nil {
		return nil, err
	}
	p := &ListPage{base: base, svc: svc, viewer: o.Viewer}
	base.Mux.HandleFunc("GET "+base.Prefix+"/{$}", base.Func(p.list))
	base.Mux.HandleFunc("GET "+base.Prefix+"/export.csv", base.Func(p.export))
	base.Mux.HandleFunc("GET "+base.Prefix+"/{id}", base.Func(p.show))
	base.Mux.HandleFunc("POST "+base.Prefix+"/{id}", base.Func(p.act))
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *ListPage) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (p *ListPage) Routes() []string {
	pre := p.base.Prefix
	return []string{"GET " + pre + "/{$}", "HEAD " + pre + "/{$}", "GET " + pre + "/{id}", "HEAD " + pre + "/{id}", "POST " + pre + "/{id}",
		"GET " + pre + "/export.csv", "HEAD " + pre + "/export.csv", "GET " + pre + "/_assets/{file}"}
}

var listViews = []struct{ name, text string }{{"upcoming", "Upcoming"}, {"requested", "Requested"}, {"unpaid", "Awaiting payment"},
	{"past", "Past"}, {"cancelled", "Cancelled"}}

type listView struct {
	Path, View, Zone, ZoneName string
	// Export downloads the view's bookings as CSV.
	Export string
	Views  []viewLink
	Zones  []web.Option
	// Days are the rows by day in the viewer's zone ("Today",
	// "Tomorrow", "Friday 4 December").
	Days []dayGroup
	// Count says how many bookings the view holds ("3 bookings").
	Count string
	// Services, Providers (for a viewer of every booking) and Statuses
	// narrow the view; Narrowed when one does.
	Services, Providers, Statuses []choice
	Narrowed                      bool
}

// dayGroup is one day's rows of the list.
type dayGroup struct {
	Heading string
	Rows    []bookingRow
}

// choice is an option of one of the list's filters.
type choice struct {
	Value, Label string
	Selected     bool
}

type viewLink struct {
	Text, URL string
	Current   bool
}

type bookingRow struct {
	Booking
	When, Service, Provider, URL string
	CanConfirm, CanCancel        bool
	// Via is where the booking's visit came from (web.Via).
	Via string
	// StatusLabel is its status in words ("Awaiting payment").
	StatusLabel string
}

// who is the viewer, or a 403 Problem.
func (p *ListPage) who(r *http.Request) (bool, int64, error) {
	all, provider, ok := p.viewer(r)
	if !ok {
		return false, 0, &web.Problem{Status: http.StatusForbidden, ErrorPage: web.ErrorPage{Heading: "You do not have access to this page",
			Message: "Your account may not see bookings: it is neither a provider's nor given access to them."}}
	}
	return all, provider, nil
}

// zoneOf is the viewer's zone: ?tz= when it is a zone, else the
// provider's, else UTC.
func (p *ListPage) zoneOf(r *http.Request, provider int64) *time.Location {
	if z := r.URL.Query().Get("tz"); z != "" {
		if loc, err := time.LoadLocation(z); err == nil && z != "Local" {
			return loc
		}
	}
	if provider != 0 {
		if pr, err := p.svc.Provider(r.Context(), provider); err == nil {
			return location(pr.TimeZone)
		}
	}
	return time.UTC
}

func (p *ListPage) names(r *http.Request) (map[int64]string, map[int64]string, error) {
	services, err := p.svc.ListServices(r.Context())
	if err != nil {
		return nil, nil, err
	}
	providers, err := p.svc.Providers(r.Context())
	if err != nil {
		return nil, nil, err
	}
	sn, pn := map[int64]string{}, map[int64]string{}
	for _, s := range services {
		sn[s.ID] = s.Name
	}
	for _, pr := range providers {
		pn[pr.ID] = pr.Name
	}
	return sn, pn, nil
}

func (p *ListPage) list(w http.ResponseWriter, r *http.Request) error {
	all, provider, err := p.who(r)
	if err != nil {
		return err
	}
	loc := p.zoneOf(r, provider)
	now := p.svc.o.Now().UTC()
	view, f := viewFilter(r.URL.Query().Get("view"), all, provider, now)
	lq := readListQuery(r, all)
	lq.narrow(&f)
	f.Limit = listPageSize
	list, total, err := p.svc.ListBookings(r.Context(), f)
	if err != nil {
		return err
	}
	if view == "past" || view == "cancelled" {
		slices.Reverse(list) // the latest first
	}
	sn, pn, err := p.names(r)
	if err != nil {
		return err
	}
	lv := &listView{Path: p.base.Prefix, View: view, Zone: loc.String(), ZoneName: web.PlaceTime(loc.String()), Zones: web.ZoneChoice(loc.String(), now),
		Export: p.base.Prefix + "/export.csv?" + lq.values(url.Values{"view": {view}}).Encode(), Narrowed: lq != listQuery{}}
	for _, v := range listViews {
		q := url.Values{"tz": {loc.String()}}
		if v.name != "upcoming" {
			q.Set("view", v.name)
		}
		lv.Views = append(lv.Views, viewLink{Text: v.text, URL: p.base.Prefix + "/?" + lq.values(q).Encode(), Current: v.name == view})
	}
	lv.Services, lv.Providers, lv.Statuses = lq.choices(sn, pn, all)
	shown := 0
	for _, b := range list {
		if view == "past" && b.Status == StatusCancelled && lq.status == "" {
			total--
			continue
		}
		row := p.row(b, loc, sn, pn, now)
		shown++
		heading := dayHeading(b.Start.In(loc), now.In(loc))
		if n := len(lv.Days); n == 0 || lv.Days[n-1].Heading != heading {
			lv.Days = append(lv.Days, dayGroup{Heading: heading})
		}
		lv.Days[len(lv.Days)-1].Rows = append(lv.Days[len(lv.Days)-1].Rows, row)
	}
	lv.Count = web.Count(total, "booking")
	if shown < total {
		lv.Count = fmt.Sprintf("The first %d of %s", shown, lv.Count)
	}
	p.base.Render.Render(w, r, http.StatusOK, ListTemplate, &web.Page{Title: "Bookings", Data: lv, CSRF: web.CSRFToken(w, r), Wide: true,
		Flash: p.base.Render.TakeFlash(w, r, p.base.Prefix+"/")})
	return nil
}

// viewFilter is the bookings a view of the list shows (upcoming when
// the view is none of them), the viewer's alone unless all.
func viewFilter(view string, all bool, provider int64, now time.Time) (string, BookingFilter) {
	var f BookingFilter
	if !all {
		f.ProviderID = provider
	}
	switch view {
	case "requested":
		f.Status, f.From = StatusRequested, now
	case "unpaid": // held while the customer pays
		f.Status = StatusAwaitingPayment
	case "past":
		f.From, f.To = now.AddDate(0, 0, -90), now
	case "cancelled":
		f.Status = StatusCancelled
	default:
		view, f.Status, f.From = "upcoming", StatusConfirmed, now
	}
	return view, f
}

// listQuery narrows a view of the list: to a service, a provider (for a
// viewer of every booking) and a status (?service=, ?provider= by ID,
// ?status=); zero for any.
type listQuery struct {
	service, provider int64
	status            Status
}

// listStatuses are the statuses the list may be narrowed to, in words.
var listStatuses = []struct {
	status Status
	words  string
}{{StatusConfirmed, "Confirmed"}, {StatusRequested, "Requested"}, {StatusAwaitingPayment, "Awaiting payment"},
	{StatusCompleted, "Completed"}, {StatusNoShow, "No-show"}, {StatusCancelled, "Cancelled"}}

// statusLabel is a status in words, capitalised, for the list.
func statusLabel(s Status) string {
	for _, l := range listStatuses {
		if l.status == s {
			return l.words
		}
	}
	return string(s)
}

// readListQuery reads r's narrowing; anything it does not know is none.
func readListQuery(r *http.Request, all bool) listQuery {
	q := r.URL.Query()
	var lq listQuery
	lq.service, _ = strconv.ParseInt(q.Get("service"), 10, 64)
	if all {
		lq.provider, _ = strconv.ParseInt(q.Get("provider"), 10, 64)
	}
	if s := Status(q.Get("status")); slices.ContainsFunc(listStatuses, func(l struct {
		status Status
		words  string
	}) bool {
		return l.status == s
	}) {
		lq.status = s
	}
	return lq
}

// narrow applies lq to f: a status replaces the view's own.
func (lq listQuery) narrow(f *BookingFilter) {
	if lq.service > 0 {
		f.ServiceID = lq.service
	}
	if lq.provider > 0 {
		f.ProviderID = lq.provider
	}
	if lq.status != "" {
		f.Status = lq.status
	}
}

// values is q with lq's parameters, for a link that keeps them.
func (lq listQuery) values(q url.Values) url.Values {
	if lq.service > 0 {
		q.Set("service", strconv.FormatInt(lq.service, 10))
	}
	if lq.provider > 0 {
		q.Set("provider", strconv.FormatInt(lq.provider, 10))
	}
	if lq.status != "" {
		q.Set("status", string(lq.status))
	}
	return q
}

// choices are the filters' options, by name, lq's selected; no
// providers for a viewer of their own bookings.
func (lq listQuery) choices(sn, pn map[int64]string, all bool) (services, providers, statuses []choice) {
	byName := func(names map[int64]string, current int64) []choice {
		var out []choice
		for id, name := range names {
			out = append(out, choice{Value: strconv.FormatInt(id, 10), Label: name, Selected: id == current})
		}
		slices.SortFunc(out, func(a, b choice) int {
			return cmp.Or(strings.Compare(a.Label, b.Label), strings.Compare(a.Value, b.Value))
		})
		return out
	}
	services = byName(sn, lq.service)
	if all {
		providers = byName(pn, lq.provider)
	}
	for _, l := range listStatuses {
		statuses = append(statuses, choice{Value: string(l.status), Label: l.words, Selected: l.status == lq.status})
	}
	return services, providers, statuses
}

// dayHeading names day (in the viewer's zone) as the list heads its
// bookings: Today, Tomorrow, Yesterday, else the date, with the year when
// it is not today's.
func dayHeading(day, today time.Time) string {
	d, t := slots.DateOf(day), slots.DateOf(today)
	switch {
	case d == t:
		return "Today"
	case d == t.AddDays(1):
		return "Tomorrow"
	case d == t.AddDays(-1):
		return "Yesterday"
	case day.Year() != today.Year():
		return day.Format("Monday 2 January 2006")
	}
	return day.Format("Monday 2 January")
}

// exportBatch is how many bookings the export reads at a time.
const exportBatch = 500

// export is GET {prefix}/export.csv?view=: the view's bookings (every
// one, not a page of them) as CSV, times in UTC, with where each came
// from; a provider's own alone.
func (p *ListPage) export(w http.ResponseWriter, r *http.Request) error {
	all, provider, err := p.who(r)
	if err != nil {
		return err
	}
	view, f := viewFilter(r.URL.Query().Get("view"), all, provider, p.svc.o.Now().UTC())
	lq := readListQuery(r, all)
	lq.narrow(&f)
	sn, pn, err := p.names(r)
	if err != nil {
		return err
	}
	f.Limit = exportBatch
	first, _, err := p.svc.ListBookings(r.Context(), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	name := "bookings-" + view + "-" + p.svc.o.Now().UTC().Format(time.DateOnly) + ".csv"
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"Booking Number", "Service", "Provider", "Start (UTC)", "End (UTC)", "Status", "Customer Name", "Customer Email",
		"Customer Phone", "Booked At (UTC)", "Source", "Medium", "Campaign", "Landing Page", "Country"})
	for list := first; ; {
		for _, b := range list {
			if view == "past" && b.Status == StatusCancelled && lq.status == "" {
				continue
			}
			var provider string
			if b.ProviderID != nil {
				provider = pn[*b.ProviderID]
			}
			var v groundwork.Visit
			if b.Visit != nil {
				v = *b.Visit
			}
			row := []string{b.Number, sn[b.ServiceID], provider, b.Start.UTC().Format(time.DateTime), b.End.UTC().Format(time.DateTime),
				string(b.Status), b.CustomerName, b.CustomerEmail, b.CustomerPhone, b.CreatedAt.UTC().Format(time.DateTime),
				v.Source, v.Medium, v.Campaign, v.Landing, v.Country}
			for i := range row {
				row[i] = spreadsheet.Cell(row[i])
			}
			_ = cw.Write(row)
		}
		if len(list) < exportBatch {
			break
		}
		f.Offset += exportBatch
		if list, _, err = p.svc.ListBookings(r.Context(), f); err != nil {
			// The status is out: log and cut the stream.
			p.base.Logger.ErrorContext(r.Context(), "bookings: export failed", "error", err)
			panic(http.ErrAbortHandler)
		}
	}
	cw.Flush()
	return cw.Error()
}

func (p *ListPage) row(b Booking, loc *time.Location, sn, pn map[int64]string, now time.Time) bookingRow {
	row := bookingRow{Booking: b, When: b.Start.In(loc).Format("Mon 2 Jan 2006, 15:04") + "–" + b.End.In(loc).Format("15:04"),
		Service: sn[b.ServiceID], URL: p.base.Prefix + "/" + strconv.FormatInt(b.ID, 10) + "?tz=" + url.QueryEscape(loc.String()),
		CanConfirm: b.Status == StatusRequested, CanCancel: b.Active() && b.Start.After(now), Via: web.Via(b.Visit),
		StatusLabel: statusLabel(b.Status)}
	if b.ProviderID != nil {
		row.Provider = pn[*b.ProviderID]
	}
	return row
}

// mine returns the booking of the path if the viewer may see it.
func (p *ListPage) mine(r *http.Request) (Booking, error) {
	all, provider, err := p.who(r)
	if err != nil {
		return Booking{}, err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return Booking{}, ErrNotFound
	}
	b, err := p.svc.Booking(r.Context(), id)
	if err != nil {
		return Booking{}, err
	}
	if !all && (b.ProviderID == nil || *b.ProviderID != provider) && !slices.Contains(b.Hosts, provider) {
		return Booking{}, ErrNotFound
	}
	return b, nil
}

type bookingView struct {
	bookingRow
	Path, Zone, ZoneName, Back string
	Reason                     web.Field
	CanNoShow                  bool
	// Length, Price and Place say the rest of what was booked.
	Length, Price, Place string
	// PaymentText says how a paid booking's payment stands.
	PaymentText string
	Summary     []web.SummaryItem
	// Answers are the customer's answers to the service's questions.
	Answers []intakeRow
	// FromForm is the routing form's submission the booking was made
	// from, nil for none.
	FromForm *FromForm
	// Month is the move's picker: the month of times the booking may move
	// to, its day's times a choice, as the customer's reschedule offers
	// them; nil for a booking that cannot move.
	Month *monthPicker
}

func (p *ListPage) show(w http.ResponseWriter, r *http.Request) error {
	return p.showBooking(w, r, http.StatusOK, nil)
}

func (p *ListPage) showBooking(w http.ResponseWriter, r *http.Request, status int, errs map[string][]string) error {
	b, err := p.mine(r)
	if err != nil {
		return err
	}
	_, provider, _ := p.who(r)
	loc := p.zoneOf(r, provider)
	sn, pn, err := p.names(r)
	if err != nil {
		return err
	}
	now := p.svc.o.Now().UTC()
	v := &bookingView{bookingRow: p.row(b, loc, sn, pn, now), Path: p.base.Prefix, Zone: loc.String(), ZoneName: web.PlaceTime(loc.String()),
		Back: p.base.Prefix + "/?tz=" + url.QueryEscape(loc.String()), CanNoShow: b.Active() && !b.Start.After(now),
		Length: web.Count(int(b.End.Sub(b.Start)/time.Minute), "minute"), Reason: web.Field{Type: web.TypeTextarea, Name: "reason", ID: web.FieldID("reason"), Label: "Reason (optional)", Rows: 2,
			Errors: errs["reason"]}}
	if pay := b.Payment; pay != nil {
		state := "awaiting payment until " + pay.DueAt.In(loc).Format("15:04 on 2 January")
		switch {
		case pay.RefundedAt != nil:
			state = "refunded"
		case pay.PaidAt != nil:
			state = "paid"
		}
		v.PaymentText = money(pay.Amount, pay.Currency) + ", " + state
		if pay.Reference != "" {
			v.PaymentText += " (" + pay.Reference + ")"
		}
	}
	fields := []web.Field{v.Reason}
	if v.CanCancel {
		q := r.URL.Query()
		if q.Get("month") == "" && q.Get("date") == "" { // the booking's own day first
			q.Set("month", b.Start.In(loc).Format("2006-01"))
			q.Set("date", slots.DateOf(b.Start.In(loc)).String())
		}
		base := p.base.Prefix + "/" + strconv.FormatInt(b.ID, 10)
		v.Month, err = newMonthPicker(q, loc.String(), base, map[string]string{}, now, r.PostFormValue("start_time"),
			func(from, to time.Time) ([]Slot, error) {
				return p.svc.rescheduleSlots(r.Context(), b, from, to, false)
			})
		if err != nil {
			return err
		}
		v.Month.Time.Label = "New time"
		v.Month.Time.Errors = errs["start_time"]
		if v.Month.markCurrent(b.Start); v.Month.Current != nil {
			v.Month.Current.Note = "its time now"
		}
		fields = append([]web.Field{v.Month.Time}, fields...)
	}
	v.Summary = web.Summary(fields)
	v.FromForm = b.FromForm
	svc, err := p.svc.serviceByID(r.Context(), b.ServiceID)
	if err != nil {
		return err
	}
	if len(b.IntakeData) > 0 {
		v.Answers = intakeRows(svc.IntakeSchema, b.IntakeData)
	}
	switch {
	case b.Payment != nil: // said with its state, PaymentText
	case svc.IsFree:
		v.Price = "Free"
	case svc.Price != nil && *svc.Price != "":
		v.Price = money(*svc.Price, svc.Currency)
	}
	v.Place = b.Location.Text()
	p.base.Render.Render(w, r, status, BookingTemplate, &web.Page{Title: "Booking " + b.Number, Data: v, CSRF: web.CSRFToken(w, r),
		Flash: p.base.Render.TakeFlash(w, r, r.URL.Path)})
	return nil
}

// act is POST {id}: confirm, cancel, reschedule or no-show; back to the
// list (from its buttons) or the booking's page.
func (p *ListPage) act(w http.ResponseWriter, r *http.Request) error {
	b, err := p.mine(r)
	if err != nil {
		return err
	}
	_, provider, _ := p.who(r)
	loc := p.zoneOf(r, provider)
	actor := ActorOwner // the events' actor: the site's owner, from the list
	var said string
	switch r.PostFormValue("action") {
	case "confirm":
		_, err = p.svc.Confirm(r.Context(), b.ID, actor)
		said = "Confirmed."
	case "cancel":
		_, err = p.svc.Cancel(r.Context(), b.ID, actor, strings.TrimSpace(r.PostFormValue("reason")))
		said = "Cancelled."
	case "no_show":
		_, err = p.svc.NoShow(r.Context(), b.ID, actor)
		said = "Marked as a no-show."
	case "reschedule":
		start, perr := time.Parse(time.RFC3339, r.PostFormValue("start_time"))
		if perr != nil {
			return p.showBooking(w, r, http.StatusUnprocessableEntity, map[string][]string{"start_time": {"Choose the new time"}})
		}
		start = start.In(loc)
		_, err = p.svc.Reschedule(r.Context(), b.ID, start, actor)
		said = "Moved to " + start.Format("Mon 2 Jan 2006, 15:04") + " " + web.PlaceTime(loc.String()) + "."
		if errors.Is(err, ErrSlotTaken) || isInvalid(err) {
			return p.showBooking(w, r, http.StatusUnprocessableEntity, map[string][]string{"start_time": {"That time is not free: choose another"}})
		}
	default:
		return &web.Problem{Status: http.StatusBadRequest, ErrorPage: web.ErrorPage{Heading: "Nothing to do", Message: "That button does nothing here."}}
	}
	var se *statusError
	if errors.As(err, &se) {
		said, err = fmt.Sprintf("That cannot be done: the booking is %s.", strings.ReplaceAll(string(se.Status), "_", "-")), nil
	}
	if isInvalid(err) {
		return p.showBooking(w, r, http.StatusUnprocessableEntity, map[string][]string{"reason": {"The reason must be 1000 characters or fewer"}})
	}
	if err != nil {
		return err
	}
	back := p.base.Prefix + "/" + strconv.FormatInt(b.ID, 10) + "?tz=" + url.QueryEscape(loc.String())
	if r.PostFormValue("from") == "list" {
		back = p.base.Prefix + "/?tz=" + url.QueryEscape(loc.String())
		if v := r.PostFormValue("view"); v != "" && v != "upcoming" {
			back += "&view=" + url.QueryEscape(v)
		}
	}
	path, _, _ := strings.Cut(back, "?")
	p.base.Render.SetFlash(w, r, path, web.Flash{Kind: "success", Message: "Booking " + b.Number + ". " + said})
	web.SeeOther(w, r, back)
	return nil
}

func isInvalid(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}
