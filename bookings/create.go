package bookings

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/api"
)

func invalid(field, msg string) error { return api.Invalid(field, msg) }

// NewBooking is a customer's request for an appointment.
type NewBooking struct {
	// ServiceSlug names the service (the API takes "service" or
	// "service_slug").
	ServiceSlug string `json:"service"`
	// ProviderID asks for one provider; 0 lets the service choose.
	ProviderID int64 `json:"provider_id,omitempty"`
	// Start must be a slot start the service offers.
	Start            time.Time      `json:"start_time"`
	CustomerName     string         `json:"customer_name"`
	CustomerEmail    string         `json:"customer_email"`
	CustomerPhone    string         `json:"customer_phone"`
	CustomerTimeZone string         `json:"customer_timezone"`
	Notes            string         `json:"notes"`
	IntakeData       map[string]any `json:"intake_data"`
	// HoldToken books the slot a hold keeps (see [Service.Hold]).
	HoldToken string `json:"hold_token,omitempty"`
	// Length is the minutes chosen among the service's Lengths; 0 for
	// its Duration.
	Length int `json:"length,omitempty"`
	// Repeat, for CreateSeries, is the weekly series asked for.
	Repeat *Repeat `json:"repeat,omitempty"`
	// Providers, when set, are the only providers the booking may go to
	// (a routing form's narrowing, read from a signed Prefill), by ID.
	Providers []int64 `json:"-"`
	// FromForm is the submission the booking is made from (from a signed
	// Prefill), kept with it.
	FromForm *FromForm `json:"-"`
	// HoldFor is how long a hold (Service.Hold) keeps its slot;
	// five minutes when zero. Such a hold is made inside the
	// caller's transaction (ctx carries it: a waitlist's offer, in the
	// cancellation's), so the providers' calendars are not read again
	// first; their stored busy time counts.
	HoldFor time.Duration `json:"-"`
}

// maxReach is how far from a slot a booking can clash with it: a slot or
// buffer is at most a day (the API refuses longer), so a day either side
// (two after the start, for the slot's own length) holds every booking
// that matters.
const maxReach = 24 * time.Hour

// holdLifetimeDefault is how long a hold keeps its slot.
const holdLifetimeDefault = 5 * time.Minute

// msgHoldInvalid answers a hold token that is unknown, expired, or for
// another slot.
const msgHoldInvalid = "That hold has expired or is for another time. Please choose a time again."

// Limits of a booking request.
const (
	NameMaxLength  = 255
	PhoneMaxLength = 50
	NotesMaxLength = 2000
)

// Texts of the create rules.
const (
	msgTooSoon                     = "That appointment time is too soon to book."
	msgTooFar                      = "That appointment time is too far ahead to book."
	msgProviderNotHere             = "The selected provider is not available for this service."
	msgTooManyAnswers              = "That submission carries too many answers."
	maxIntakeAnswers               = 100
	assignedByCustomer  Assignment = "customer"
	assignedRoundRobin  Assignment = "round_robin"
	assignedDefaultProv Assignment = "default_provider"
)

func (s *Service) checkNewBooking(svc Offering, nb *NewBooking) error {
	v := &api.Validator{}
	text := func(field string, value *string, max int, required bool) {
		*value = strings.TrimSpace(*value)
		switch {
		case *value == "" && required:
			v.Add(field, api.MsgRequired(field))
		case utf8.RuneCountInString(*value) > max:
			v.Add(field, api.MsgMaxChars(field, max))
		}
	}
	text("customer_name", &nb.CustomerName, NameMaxLength, true)
	text("customer_email", &nb.CustomerEmail, NameMaxLength, true)
	if nb.CustomerEmail != "" && !v.Has("customer_email") && !api.ValidEmail(nb.CustomerEmail) {
		v.Add("customer_email", api.MsgEmail("customer_email"))
	}
	text("customer_phone", &nb.CustomerPhone, PhoneMaxLength, false)
	text("notes", &nb.Notes, NotesMaxLength, false)
	if nb.CustomerTimeZone = strings.TrimSpace(nb.CustomerTimeZone); nb.CustomerTimeZone == "" {
		nb.CustomerTimeZone = svc.TimeZone
	} else if _, err := time.LoadLocation(nb.CustomerTimeZone); err != nil || nb.CustomerTimeZone == "Local" {
		v.Add("customer_timezone", "The customer timezone field must be a valid timezone.")
	}
	if nb.Start.IsZero() {
		v.Add("start_time", api.MsgRequired("start_time"))
	} else {
		_, minAdvance, maxAdvance := s.rules(svc)
		now := s.o.Now()
		switch {
		case nb.Start.Before(now.Add(max(minAdvance, 0))):
			v.Add("start_time", msgTooSoon)
		case maxAdvance > 0 && nb.Start.After(now.Add(maxAdvance)):
			v.Add("start_time", msgTooFar)
		}
	}
	nb.IntakeData = checkIntake(v, svc.IntakeSchema, nb.IntakeData)
	return v.Err()
}

// countAnswers counts values at every depth.
func countAnswers(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 0
		for _, e := range x {
			n += 1 + countAnswers(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += 1 + countAnswers(e)
		}
		return n
	}
	return 0
}

// checkIntake validates answers against the schema, keeping only the
// fields it names.
func checkIntake(v *api.Validator, schema *IntakeSchema, data map[string]any) map[string]any {
	if len(data) > maxIntakeAnswers || countAnswers(data) > maxIntakeAnswers {
		v.Add("intake_data", msgTooManyAnswers)
		return nil
	}
	if schema == nil {
		return nil
	}
	kept := map[string]any{}
	for _, f := range schema.Fields {
		field := "intake_data." + f.Name
		value, given := data[f.Name]
		str, isString := value.(string)
		if !given || value == nil || isString && strings.TrimSpace(str) == "" {
			if f.Required {
				v.Add(field, api.MsgRequired(f.Label))
			}
			continue
		}
		switch f.Type {
		case "email":
			if !isString || !api.ValidEmail(str) {
				v.Add(field, api.MsgEmail(f.Label))
			}
		case "number", "integer":
			switch n := value.(type) {
			case float64:
				if f.Type == "integer" && n != float64(int64(n)) {
					v.Add(field, api.MsgInteger(f.Label))
				}
			case string:
				if _, err := strconv.ParseFloat(n, 64); err != nil {
					v.Add(field, api.MsgNumber(f.Label))
				}
			default:
				v.Add(field, api.MsgNumber(f.Label))
			}
		case "checkbox", "boolean":
			if _, ok := value.(bool); !ok {
				v.Add(field, api.MsgBoolean(f.Label))
			}
		case "select", "radio":
			if !isString || !slices.Contains(f.Options, str) {
				v.Add(field, api.MsgSelected(f.Label))
			}
		case "multiselect", "checkboxes":
			list, ok := value.([]any)
			if !ok {
				v.Add(field, api.MsgArray(f.Label))
				break
			}
			for _, e := range list {
				if es, ok := e.(string); !ok || !slices.Contains(f.Options, es) {
					v.Add(field, api.MsgSelected(f.Label))
					break
				}
			}
		default:
			if !isString {
				v.Add(field, api.MsgString(f.Label))
			}
		}
		kept[f.Name] = value
	}
	return kept
}

// roundRobin orders offers least recently assigned first (never first),
// then by higher weight, then lower ID.
func roundRobin(offers []Offer) {
	slices.SortStableFunc(offers, func(a, b Offer) int {
		switch {
		case a.LastAssignedAt == nil && b.LastAssignedAt != nil:
			return -1
		case a.LastAssignedAt != nil && b.LastAssignedAt == nil:
			return 1
		case a.LastAssignedAt != nil && !a.LastAssignedAt.Equal(*b.LastAssignedAt):
			return a.LastAssignedAt.Compare(*b.LastAssignedAt)
		case a.RoundRobinWeight != b.RoundRobinWeight:
			return b.RoundRobinWeight - a.RoundRobinWeight
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// Create books an appointment: the request's rules (*ValidationError),
// the service (ErrNotFound when unknown or inactive), the provider — the
// one named, the default one, or by round robin among those offering the
// slot — and then, under that provider's day lock, the slot checked again
// against the bookings of that moment and the booking stored. A lost race
// falls through to the next candidate; when none is left, ErrSlotTaken
// (409), or ErrBusy (503) when the locks could not be had. It returns the
// booking and its manage token (never stored; only its hash is).
func (s *Service) Create(ctx context.Context, nb NewBooking) (Booking, string, error) {
	b, token, _, _, err := s.create(ctx, nb, false)
	return b, token, err
}

// CreateTx books as Create does, inside the host's transaction tx (one
// of the same database): the host stores its own order, or takes its own
// stock, and the booking in one commit, or neither. The slot is checked
// and taken under the provider's locks inside tx, which hold until tx
// ends: keep tx short. On Postgres they are advisory locks waiting at most
// Options.LockWait (tx's own lock_timeout is set back after); on SQLite tx
// already holds the one writer, so nothing else can book meanwhile. A
// refusal (ErrSlotTaken, ErrBusy, a *ValidationError) leaves tx usable;
// any other error leaves it to be rolled back. The booking's OnEventTx
// hooks and mail jobs run in tx; OnEvent hooks,
// which follow a commit, are not called (the commit is the host's).
// Providers' calendars are not read again first: their stored busy time
// counts.
func (s *Service) CreateTx(ctx context.Context, tx *sql.Tx, nb NewBooking) (Booking, string, error) {
	if tx == nil {
		return Booking{}, "", errors.New("bookings: CreateTx needs a transaction")
	}
	b, token, _, _, err := s.book(ctx, nb, false, tx)
	if err == nil {
		groundwork.Count(s.o.Meter, groundwork.MetricBookings, "created")
	}
	return b, token, err
}

// Hold keeps a slot for nb.HoldFor (five minutes when zero): it
// leaves every other
// customer's slot list, and only [Service.Create] with the returned token
// (NewBooking.HoldToken) books it. Only the service, provider and start of
// nb are used. It is refused as Create would refuse the booking.
func (s *Service) Hold(ctx context.Context, nb NewBooking) (Hold, string, error) {
	b, token, _, _, err := s.create(ctx, nb, true)
	if err != nil {
		return Hold{}, "", err
	}
	return Hold{ServiceID: b.ServiceID, ProviderID: *b.ProviderID, Period: Period{Start: b.Start, End: b.End},
		ExpiresAt: b.CreatedAt.Add(cmp.Or(nb.HoldFor, holdLifetimeDefault)), CreatedAt: b.CreatedAt}, token, nil
}

// visitOf is the visit ctx's request belongs to (groundwork.VisitOf),
// nil when not known.
func visitOf(ctx context.Context) *groundwork.Visit {
	if v, ok := groundwork.VisitOf(ctx); ok {
		return &v
	}
	return nil
}

// create is Create (or, with hold, Hold), also returning the service and
// provider booked; it counts a booking made or refused as taken
// (groundwork.MetricBookings).
func (s *Service) create(ctx context.Context, nb NewBooking, hold bool) (Booking, string, Offering, Offer, error) {
	b, token, svc, o, err := s.book(ctx, nb, hold, nil)
	if err == nil && b.Status == StatusAwaitingPayment {
		b, err = s.startPayment(ctx, b, token)
	}
	switch {
	case err == nil && !hold:
		groundwork.Count(s.o.Meter, groundwork.MetricBookings, "created")
	case errors.Is(err, ErrSlotTaken):
		groundwork.Count(s.o.Meter, groundwork.MetricBookings, "conflict")
	}
	return b, token, svc, o, err
}

// book is create, uncounted; with tx, inside it.
func (s *Service) book(ctx context.Context, nb NewBooking, hold bool, tx *sql.Tx) (Booking, string, Offering, Offer, error) {
	svc, err := s.ActiveService(ctx, nb.ServiceSlug)
	if err == nil {
		svc, err = svc.withLength(nb.Length)
	}
	if err != nil {
		return Booking{}, "", Offering{}, Offer{}, err
	}
	if hold {
		// A hold asks only for the time: the customer's details come with
		// the booking.
		nb.CustomerName, nb.CustomerEmail, nb.HoldToken = "hold", "hold@example.com", ""
	}
	rules := svc
	if hold {
		rules.IntakeSchema = nil
	}
	if err := s.checkNewBooking(rules, &nb); err != nil {
		return Booking{}, "", Offering{}, Offer{}, err
	}
	var visit *groundwork.Visit
	if !hold && tx == nil { // read outside any transaction: the analytics reads on its own
		visit = visitOf(ctx)
	}
	var useHold Hold
	if nb.HoldToken != "" {
		sum := sha256.Sum256([]byte(nb.HoldToken))
		h, err := s.store.HoldByHash(ctx, sum[:])
		switch {
		case errors.Is(err, ErrNotFound) || err == nil && (h.ServiceID != svc.ID || !h.Start.Equal(nb.Start) || !s.o.Now().Before(h.ExpiresAt)):
			return Booking{}, "", Offering{}, Offer{}, invalid("hold_token", msgHoldInvalid)
		case err != nil:
			return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", err)
		}
		useHold, nb.ProviderID = h, h.ProviderID
		if nb.Length == 0 && len(svc.Lengths) > 0 {
			// The length the hold was taken for.
			if held, err := svc.withLength(int(h.End.Sub(h.Start) / time.Minute)); err == nil {
				svc = held
			}
		}
	}
	offers, err := s.bookable(ctx, svc)
	if err != nil {
		return Booking{}, "", Offering{}, Offer{}, err
	}
	strategy := assignedRoundRobin
	switch {
	case svc.AssignmentStrategy == AssignCollective:
		if nb.ProviderID != 0 && !slices.ContainsFunc(offers, func(o Offer) bool { return o.ID == nb.ProviderID }) {
			return Booking{}, "", Offering{}, Offer{}, invalid("provider_id", msgProviderNotHere)
		}
		strategy = AssignCollective
	case nb.ProviderID != 0:
		i := slices.IndexFunc(offers, func(o Offer) bool { return o.ID == nb.ProviderID })
		if i < 0 && useHold.ID != 0 {
			return Booking{}, "", Offering{}, Offer{}, invalid("hold_token", msgHoldInvalid)
		}
		if i < 0 {
			return Booking{}, "", Offering{}, Offer{}, invalid("provider_id", msgProviderNotHere)
		}
		offers, strategy = offers[i:i+1], assignedByCustomer
	case svc.AssignmentStrategy == AssignDefaultProvider:
		offers = slices.DeleteFunc(offers, func(o Offer) bool { return svc.DefaultProviderID == nil || o.ID != *svc.DefaultProviderID })
		strategy = assignedDefaultProv
	default:
		roundRobin(offers)
	}
	if strategy != AssignCollective {
		offers = s.filterProviders(ctx, svc, onlyProviders(offers, nb.Providers))
	}
	start := nb.Start.UTC().Truncate(time.Second)
	if len(offers) == 0 {
		return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", ErrSlotTaken)
	}
	// One read of every candidate's calendar; the engine then runs for one
	// provider at a time, in order, until one offers the start.
	// Rules of the dates around start in any zone; bookings within a day
	// of the slot (buffers are at most 1440 minutes, so nothing further
	// can clash with it).
	ids := make([]int64, len(offers))
	for i, o := range offers {
		ids[i] = o.ID
		// A refresh writes, which on SQLite would wait for the host's
		// transaction; a hold for a set time is made inside another's (a
		// waitlist's offer, in the cancellation's).
		if tx == nil && nb.HoldFor == 0 {
			s.refresh(ctx, o.ID, start)
		}
	}
	busyFrom, busyTo := start.Add(-maxReach-limitReach(svc, offers)), start.Add(2*maxReach+limitReach(svc, offers))
	cal, err := s.readAvailability(ctx, AvailabilityQuery{ServiceID: svc.ID, ProviderIDs: ids, From: slots.DateOf(start).AddDays(-1), To: slots.DateOf(start).AddDays(1),
		BusyFrom: busyFrom, BusyTo: busyTo, Now: s.o.Now(), ExceptHold: useHold.ID})
	if err != nil {
		return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", err)
	}
	number, err := s.newNumber()
	if err != nil {
		return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", err)
	}
	// The manage token, or for a hold the hold token: 64 hex either way.
	token, hash, err := s.newManageToken()
	if err != nil {
		return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", err)
	}
	sealed := s.sealStored(token)
	status, pay := StatusConfirmed, (*Payment)(nil)
	switch {
	case s.takesPayment(svc) && !hold:
		status, pay = StatusAwaitingPayment, &Payment{Amount: *svc.Price, Currency: svc.Currency} // due as it is made, below
	case s.needsConfirmation(svc, start, s.o.Now()):
		status = StatusRequested
	}
	busyAll := false
	candidates := offers
	var hosts []Offer
	if strategy == AssignCollective {
		// One booking holding them all: the first is its provider, the
		// others its hosts, each free at the time.
		for _, o := range offers {
			if !s.offersStart(svc, o, cal, start, cal.Busy[o.ID]) {
				return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", ErrSlotTaken)
			}
		}
		candidates, hosts = offers[:1], offers[1:]
	}
	for _, o := range candidates {
		if !s.offersStart(svc, o, cal, start, cal.Busy[o.ID]) {
			continue
		}
		loc := location(o.TimeZone)
		date := slots.DateOf(start.In(loc))
		length := length(svc, o)
		if useHold.ID != 0 && !useHold.End.Equal(start.Add(length)) {
			return Booking{}, "", Offering{}, Offer{}, invalid("hold_token", msgHoldInvalid)
		}
		now := s.o.Now().UTC()
		if pay != nil {
			pay.DueAt = now.Add(s.o.PaymentWindow) // the hold runs from the booking's making
		}
		id := o.ID
		b := Booking{Number: number, ServiceID: svc.ID, ProviderID: &id, Status: status, Start: start, End: start.Add(length),
			CustomerName: nb.CustomerName, CustomerEmail: nb.CustomerEmail, CustomerPhone: nb.CustomerPhone,
			CustomerTimeZone: nb.CustomerTimeZone, AssignmentStrategy: strategy, IntakeVersion: svc.IntakeSchemaVersion,
			IntakeData: nb.IntakeData, Notes: nb.Notes, CreatedAt: now, UpdatedAt: now, Payment: pay, FromForm: nb.FromForm, Visit: visit}
		// The calendar's rules as read for the slot list (they change
		// rarely); the bookings are read again inside the lock.
		locks, hostIDs, checkHost := s.hostLocks(svc, hosts, cal, start)
		booked, err := s.reserve(ctx, tx, Reservation{Booking: b, ManageTokenHash: hash, ManageTokenSealed: sealed, Lock: strconv.FormatInt(o.ID, 10) + "|" + date.String(),
			Locks: append(s.limitLocks(svc, o, start), locks...), Hosts: hostIDs, CheckHost: checkHost, LockWait: s.o.LockWait, BusyFrom: busyFrom, BusyTo: busyTo,
			Hold: hold, HoldTokenHash: hash, HoldExpires: now.Add(cmp.Or(nb.HoldFor, holdLifetimeDefault)), UseHold: useHold.ID,
			Check: func(busy []Busy) bool { return s.offersStart(svc, o, cal, start, cal.withCalendars(o.ID, busy)) }, Place: s.placeHook(svc, o)}, token)
		switch {
		case err == nil:
			if !hold && tx == nil {
				for _, e := range creationEvents(booked, token) {
					s.emit(ctx, e)
				}
			}
			return booked, token, svc, o, nil
		case errors.Is(err, ErrBusy):
			busyAll = true
		case !errors.Is(err, ErrSlotTaken):
			return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", err)
		}
	}
	if busyAll {
		return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", ErrBusy)
	}
	return Booking{}, "", Offering{}, Offer{}, fmt.Errorf("bookings: create: %w", ErrSlotTaken)
}

// reserve takes r's slot and, for a booking (a hold has no events), sets
// off its events' mail jobs and hooks in the same transaction: tx, the
// host's, when it gave one; else one begun here, waiting at most
// r.LockWait to begin.
func (s *Service) reserve(ctx context.Context, tx *sql.Tx, r Reservation, token string) (Booking, error) {
	var hook txHook
	if !r.Hold {
		hook = s.changeHook(func(b Booking) []Event { return creationEvents(b, token) })
	}
	if tx == nil {
		return change(ctx, s, hook, r.LockWait, func(ctx context.Context) (Booking, error) { return s.store.Reserve(ctx, nil, r) }, one)
	}
	b, err := s.store.Reserve(ctx, tx, r)
	if err == nil && hook != nil {
		err = hook(ctx, tx, b)
	}
	return b, err
}

// hostLocks are, for the hosts of a collective booking at start, their
// day and limit locks, their IDs, and the check of each one's busy time.
func (s *Service) hostLocks(svc Offering, hosts []Offer, cal Availability, start time.Time) ([]string, []int64, func(int64, []Busy) bool) {
	if len(hosts) == 0 {
		return nil, nil, nil
	}
	var locks []string
	ids := make([]int64, len(hosts))
	byID := map[int64]Offer{}
	for i, h := range hosts {
		ids[i], byID[h.ID] = h.ID, h
		locks = append(locks, strconv.FormatInt(h.ID, 10)+"|"+slots.DateOf(start.In(location(h.TimeZone))).String())
		locks = append(locks, s.limitLocks(svc, h, start)...)
	}
	return locks, ids, func(id int64, busy []Busy) bool {
		return s.offersStart(svc, byID[id], cal, start, cal.withCalendars(id, busy))
	}
}

// creationEvents are a new booking's events: booking.created with the
// status it was made with, carrying the manage token.
func creationEvents(b Booking, token string) []Event {
	return []Event{{Type: EventCreated, Booking: b, Actor: ActorCustomer, ManageToken: token}}
}
