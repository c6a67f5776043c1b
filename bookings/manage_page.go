package bookings

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/web"
)

// ManageTemplate is the manage page's "content", by the name a host's
// PageOptions.Templates may replace it under.
const ManageTemplate = "bookings/manage.html"

type managePage struct {
	Service, Provider, When, Status, Number string
	// Where is the booking's place; Link its video link, when it has one.
	Where, Link string
	// ServiceURL is the booking page of the service ("Book again").
	ServiceURL string
	// Calendar is the .ics feed, Google and Outlook their calendars'
	// links to add it; only for a booking that is on.
	Calendar, Google, Outlook string
	// Price is what the booking costs, with its currency; "" when free.
	Price string
	// Until is when online changes close, while that is ahead; Closed
	// says why they are not possible, Contact how to reach the business.
	Until, Closed            string
	Contact                  template.HTML
	Active, Cancelled        bool
	CanCancel, CanReschedule bool
	// Booked marks the confirmation right after booking; Mailed names the
	// address the details went to.
	Booked bool
	Mailed string
	// Made is, on that confirmation, what a host page framing it is told
	// of the booking (JSON, the bookingSuccessful event's data).
	Made string
	// MoveFrom is, on the reschedule step, the earliest time offered (a
	// move leaves the booking changeable online); "" without a change
	// window.
	MoveFrom string
	// Step is "", "reschedule" or "cancel".
	Step   string
	Action string
	Zone   string
	Month  *monthPicker
	Reason web.Field
	// Series says which occurrence of a series this is; Scope chooses
	// what a cancellation takes (none when nothing follows it). Dates are
	// every date of the series, each with its status.
	Series  string
	Scope   web.Field
	Dates   []seriesDate
	Summary []web.SummaryItem
	// PayURL, while the booking awaits payment, is where the customer
	// pays (the provider's page, through the pay route); PayUntil when
	// the time is released unpaid; PayPending that they came back from
	// paying and the provider's word is awaited. Paid says how the
	// payment stands ("Paid €25.00"), RefundNote what a cancellation
	// would return.
	PayURL, PayUntil string
	PayPending       bool
	Paid, RefundNote string
	// Requested: the booking waits for the business to confirm it.
	Requested bool
	// Who names who confirms a request (the provider, else "we").
	Who string
}

// seriesDate is one date of a series as the manage page lists it.
type seriesDate struct {
	When, Status string
	// This marks the booking the page is about.
	This bool
}

var statusLabels = map[Status]string{StatusRequested: "Requested (not confirmed yet)", StatusConfirmed: "Confirmed",
	StatusAwaitingPayment: "Awaiting payment",
	StatusCancelled:       "Cancelled", StatusCompleted: "Completed", StatusNoShow: "Marked as missed"}

// manageLimits counts a manage-page request in the per-IP (reads only)
// and per-token buckets before the token is looked up: a 429 Problem past
// either.
func (p *PageHandler) manageLimits(w http.ResponseWriter, r *http.Request) error {
	back := web.ErrorPage{Link: p.prefix + "/manage/" + r.PathValue("token"), LinkText: "Back to your booking"}
	if r.Method == http.MethodGet && p.manageGet != nil {
		if err := web.Hit(w, r, p.manageGet, proxies.ClientIPString(r, p.manageGet.TrustedProxies), back); err != nil {
			return err
		}
	}
	if p.manageToken != nil {
		return web.Hit(w, r, p.manageToken, tokenKey(r), back)
	}
	return nil
}

// drawManage renders the manage page of token: the booking, the times it
// may move to on the page's day, the cancel form; with errors kept.
func (p *PageHandler) drawManage(w http.ResponseWriter, r *http.Request, status int, ve *ValidationError, general ...string) error {
	ctx := r.Context()
	token := r.PathValue("token")
	b, meta, err := p.svc.Managed(ctx, token)
	if err != nil {
		return err
	}
	svc, err := p.svc.serviceByID(ctx, b.ServiceID)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	data := &managePage{Service: svc.Name, Status: statusLabels[b.Status], Number: b.Number, CanCancel: meta.CanCancel,
		CanReschedule: meta.CanReschedule, Action: p.prefix + "/manage/" + token, Active: b.Active(), Cancelled: b.Status == StatusCancelled,
		ServiceURL: p.prefix + "/" + svc.Slug, Booked: q.Get("booked") == "1", Contact: linkContacts(p.contact),
		Requested: b.Status == StatusRequested, Who: "we"}
	if data.Booked && p.svc.sendsMail() {
		data.Mailed = b.CustomerEmail
	}
	if data.Booked {
		data.Made = madeEvent(b, svc)
	}
	p.describe(ctx, data, b, svc)
	zone := web.PageZone(q, cmp.Or(b.CustomerTimeZone, zoneName(svc.TimeZone)))
	data.Zone = zone
	loc := location(zone)
	place := web.PlaceTime(zone)
	data.When = fmt.Sprintf("%s to %s (%s)", b.Start.In(loc).Format("Monday 2 January 2006, 15:04"), b.End.In(loc).Format("15:04"), place)
	if data.Active {
		data.Calendar = p.feedPrefix + "/customers/" + token + ".ics"
		data.Google = googleCalendarLink(svc, b, data.Provider)
		data.Outlook = outlookCalendarLink(svc, b, data.Where)
	}
	now := p.svc.o.Now()
	if meta.ChangesAllowedUntil != nil && data.Active && meta.ChangesAllowedUntil.After(now) {
		data.Until = meta.ChangesAllowedUntil.In(loc).Format("Monday 2 January 2006, 15:04") + " (" + place + ")"
	}
	data.Closed = p.closedReason(data, b)
	p.describePayment(data, b, svc, q.Get("paid") == "1", loc, place)
	switch step := q.Get("step"); {
	case step == "reschedule" && meta.CanReschedule:
		if err := p.rescheduleStep(r, q, data, b, zone, now); err != nil {
			return err
		}
	case step == "cancel" && meta.CanCancel:
		data.Step = step
	}
	data.Reason = web.Field{Type: web.TypeTextarea, Name: "reason", ID: web.FieldID("reason"), Label: "Reason (optional)", Value: r.PostFormValue("reason")}
	if b.SeriesID != "" {
		p.seriesDates(r, data, b, loc)
	}
	var fields []web.Field
	if ve != nil {
		errs := ve.Fields()
		data.Reason.Errors = errs["reason"]
		if data.Month != nil {
			data.Month.Time.Errors = errs["start_time"]
			fields = append(fields, data.Month.Time)
		}
	}
	if data.Step == "cancel" {
		fields = append(fields, data.Reason)
	}
	data.Summary = web.Summary(fields, general...)
	title := "Your booking " + b.Number
	switch {
	case data.Booked && data.Requested:
		title = "Requested: " + svc.Name
	case data.Booked:
		title = "Booked: " + svc.Name
	}
	page := &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(w, r), Flash: p.render.TakeFlash(w, r, data.Action)}
	p.render.Render(w, r, status, ManageTemplate, page)
	return nil
}

// madeEvent is what a host page framing the confirmation of b is told
// (as Cal.com's embed tells bookingSuccessful): the booking's number, its
// service, its times and length, its status, and whether it is
// confirmed (not waiting for the provider's yes, nor for its payment).
func madeEvent(b Booking, svc Offering) string {
	out, _ := json.Marshal(map[string]any{"number": b.Number, "service": svc.Slug, "start": b.Start.UTC().Format(time.RFC3339),
		"end": b.End.UTC().Format(time.RFC3339), "duration": int(b.End.Sub(b.Start) / time.Minute), "confirmed": b.Status == StatusConfirmed,
		"status": b.Status})
	return string(out)
}

// describe fills in who, what it costs and where, as far as they are
// known.
func (p *PageHandler) describe(ctx context.Context, data *managePage, b Booking, svc Offering) {
	if b.ProviderID != nil {
		if pr, err := p.svc.Provider(ctx, *b.ProviderID); err == nil {
			data.Provider, data.Who = pr.Name, pr.Name
		}
	}
	priced := svc
	if withLength, err := svc.withLength(int(b.End.Sub(b.Start) / time.Minute)); err == nil {
		priced = withLength
	}
	if p := price(priced); p != "Free" {
		data.Price = p
	}
	if l := b.Location; l != nil {
		data.Where = l.Text()
		if l.Kind == LocationVideo && l.Value != "" {
			data.Where, data.Link = "Video meeting", l.Value
		}
	}
}

// describePayment fills in how b's payment stands: the way to pay while
// it awaits payment, what was paid and refunded, and what cancelling it
// would return.
func (p *PageHandler) describePayment(data *managePage, b Booking, svc Offering, returned bool, loc *time.Location, place string) {
	pay := b.Payment
	if pay == nil {
		return
	}
	amount := money(pay.Amount, pay.Currency)
	switch {
	case b.Status == StatusAwaitingPayment:
		data.PayURL = data.Action + "/pay"
		data.PayUntil = pay.DueAt.In(loc).Format("15:04 on Monday 2 January") + " (" + place + ")"
		data.PayPending = returned
	case pay.RefundedAt != nil:
		data.Paid = "Refunded " + amount
	case pay.PaidAt != nil:
		data.Paid = "Paid " + amount
	}
	if pay.paid() && b.Active() {
		if refundable(b, svc, ActorCustomer, p.svc.o.Now()) {
			data.RefundNote = "You will be refunded " + amount + " in full."
		} else {
			data.RefundNote = fmt.Sprintf("It is too late for a refund: bookings cancelled less than %s before the start are not refunded.",
				web.Count(svc.RefundCutoffHours, "hour"))
		}
	}
}

// payManaged sends the customer of a booking awaiting payment to its
// payment page (opened now when it has none yet); once paid, or
// cancelled, back to the manage page.
func (p *PageHandler) payManaged(w http.ResponseWriter, r *http.Request) error {
	if err := p.manageLimits(w, r); err != nil {
		return err
	}
	page, err := p.svc.payManaged(r.Context(), r.PathValue("token"))
	switch {
	case errors.Is(err, ErrWrongStatus):
		web.SeeOther(w, r, p.prefix+"/manage/"+r.PathValue("token"))
		return nil
	case errors.Is(err, ErrPaymentUnavailable):
		return p.drawManage(w, r, http.StatusServiceUnavailable, nil, msgPaymentUnavailable)
	case err != nil:
		return err
	}
	web.SeeOther(w, r, page)
	return nil
}

// closedReason says why the booking cannot be changed online, when the
// page says it cannot.
func (p *PageHandler) closedReason(data *managePage, b Booking) string {
	switch {
	case data.Cancelled:
		return "" // the heading says it is cancelled; nothing says it again
	case !data.Active:
		return "This booking is over, so it can no longer be changed online."
	case p.svc.pastDeadline(b):
		return "It is too close to your appointment to change it online."
	default:
		return "This booking cannot be changed online."
	}
}

// rescheduleStep fills the reschedule step: the month of times the
// booking may move to, from its own day, in the customer's zone.
func (p *PageHandler) rescheduleStep(r *http.Request, q url.Values, data *managePage, b Booking, zone string, now time.Time) error {
	data.Step = "reschedule"
	loc := location(zone)
	if q.Get("month") == "" && q.Get("date") == "" {
		// The booking's own day first, in the customer's zone.
		q.Set("month", b.Start.In(loc).Format("2006-01"))
		q.Set("date", slots.DateOf(b.Start.In(loc)).String())
	}
	chosen := r.PostFormValue("start_time")
	var err error
	data.Month, err = newMonthPicker(q, zone, data.Action, map[string]string{"step": "reschedule"}, now, chosen, func(from, to time.Time) ([]Slot, error) {
		return p.svc.RescheduleSlots(r.Context(), b, from, to)
	})
	if err != nil {
		return err
	}
	data.Month.Time.Label = "New time"
	data.Month.markCurrent(b.Start)
	if from := p.svc.changeableFrom(); !from.IsZero() {
		data.MoveFrom = from.In(loc).Format("Monday 2 January 2006, 15:04") + " (" + web.PlaceTime(zone) + ")"
	}
	return nil
}

// seriesDates lists the dates of the booking's weekly series and, when
// later ones are active, asks which bookings a change is for.
func (p *PageHandler) seriesDates(r *http.Request, data *managePage, b Booking, loc *time.Location) {
	if all, err := p.svc.store.SeriesBookings(r.Context(), b.SeriesID); err == nil {
		later := 0
		for _, o := range all {
			if o.SeriesIndex > b.SeriesIndex && o.Active() {
				later++
			}
		}
		data.Series = fmt.Sprintf("This is booking %d of %d in a weekly series.", b.SeriesIndex+1, len(all))
		for _, o := range all {
			data.Dates = append(data.Dates, seriesDate{When: o.Start.In(loc).Format("Monday 2 January 2006, 15:04") + " to " +
				o.End.In(loc).Format("15:04"), Status: statusLabels[o.Status], This: o.ID == b.ID})
		}
		if later > 0 {
			data.Scope = web.Field{Type: web.TypeRadio, Name: "scope", ID: web.FieldID("scope"), Label: "Which bookings",
				Options: []web.Option{{Value: "this", Label: "Only this one", Selected: r.PostFormValue("scope") != "following"},
					{Value: "following", Label: fmt.Sprintf("This one and the %s after it", web.Count(later, "booking")),
						Selected: r.PostFormValue("scope") == "following"}}}
		}
	}
}

func (p *PageHandler) showManage(w http.ResponseWriter, r *http.Request) error {
	if err := p.manageLimits(w, r); err != nil {
		return err
	}
	return p.drawManage(w, r, http.StatusOK, nil)
}

// manageAnswer redraws the page after a refused change, or redirects to
// it with a notice.
func (p *PageHandler) manageAnswer(w http.ResponseWriter, r *http.Request, b Booking, err error, done func(Booking) string) error {
	var ve *ValidationError
	var refused *api.Error
	switch {
	case errors.As(err, &ve):
		return p.drawManage(w, r, http.StatusUnprocessableEntity, ve)
	case errors.As(err, &refused):
		return p.drawManage(w, r, refused.Status, nil, refused.Message)
	case errors.Is(err, ErrSlotTaken):
		return p.drawManage(w, r, http.StatusConflict, nil, msgTaken)
	case errors.Is(err, ErrBusy):
		return p.drawManage(w, r, http.StatusServiceUnavailable, nil, msgBusy)
	case err != nil:
		return err
	default:
		action := p.prefix + "/manage/" + r.PathValue("token")
		p.render.SetFlash(w, r, action, web.Flash{Kind: "success", Message: done(b)})
		web.SeeOther(w, r, action+"?"+url.Values{"tz": {r.URL.Query().Get("tz")}}.Encode())
	}
	return nil
}

func (p *PageHandler) cancelManaged(w http.ResponseWriter, r *http.Request) error {
	// A change through a manage link counts in the link's own buckets
	// (per address, per booking), not in the bookings a minute: a
	// customer who mistyped a new booking twice can still cancel.
	if err := p.manageLimits(w, r); err != nil {
		return err
	}
	if r.PostFormValue("scope") == "following" {
		all, err := p.svc.CancelSeriesFrom(r.Context(), r.PathValue("token"), r.PostFormValue("reason"))
		var b Booking
		if len(all) > 0 {
			b = all[0]
		}
		return p.manageAnswer(w, r, b, err, func(Booking) string {
			return fmt.Sprintf("Your %s are cancelled.", web.Count(len(all), "booking")) + p.confirmation()
		})
	}
	b, _, err := p.svc.CancelManaged(r.Context(), r.PathValue("token"), r.PostFormValue("reason"))
	return p.manageAnswer(w, r, b, err, func(Booking) string { return "Your booking is cancelled." + p.confirmation() })
}

func (p *PageHandler) rescheduleManaged(w http.ResponseWriter, r *http.Request) error {
	// A change through a manage link counts in the link's own buckets
	// (per address, per booking), not in the bookings a minute: a
	// customer who mistyped a new booking twice can still cancel.
	if err := p.manageLimits(w, r); err != nil {
		return err
	}
	start := r.PostFormValue("start_time")
	if start == "" {
		return p.drawManage(w, r, http.StatusUnprocessableEntity, api.Invalid("start_time", "Choose a new time."))
	}
	b, _, err := p.svc.RescheduleManaged(r.Context(), r.PathValue("token"), start)
	return p.manageAnswer(w, r, b, err, func(b Booking) string {
		return "Your booking has moved." + p.confirmation()
	})
}

// confirmation is the sentence that promises a mail, when one is sent.
func (p *PageHandler) confirmation() string {
	if p.svc.sendsMail() {
		return " A confirmation is on its way."
	}
	return ""
}

// contactPattern finds what a customer can tap in a contact sentence: a
// telephone number (a "+" or digit, then digits, spaces, dots, dashes or
// brackets, ending in a digit; seven digits at least) or an email
// address.
var contactPattern = regexp.MustCompile(`\+?\d[\d ().-]{5,}\d|[^\s@<>"]+@[^\s@<>"]+\.[A-Za-z]{2,}`)

// linkContacts escapes s and makes each telephone number in it a tel:
// link and each email address a mailto: link.
func linkContacts(s string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range contactPattern.FindAllStringIndex(s, -1) {
		found := s[m[0]:m[1]]
		href := "mailto:" + found
		if !strings.Contains(found, "@") {
			href = "tel:" + strings.Map(func(r rune) rune {
				if r == '+' || r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, found)
			if len(href) < len("tel:")+7 {
				continue // too few digits for a telephone number
			}
		}
		b.WriteString(template.HTMLEscapeString(s[last:m[0]]))
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, template.HTMLEscapeString(href), template.HTMLEscapeString(found))
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(s[last:]))
	return template.HTML(b.String()) // every part is escaped above
}

// googleCalendarLink is a Google Calendar link that adds the booking to
// the customer's calendar (a template event; nothing is sent to Google
// until they save it).
// outlookCalendarLink adds b to an Outlook calendar (outlook.live.com's
// compose deep link; Microsoft 365 accounts are asked to sign in there).
func outlookCalendarLink(svc Offering, b Booking, where string) string {
	const stamp = "2006-01-02T15:04:05Z"
	v := url.Values{"path": {"/calendar/action/compose"}, "rru": {"addevent"}, "subject": {svc.Name},
		"startdt": {b.Start.UTC().Format(stamp)}, "enddt": {b.End.UTC().Format(stamp)}, "body": {svc.Name + ", reference " + b.Number}}
	if where != "" {
		v.Set("location", where)
	}
	return "https://outlook.live.com/calendar/0/deeplink/compose?" + v.Encode()
}

func googleCalendarLink(svc Offering, b Booking, provider string) string {
	const stamp = "20060102T150405Z"
	details := svc.Name + ", reference " + b.Number
	if provider != "" {
		details += ", with " + provider
	}
	v := url.Values{"action": {"TEMPLATE"}, "text": {svc.Name}, "dates": {b.Start.UTC().Format(stamp) + "/" + b.End.UTC().Format(stamp)},
		"details": {details}}
	return "https://calendar.google.com/calendar/render?" + v.Encode()
}
