package bookings

import (
	"context"
	"database/sql"
	"time"

	"github.com/groundwork-go/groundwork/bookings/bookingsstore"
	"github.com/groundwork-go/groundwork/store"
)

// Store keeps services, providers, their hours and bookings.
// Implementations: bookingssql (SQLite and Postgres);
// bookingstest.RunStoreTests pins the contract below. Times are UTC to the
// microsecond.
//
// Store is this domain's adapter seam, as a driver is River's: the one
// interface a storage engine implements, and the only way the service
// reaches its data. A host keeps the SQL adapter (on its own *sql.DB, SQLite
// or Postgres) unless it brings another engine; an adapter is complete when
// the conformance suite passes on it. It is the union of four roles, one
// for each part of the domain, so a reader finds a method by what it is
// for, and code that serves one part can take its role alone (the
// periodic jobs need only HousekeepingStore).
//
// The service begins the transactions its steps share with RunInTx
// (store.Transactor) and calls the store with the context it gives: a
// method called with that context runs inside that transaction, so a
// booking or a change of one and the jobs and hooks it sets off commit
// together or not at all. Outside one, each method is atomic on its own.
type Store interface {
	store.Transactor
	CatalogStore
	ReservationStore
	FeedStore
	HousekeepingStore
}

// CatalogStore keeps the services, the providers, the links between them and
// the providers' hours, overrides and blackouts.
type CatalogStore interface {
	// CreateService stores s and returns it with its ID; ErrSlugTaken
	// when another service has the slug.
	CreateService(ctx context.Context, s Offering) (Offering, error)
	// ServiceBySlug returns the service with this slug, active or not, or
	// ErrNotFound.
	ServiceBySlug(ctx context.Context, slug string) (Offering, error)
	// ServiceByID returns a service, or ErrNotFound.
	ServiceByID(ctx context.Context, id int64) (Offering, error)
	// UpdateService writes every field of s (found by ID); ErrNotFound,
	// ErrSlugTaken.
	UpdateService(ctx context.Context, s Offering) (Offering, error)
	// ListServices returns the services in name order, only the active
	// ones when activeOnly.
	ListServices(ctx context.Context, activeOnly bool) ([]Offering, error)
	// CreateProvider stores p and returns it with its ID; ErrSlugTaken
	// when another provider has the slug.
	CreateProvider(ctx context.Context, p Provider) (Provider, error)
	// Provider returns a provider, or ErrNotFound.
	Provider(ctx context.Context, id int64) (Provider, error)
	// UpdateProvider writes every field of p but its round-robin cursor;
	// ErrNotFound, ErrSlugTaken.
	UpdateProvider(ctx context.Context, p Provider) (Provider, error)
	// ListProviders returns every provider in sort order, then ID.
	ListProviders(ctx context.Context) ([]Provider, error)
	// UnlinkProvider stops offering a service through a provider; a link
	// that is not there is not an error.
	UnlinkProvider(ctx context.Context, serviceID, providerID int64) error
	// LinkProvider offers a service through a provider (again: updates
	// the custom duration and price); ErrNotFound when either is missing.
	LinkProvider(ctx context.Context, serviceID, providerID int64, customDuration *int, customPrice *string) error
	// Offers returns the providers linked to a service, active or not, in
	// sort order then ID.
	Offers(ctx context.Context, serviceID int64) ([]Offer, error)
	// AddWeeklyHours, AddOverride and AddBlackout store a rule and return
	// it with its ID.
	AddWeeklyHours(ctx context.Context, h WeeklyHours) (WeeklyHours, error)
	AddOverride(ctx context.Context, o Override) (Override, error)
	AddBlackout(ctx context.Context, b Blackout) (Blackout, error)
	// ListWeeklyHours and ListOverrides return a provider's rules (by
	// weekday or date, then start); ListBlackouts every blackout by date.
	ListWeeklyHours(ctx context.Context, providerID int64) ([]WeeklyHours, error)
	ListOverrides(ctx context.Context, providerID int64) ([]Override, error)
	ListBlackouts(ctx context.Context) ([]Blackout, error)
	// DeleteWeeklyHours and DeleteOverride delete a provider's rule,
	// DeleteBlackout a blackout; ErrNotFound when there is none.
	DeleteWeeklyHours(ctx context.Context, providerID, id int64) error
	DeleteOverride(ctx context.Context, providerID, id int64) error
	DeleteBlackout(ctx context.Context, id int64) error
}

// ReservationStore reads what the slots are made from and books: holds,
// bookings, their changes of status, provider and time.
type ReservationStore interface {
	// Availability returns what the slot engine needs for some providers of a
	// service (see AvailabilityQuery).
	Availability(ctx context.Context, q AvailabilityQuery) (Availability, error)
	// Reserve books r.Booking for its provider in one transaction that
	// holds the provider's lock r.Lock (waiting at most r.LockWait, then
	// ErrBusy) until it ends: tx when not nil (a transaction of the host's
	// on the store's database), else the one ctx carries, else its own. A
	// refusal (ErrSlotTaken, ErrBusy) inside a caller's transaction leaves
	// it as it was and usable. It reads the provider's busy time overlapping
	// [r.BusyFrom, r.BusyTo) — active bookings and holds live at
	// r.Booking.CreatedAt, except hold r.UseHold — and asks r.Check
	// whether the slot is still free (ErrSlotTaken if not). Then, with
	// r.Hold set, it stores a hold of r.Booking's service, provider and
	// period instead of a booking, and returns the booking unsaved.
	// Otherwise it inserts the booking in the lowest seat free at its
	// provider and start (ErrSlotTaken when the unique guard on provider,
	// start and seat trips), deletes hold r.UseHold, and moves the
	// provider's round-robin cursor to the booking's creation time.
	Reserve(ctx context.Context, tx *sql.Tx, r Reservation) (Booking, error)
	// ReserveSeries reserves every occurrence of a series in one
	// transaction, all or none (the first refusal's error): the locks of
	// them all taken first, in one order.
	ReserveSeries(ctx context.Context, rs []Reservation) ([]Booking, error)
	// SeriesBookings returns the occurrences of a series, in order of
	// start.
	SeriesBookings(ctx context.Context, seriesID string) ([]Booking, error)
	// HoldByHash returns the live or expired hold with this token hash,
	// or ErrNotFound.
	HoldByHash(ctx context.Context, tokenHash []byte) (Hold, error)
	// Booking returns a booking, or ErrNotFound.
	Booking(ctx context.Context, id int64) (Booking, error)
	// BookingByTokenHash returns the booking whose manage token has this
	// SHA-256, and the hash as stored, or ErrNotFound.
	BookingByTokenHash(ctx context.Context, hash []byte) (Booking, []byte, error)
	// SetManageTokenHash replaces a booking's manage-token hash (the old
	// token stops working) and its sealed copy (Booking.SealedManageToken),
	// and returns the booking as written; ErrNotFound without the booking.
	SetManageTokenHash(ctx context.Context, id int64, hash []byte, sealed string, at time.Time) (Booking, error)
	// ListBookings returns one page of the bookings f selects, by start
	// then ID, and how many it selects in all.
	ListBookings(ctx context.Context, f BookingFilter) ([]Booking, int, error)
	// SetStatus moves a booking to status to at at, if its status is one
	// of from, writing pay over its payment when pay is not nil:
	// ErrNotFound without the booking, ErrWrongStatus (wrapped, with the
	// booking as it is) when its status is another. A move to cancelled
	// from another status counts in the booking's Sequence.
	SetStatus(ctx context.Context, id int64, from []Status, to Status, at time.Time, pay *Payment) (Booking, error)
	// Move gives an active booking a new provider and period under the
	// new provider's lock, as Reserve books: the busy time shown to
	// m.Check leaves the booking itself out. ErrNotFound, ErrWrongStatus
	// (the booking is not active), ErrSlotTaken, ErrBusy.
	Move(ctx context.Context, m Move) (Booking, error)
}

// FeedStore keeps the providers' calendar-feed tokens and reads what a feed
// shows.
type FeedStore interface {
	// SetProviderFeedHash replaces a provider's feed-token hash (the old
	// feed address stops working); nil revokes it (no feed). ErrNotFound
	// without the provider.
	SetProviderFeedHash(ctx context.Context, providerID int64, hash []byte, at time.Time) error
	// ProviderByFeedHash returns the active provider whose feed token has
	// this SHA-256, and the hash as stored, or ErrNotFound.
	ProviderByFeedHash(ctx context.Context, hash []byte) (Provider, []byte, error)
	// FeedStamp summarises, in one query, a provider's bookings starting
	// in [from, to), cancelled ones included, and when a service last
	// changed.
	FeedStamp(ctx context.Context, providerID int64, from, to time.Time) (bookingsstore.FeedStamp, error)
	// FeedBookings returns a provider's bookings starting in [from, to)
	// but the cancelled ones, by start then ID; it may leave out the
	// customer's phone, intake answers and notes (a feed shows none).
	FeedBookings(ctx context.Context, providerID int64, from, to time.Time) ([]Booking, error)
}

// HousekeepingStore serves the periodic jobs: reminders and their one-time
// claims, completing bookings that have ended, pruning, and erasing a
// customer.
type HousekeepingStore interface {
	// BookingsStarting returns the bookings in one of statuses starting
	// in [from, to), by start then ID.
	BookingsStarting(ctx context.Context, statuses []Status, from, to time.Time) ([]Booking, error)
	// ClaimNotification records n unless a notification of its booking,
	// kind and scheduled time is recorded already (then false).
	ClaimNotification(ctx context.Context, n bookingsstore.Notification) (bool, error)
	// CompleteEnded moves the confirmed bookings that ended at or before
	// before to completed (updated at at), and returns them.
	CompleteEnded(ctx context.Context, before, at time.Time) ([]Booking, error)
	// PruneBookings deletes the bookings that ended before before, with
	// their notification log, and returns how many.
	PruneBookings(ctx context.Context, before time.Time) (int, error)
	// EraseCustomer redacts, in place, every booking whose customer email
	// is email in any case: name, email, phone, intake answers, notes
	// and time zone emptied, the manage token replaced by an unknown one, the
	// notification log's recipients emptied. It returns the bookings as
	// erased (their numbers tell the caller which).
	EraseCustomer(ctx context.Context, email string, at time.Time) ([]Booking, error)
}

// AvailabilityQuery asks for the rules of ProviderIDs offering ServiceID
// over the local dates From..To (weekly hours; overrides dated in the
// span; blackouts of the service, or of every service, touching it), and
// their busy time overlapping [BusyFrom, BusyTo): active bookings, and
// holds live at Now other than ExceptHold, each with its service's
// buffers.
type AvailabilityQuery struct {
	ServiceID        int64
	ProviderIDs      []int64
	From, To         Date
	BusyFrom, BusyTo time.Time
	Now              time.Time
	ExceptHold       int64
	// ExceptBooking is left out of the busy time (the booking being
	// moved).
	ExceptBooking int64
}

// BookingFilter selects bookings: zero fields select everything.
type BookingFilter struct {
	ServiceID, ProviderID int64
	Status                Status
	// Tenant, when set, keeps the bookings of that tenant's services.
	Tenant *string
	// From and To bound the start: From <= start < To.
	From, To time.Time
	Limit    int
	Offset   int
}

// Move is what [Store.Move] does to a booking.
type Move struct {
	BookingID  int64
	ProviderID int64
	Period     Period
	Lock       string
	// Locks are further locks the move takes with Lock (the periods of
	// booking limits, the days of the other hosts), all in one order.
	Locks []string
	// Hosts and CheckHost: as Reservation's, for a collective booking's
	// other providers (who stay its hosts).
	Hosts            []int64
	CheckHost        func(providerID int64, busy []Busy) bool
	LockWait         time.Duration
	BusyFrom, BusyTo time.Time
	Check            func(busy []Busy) bool
	At               time.Time
}

// Hold keeps a slot for one customer until ExpiresAt; its token is shown
// once, only its hash is stored.
type Hold struct {
	ID         int64
	ServiceID  int64
	ProviderID int64
	Period
	ExpiresAt time.Time
	CreatedAt time.Time
}

// Availability is the providers' rules and busy time over some days: what
// their slots are made from.
type Availability struct {
	Hours     []WeeklyHours
	Overrides []Override
	Blackouts []Blackout
	// Busy holds each provider's active bookings (and, as the service
	// reads it, the busy time of their calendars).
	Busy map[int64][]Busy
	// calendars is the providers' calendar busy time the service added.
	calendars map[int64][]Busy
}

// Reservation is what [Store.Reserve] books.
type Reservation struct {
	Booking         Booking
	ManageTokenHash []byte
	// ManageTokenSealed is the token sealed for later mails
	// (Booking.SealedManageToken); empty without a secret key.
	ManageTokenSealed string
	// Lock names the provider's local day; every Reserve of one name runs
	// one at a time, on every instance. Locks are further names taken
	// with it (the weeks and months of booking limits), all of them in
	// one order so that two reservations never wait on each other.
	Lock     string
	Locks    []string
	LockWait time.Duration
	// BusyFrom and BusyTo are the span whose bookings Check is shown.
	BusyFrom, BusyTo time.Time
	Check            func(busy []Busy) bool
	// Hold stores a hold (with HoldTokenHash, until HoldExpires) instead
	// of a booking.
	Hold          bool
	HoldTokenHash []byte
	HoldExpires   time.Time
	// UseHold is the caller's own hold: not busy for it, and deleted
	// when the booking is stored.
	UseHold int64
	// Hosts are further providers the booking holds (a collective
	// service's), each checked with CheckHost against its own busy time
	// under its own locks (in Locks), and stored with the booking.
	Hosts     []int64
	CheckHost func(providerID int64, busy []Busy) bool
	// Place, when not nil, is asked in the booking's transaction, after
	// the slot is checked and before the booking is stored, for where it
	// happens (a video link made then); its error ends the transaction.
	// Not for a hold.
	Place func(ctx context.Context, tx *sql.Tx, b Booking) (*Location, error)
}
