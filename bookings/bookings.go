package bookings

import (
	"time"

	"github.com/groundwork-go/groundwork"
)

// Status is where a booking stands. Requested, confirmed and
// awaiting-payment ones hold their slot (active); the others are final.
type Status string

// Statuses of a booking.
const (
	StatusRequested Status = "requested"
	StatusConfirmed Status = "confirmed"
	// StatusAwaitingPayment: a booking of a service that takes payment,
	// made and holding its time until its Payment.DueAt; paid, it is
	// confirmed, and unpaid by then it is cancelled.
	StatusAwaitingPayment Status = "awaiting_payment"
	StatusCancelled       Status = "cancelled"
	StatusCompleted       Status = "completed"
	StatusNoShow          Status = "no_show"
)

// Assignment is how a service picks the provider of a booking.
type Assignment string

// Assignment strategies of a service.
const (
	AssignAny             Assignment = "any"
	AssignRoundRobin      Assignment = "round_robin"
	AssignDefaultProvider Assignment = "default_provider"
	// AssignCollective books every linked provider at once: a time is
	// offered only when all are free.
	AssignCollective Assignment = "collective"
)

// Offering is a service that can be booked (a "service" on the wire; the
// name Service is the domain's, as in every groundwork package).
type Offering struct {
	ID          int64  `json:"id"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Duration, BufferBefore and BufferAfter are in minutes.
	Duration     int `json:"duration"`
	BufferBefore int `json:"buffer_before"`
	BufferAfter  int `json:"buffer_after"`
	// Price is a decimal string ("25.00"), or nil.
	Price  *string `json:"price"`
	IsFree bool    `json:"is_free"`
	// TimeZone is the IANA zone a month of slots is read in.
	TimeZone           string     `json:"timezone"`
	AssignmentStrategy Assignment `json:"assignment_strategy"`
	// DefaultProviderID takes bookings when no provider is linked.
	DefaultProviderID *int64 `json:"-"`
	// SlotInterval, MinAdvance and MaxAdvance (minutes) override the
	// engine's defaults when set.
	SlotInterval *int `json:"-"`
	MinAdvance   *int `json:"-"`
	MaxAdvance   *int `json:"-"`
	// MaxBookingsPerSlot is how many active bookings of this service may
	// share a provider and the same period (seats: a class, a group
	// session); 1 (or less) is one booking per provider and start.
	MaxBookingsPerSlot  int           `json:"-"`
	IntakeSchema        *IntakeSchema `json:"intake_schema"`
	IntakeSchemaVersion int           `json:"intake_schema_version"`
	IsActive            bool          `json:"-"`
	CreatedAt           time.Time     `json:"-"`
	UpdatedAt           time.Time     `json:"-"`
	ServiceRules
	// Tenant is the key of the tenant the service belongs to (see package
	// tenant), and so its bookings; a request acting for another tenant
	// does not find it. Not on the wire.
	Tenant string `json:"-"`
}

// IntakeSchema is the questions a service asks when booking.
type IntakeSchema struct {
	Fields []IntakeField `json:"fields"`
}

// IntakeField is one question.
type IntakeField struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Label    string   `json:"label"`
	Required bool     `json:"required"`
	Options  []string `json:"options,omitempty"`
}

// Provider is a person or resource that delivers services.
type Provider struct {
	ID       int64  `json:"id"`
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Bio      string `json:"bio"`
	TimeZone string `json:"timezone"`
	// Email and Phone are never shown publicly.
	Email            string     `json:"-"`
	Phone            string     `json:"-"`
	RoundRobinWeight int        `json:"-"`
	LastAssignedAt   *time.Time `json:"-"`
	SortOrder        int        `json:"-"`
	IsActive         bool       `json:"-"`
	CreatedAt        time.Time  `json:"-"`
	UpdatedAt        time.Time  `json:"-"`
	// Rules are answered by the admin API only.
	Rules ProviderRules `json:"-"`
	// Tenant is the key of the tenant the provider belongs to (see
	// package tenant). Not on the wire.
	Tenant string `json:"-"`
}

// Offer is a provider linked to a service, with its own duration (minutes)
// and price when set.
type Offer struct {
	Provider
	CustomDuration *int    `json:"-"`
	CustomPrice    *string `json:"-"`
}

// WeeklyHours is one window of a provider's week, in their wall-clock time.
type WeeklyHours struct {
	ID         int64        `json:"id"`
	ProviderID int64        `json:"provider_id"`
	Weekday    time.Weekday `json:"day_of_week"` // Sunday = 0
	// Start and End are minutes from midnight (End up to 1440).
	Start, End int `json:"-"`
	// EffectiveFrom and EffectiveUntil bound the rule (inclusive); nil
	// for open-ended.
	EffectiveFrom  *Date `json:"-"`
	EffectiveUntil *Date `json:"-"`
	IsAvailable    bool  `json:"is_available"`
}

// OverrideKind is what an override does to its date.
type OverrideKind string

// Override kinds.
const (
	OverrideUnavailable OverrideKind = "unavailable"
	OverrideCustomHours OverrideKind = "custom_hours"
)

// Override replaces a provider's week on one date: closed, or other hours.
type Override struct {
	ID         int64        `json:"id"`
	ProviderID int64        `json:"provider_id"`
	Date       Date         `json:"-"`
	Type       OverrideKind `json:"type"`
	// Start and End (minutes) for custom hours; nil gives no window but
	// still replaces the week.
	Start, End *int   `json:"-"`
	Reason     string `json:"reason"`
}

// Blackout closes one service (or all, ServiceID nil) over a span of
// provider-local dates, inclusive.
type Blackout struct {
	ID        int64  `json:"id"`
	ServiceID *int64 `json:"service_id"`
	From, To  Date   `json:"-"`
	Reason    string `json:"reason"`
	// Tenant is the key of the tenant the blackout belongs to (see
	// package tenant); one of every service closes the tenant's.
	Tenant string `json:"-"`
}

// Booking is an appointment.
type Booking struct {
	ID int64 `json:"id"`
	// Number is "BK-" and 12 random characters: a label for people.
	Number     string `json:"-"`
	ServiceID  int64  `json:"-"`
	ProviderID *int64 `json:"-"`
	Status     Status `json:"status"`
	// Start and End are UTC.
	Start              time.Time      `json:"start_time"`
	End                time.Time      `json:"end_time"`
	CustomerName       string         `json:"customer_name"`
	CustomerEmail      string         `json:"customer_email"`
	CustomerPhone      string         `json:"-"`
	CustomerTimeZone   string         `json:"customer_timezone"`
	AssignmentStrategy Assignment     `json:"-"`
	IntakeVersion      int            `json:"-"`
	IntakeData         map[string]any `json:"-"`
	Notes              string         `json:"-"`
	// Sequence counts the changes a calendar client must apply (each
	// reschedule, reassignment and cancellation): the feeds' SEQUENCE.
	Sequence  int       `json:"-"`
	CreatedAt time.Time `json:"-"`
	UpdatedAt time.Time `json:"-"`
	// SeriesID names the weekly series the booking is an occurrence of
	// ("" for none); SeriesIndex is its place in it, from 0.
	SeriesID    string `json:"series_id,omitempty"`
	SeriesIndex int    `json:"-"`
	// Hosts are the other providers a booking of a collective service
	// holds, besides ProviderID.
	Hosts []int64 `json:"-"`
	// Location is where the meeting happens, as it was when booked (a
	// video link made then included); nil for none.
	Location *Location `json:"location,omitempty"`
	// SealedManageToken is the manage token sealed with
	// Options.SecretKey, so that every mail about the booking (a change,
	// a reminder) carries the manage link; empty without a key.
	SealedManageToken string `json:"-"`
	// Payment is what a booking of a service that takes payment owes and
	// how it stands; nil for any other.
	Payment *Payment `json:"payment,omitempty"`
	// FromForm is the routing form's submission the booking was made from
	// (its page was opened from the submission's signed Prefill); nil for
	// any other.
	FromForm *FromForm `json:"from_form,omitempty"`
	// Visit is where the visit the booking was made in came from, as the
	// site's analytics counted it (groundwork.VisitOf, read when the
	// booking is made); nil when the analytics had not seen the visitor
	// (a booking made through the API by a server), and for CreateTx.
	Visit *groundwork.Visit `json:"visit,omitempty"`
}

// Active reports whether the booking holds its slot.
func (b Booking) Active() bool {
	return b.Status == StatusRequested || b.Status == StatusConfirmed || b.Status == StatusAwaitingPayment
}

// Payment is the payment of a booking of a service that takes one
// (ServiceRules.RequiresPayment), through the service's Options.Payments.
type Payment struct {
	// Amount ("25.00") and Currency ("EUR") are the price when it was
	// booked, for the length booked.
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	// DueAt ends the hold: a booking still unpaid then is cancelled, its
	// time freed.
	DueAt time.Time `json:"due_at"`
	// CheckoutURL is the provider's payment page for the customer, open
	// until DueAt; Session is its id at the provider (a Stripe Checkout
	// Session, "cs_...").
	CheckoutURL string `json:"checkout_url,omitempty"`
	Session     string `json:"session,omitempty"`
	// Reference is the provider's payment, once paid (a Stripe
	// PaymentIntent, "pi_..."): what a refund names.
	Reference string     `json:"reference,omitempty"`
	PaidAt    *time.Time `json:"paid_at,omitempty"`
	// RefundedAt is when the provider accepted its refund.
	RefundedAt *time.Time `json:"refunded_at,omitempty"`
}

// paid reports whether the payment was taken and not refunded.
func (p *Payment) paid() bool { return p != nil && p.PaidAt != nil && p.RefundedAt == nil }
