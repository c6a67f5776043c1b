package bookings

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/groundwork-go/groundwork/internal/api"
)

// ServiceRules are a service's booking rules beyond its length and grid,
// set through the admin API; the zero value sets none.
type ServiceRules struct {
	// RequiresConfirmation makes this service's bookings requests a
	// person approves (as Options.ManualConfirm does for every service);
	// with ConfirmWithinHours above 0, only those booked less than that
	// many hours ahead.
	RequiresConfirmation bool `json:"requires_confirmation,omitempty"`
	ConfirmWithinHours   int  `json:"confirm_within_hours,omitempty"`
	// Limits cap how much of this service each provider takes a day, a
	// week or a month.
	Limits []Limit `json:"limits,omitempty"`
	// Lengths the customer may choose from, each with its own price;
	// none: the service's Duration alone.
	Lengths []LengthChoice `json:"lengths,omitempty"`
	// Location is where the meeting happens, unless the provider has
	// their own.
	Location *Location `json:"location,omitempty"`
	// Currency of the prices, ISO 4217 ("EUR"); none: the price is shown
	// as it is.
	Currency string `json:"currency,omitempty"`
	// Series lets a customer book a weekly series; nil: one at a time.
	Series *SeriesRule `json:"series,omitempty"`
	// RequiresPayment has a booking paid for as it is made (the service
	// needs a price and a Currency, and the Service its
	// Options.Payments): it awaits payment, holding its time, and is
	// confirmed once paid.
	RequiresPayment bool `json:"requires_payment,omitempty"`
	// RefundCutoffHours: a paid booking the customer cancels at least this
	// many hours before its start is refunded in full, and one cancelled
	// later is not; 0 refunds any cancellation before the start. One the
	// site cancels is always refunded.
	RefundCutoffHours int `json:"refund_cutoff_hours,omitempty"`
}

// SeriesRule is how long a weekly series of a service may be.
type SeriesRule struct {
	// MaxCount is the most occurrences a series has (2 to 52).
	MaxCount int `json:"max_count"`
	// MaxEveryWeeks is the longest gap a customer may choose, in weeks
	// (1 to 4; 1 when 0: every week).
	MaxEveryWeeks int `json:"max_every_weeks,omitempty"`
}

// ProviderRules are a provider's own limits and place.
type ProviderRules struct {
	// Limits cap the provider's bookings of every service together.
	Limits []Limit `json:"limits,omitempty"`
	// Location wins over the service's.
	Location *Location `json:"location,omitempty"`
}

// LengthChoice is one length a customer may pick, in minutes, with its
// price (a decimal string, or none for the service's).
type LengthChoice struct {
	Minutes int     `json:"minutes"`
	Price   *string `json:"price,omitempty"`
}

// LocationKind is the sort of place a meeting happens in.
type LocationKind string

// Location kinds.
const (
	LocationAddress LocationKind = "address"
	LocationPhone   LocationKind = "phone"
	LocationVideo   LocationKind = "video"
)

// Location is where a meeting happens: an address, a phone number, or a
// video link (Value empty for a video link made per booking by
// Options.VideoLink).
type Location struct {
	Kind  LocationKind `json:"kind"`
	Value string       `json:"value"`
}

// Limits of the rules.
const (
	maxLimits          = 6
	maxLengths         = 8
	locationMaxLength  = 1000
	confirmWithinMax   = 24 * 366
	refundCutoffMax    = 24 * 366
	limitBookingsMax   = 10000
	limitMinutesMax    = 60 * 24 * 31
	currencyCodeLength = 3
)

// checkLimits checks limits under field.
func checkLimits(v *api.Validator, field string, limits []Limit) {
	if len(limits) > maxLimits {
		v.Add(field, fmt.Sprintf("The %s field must not have more than %d items.", field, maxLimits))
		return
	}
	seen := map[LimitPeriod]bool{}
	for i, l := range limits {
		at := fmt.Sprintf("%s.%d", field, i)
		switch {
		case !slices.Contains([]LimitPeriod{PeriodDay, PeriodWeek, PeriodMonth}, l.Period):
			v.Add(at+".period", "The period must be day, week or month.")
		case seen[l.Period]:
			v.Add(at+".period", "There is already a limit for each "+string(l.Period)+"; give one per period.")
		}
		seen[l.Period] = true
		if l.Bookings < 0 || l.Bookings > limitBookingsMax {
			v.Add(at+".bookings", api.MsgBetween(at+".bookings", 0, limitBookingsMax))
		}
		if l.Minutes < 0 || l.Minutes > limitMinutesMax {
			v.Add(at+".minutes", api.MsgBetween(at+".minutes", 0, limitMinutesMax))
		}
		if l.Bookings == 0 && l.Minutes == 0 {
			v.Add(at, "A limit needs bookings, minutes or both above 0.")
		}
	}
}

// checkLocation checks a location under field.
func checkLocation(v *api.Validator, field string, l *Location) {
	if l == nil {
		return
	}
	l.Value = strings.TrimSpace(l.Value)
	switch {
	case !slices.Contains([]LocationKind{LocationAddress, LocationPhone, LocationVideo}, l.Kind):
		v.Add(field+".kind", "The kind must be address, phone or video.")
	case len([]rune(l.Value)) > locationMaxLength:
		v.Add(field+".value", api.MsgMaxChars(field+".value", locationMaxLength))
	case l.Kind == LocationVideo && l.Value != "" && (!strings.HasPrefix(l.Value, "https://") || !oneURI(l.Value)):
		v.Add(field+".value", "A video link must be an https:// address, without spaces or line breaks.")
	case l.Kind != LocationVideo && l.Value == "":
		v.Add(field+".value", api.MsgRequired(field+".value"))
	}
}

// oneURI reports whether s can be a URI property's value as it is: no
// space and no control character (a line break would write lines of its
// own into a calendar file).
func oneURI(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) })
}

// checkServiceRules checks r, normalising what it can.
func checkServiceRules(v *api.Validator, r *ServiceRules) {
	if r.ConfirmWithinHours < 0 || r.ConfirmWithinHours > confirmWithinMax {
		v.Add("confirm_within_hours", api.MsgBetween("confirm_within_hours", 0, confirmWithinMax))
	}
	checkLimits(v, "limits", r.Limits)
	checkLocation(v, "location", r.Location)
	if len(r.Lengths) > maxLengths {
		v.Add("lengths", fmt.Sprintf("The lengths field must not have more than %d items.", maxLengths))
	}
	seen := map[int]bool{}
	for i, l := range r.Lengths {
		at := fmt.Sprintf("lengths.%d", i)
		switch {
		case l.Minutes < 1 || l.Minutes > 1440:
			v.Add(at+".minutes", api.MsgBetween(at+".minutes", 1, 1440))
		case seen[l.Minutes]:
			v.Add(at+".minutes", "Each length is given once.")
		}
		seen[l.Minutes] = true
		if l.Price != nil && *l.Price != "" && !pricePattern.MatchString(*l.Price) {
			v.Add(at+".price", "The price must be a decimal number with at most two decimals.")
		}
	}
	slices.SortFunc(r.Lengths, func(a, b LengthChoice) int { return a.Minutes - b.Minutes })
	if sr := r.Series; sr != nil {
		between(v, "series.max_count", &sr.MaxCount, 2, 52)
		between(v, "series.max_every_weeks", &sr.MaxEveryWeeks, 0, 4)
	}
	between(v, "refund_cutoff_hours", &r.RefundCutoffHours, 0, refundCutoffMax)
	r.Currency = strings.ToUpper(strings.TrimSpace(r.Currency))
	if r.Currency != "" && (len(r.Currency) != currencyCodeLength || strings.Trim(r.Currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "") {
		v.Add("currency", "The currency must be an ISO 4217 code of three letters, like EUR.")
	}
}

// needsConfirmation reports whether a booking of svc starting at start,
// made at now, waits for approval.
func (s *Service) needsConfirmation(svc Offering, start, now time.Time) bool {
	switch {
	case s.o.ManualConfirm:
		return true
	case !svc.RequiresConfirmation:
		return false
	case svc.ConfirmWithinHours > 0:
		return start.Sub(now) < time.Duration(svc.ConfirmWithinHours)*time.Hour
	}
	return true
}

// msgLengthNotOffered answers a length the service does not offer.
const msgLengthNotOffered = "The selected length is not offered for this service."

// withLength is svc as booked for minutes of its Lengths (its Duration,
// and the length's own price where it has one); 0 is svc as it is. A
// provider's own length still wins over it.
func (svc Offering) withLength(minutes int) (Offering, error) {
	switch {
	case minutes == 0 || minutes == svc.Duration && len(svc.Lengths) == 0:
		return svc, nil
	case len(svc.Lengths) == 0:
		return svc, invalid("length", msgLengthNotOffered)
	}
	i := slices.IndexFunc(svc.Lengths, func(l LengthChoice) bool { return l.Minutes == minutes })
	if i < 0 {
		return svc, invalid("length", msgLengthNotOffered)
	}
	svc.Duration = minutes
	if p := svc.Lengths[i].Price; p != nil && *p != "" {
		svc.Price, svc.IsFree = p, false
	}
	return svc, nil
}

// place is where a booking of svc with provider o happens: the
// provider's own place, else the service's; nil for none.
func place(svc Offering, o Offer) *Location {
	if o.Rules.Location != nil {
		return o.Rules.Location
	}
	return svc.Location
}

// placeHook is the Reservation.Place of a booking of svc with o: the
// place, a video link made by Options.VideoLink where it has none.
func (s *Service) placeHook(svc Offering, o Offer) func(ctx context.Context, tx *sql.Tx, b Booking) (*Location, error) {
	l := place(svc, o)
	if l == nil {
		return nil
	}
	return func(ctx context.Context, tx *sql.Tx, b Booking) (*Location, error) {
		out := *l
		if out.Kind == LocationVideo && out.Value == "" && s.o.VideoLink != nil {
			link, err := s.o.VideoLink(ctx, tx, b)
			if err != nil {
				return nil, err
			}
			out.Value = link
		}
		return &out, nil
	}
}

// publicText is the place as the booking page shows it before anyone
// books: a video meeting's link is for the people who book, so it is
// sent with the booking (its page, its mail, the calendar feeds) and the
// public page says only that it will be.
func (l *Location) publicText() string {
	if l != nil && l.Kind == LocationVideo {
		return "Video call: the link comes with your booking"
	}
	return l.Text()
}

// Text is the place in words for people: "Video: https://…", "By
// phone: …", an address as it is; "" for none (nil).
func (l *Location) Text() string {
	if l == nil {
		return ""
	}
	label := map[LocationKind]string{LocationAddress: "", LocationPhone: "By phone: ", LocationVideo: "Video: "}[l.Kind]
	if l.Value == "" {
		return strings.TrimSuffix(label, ": ") + " (the link follows)"
	}
	return label + l.Value
}
