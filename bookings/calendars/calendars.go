package calendars

import (
	"context"
	"time"

	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/bookings"
)

// Kind is the sort of a provider's external calendar.
type Kind string

// Kinds of calendar connection.
const (
	// CalDAV is a CalDAV account (iCloud, Fastmail, Nextcloud,
	// Radicale...): a server, a user name and an app password; busy time
	// is read from the calendars chosen, and bookings may be written to
	// one of them.
	CalDAV Kind = "caldav"
	// ICS is a calendar's secret iCal address, read only.
	ICS Kind = "ics"
	// Google is a Google account connected with OAuth.
	Google Kind = "google"
)

// Sync defaults.
const (
	// SyncIntervalDefault is how often a connection is read.
	SyncIntervalDefault = 5 * time.Minute
	// FreshnessDefault is how old a connection's busy time may be
	// when a booking is made before that day is read again first.
	FreshnessDefault = 10 * time.Minute
	// ReadTimeoutDefault bounds one read of a connection.
	ReadTimeoutDefault = 20 * time.Second
	// RefreshTimeoutDefault bounds the read before a booking.
	RefreshTimeoutDefault = 3 * time.Second
	// ConnectWaitDefault is how long making a connection waits
	// for the calendar's server before it is saved and read in the
	// background.
	ConnectWaitDefault = 5 * time.Second
	// backoffMax is the longest wait after failed reads (each
	// failure doubles the interval, up to this).
	backoffMax = 6 * time.Hour
)

// Connection is one of a provider's own calendars (an account or
// an address), read for the time the provider is busy, and perhaps the
// calendar the provider's bookings are written to. Only when the provider
// is busy is kept, never what they are doing.
type Connection struct {
	ID         int64  `json:"id"`
	ProviderID int64  `json:"provider_id"`
	Kind       Kind   `json:"kind"`
	Name       string `json:"name"`
	// Endpoint is the CalDAV server's address; for an ICS address only
	// its scheme and host (the address itself is a secret).
	Endpoint string `json:"endpoint"`
	Username string `json:"username,omitempty"`
	// SealedSecret is the app password, the whole ICS address, or the
	// OAuth refresh token, sealed with the service's secret key; never
	// answered.
	SealedSecret string `json:"-"`
	// Calendars are the calendars read (CalDAV paths, Google IDs); the
	// one address of an ICS connection needs none.
	Calendars []string `json:"calendars"`
	// Destination is the calendar bookings are written to; "" writes
	// none.
	Destination string `json:"destination"`
	// CalendarNames are the names of the calendars the account listed
	// when it was connected or its calendars last chosen (path or ID to
	// name), so that pages name them without asking its server.
	CalendarNames map[string]string `json:"calendar_names"`
	// BlockWhenStale makes the provider unbookable while this calendar
	// could not be read for longer than a day.
	BlockWhenStale bool `json:"block_when_stale"`
	// ETag and LastModified are the last answer's, for a conditional
	// read of an ICS address.
	ETag         string `json:"-"`
	LastModified string `json:"-"`
	// SyncedAt is the last good read, SyncedUntil how far ahead it read.
	SyncedAt    *time.Time `json:"synced_at"`
	SyncedUntil *time.Time `json:"synced_until"`
	// LastError is the last failed read's reason in words for the
	// provider, or what a good read had to leave out ("" after a whole
	// good read); Failures counts failed reads in a row.
	LastError  string    `json:"last_error"`
	Failures   int       `json:"failures"`
	NextSyncAt time.Time `json:"next_sync_at"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// Remote is a calendar a connection can read.
type Remote struct {
	// ID is its CalDAV path or Google ID.
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Access is a connection with its secret unsealed, as a
// Source is given it.
type Access struct {
	Connection Connection
	Secret     string
}

// BusyRead is what one read of a connection found.
type BusyRead struct {
	// Periods are the busy periods in the span read, merged and sorted.
	Periods []bookings.Period
	// NotModified: the calendar did not change since the ETag or
	// LastModified given (Periods is empty and the stored ones stand).
	NotModified bool
	// ETag and LastModified are this answer's, for the next read.
	ETag, LastModified string
	// Unreadable counts events left out because they could not be read.
	Unreadable int
	// Warning says, in words for the provider, what the read left out
	// beyond single unreadable events (events that repeat too often to
	// expand); "" when nothing. It is kept as the connection's LastError.
	Warning string
}

// Event is a booking as written to a provider's calendar: our
// UID, so writing again replaces it, and only what the provider needs.
type Event struct {
	UID      string
	Summary  string
	Start    time.Time
	End      time.Time
	Sequence int
	// Location is where it happens, as people read it ("Video: https://…").
	Location string
	// Cancelled marks the booking cancelled (written as STATUS:CANCELLED
	// where the calendar keeps such events).
	Cancelled bool
}

// Source reads one kind of connection. Implementations:
// bookingsical (CalDAV and ICS addresses) and bookingsgoogle.
type Source interface {
	// Calendars lists the calendars the connection can read; it is how a
	// new connection is tested.
	Calendars(ctx context.Context, a Access) ([]Remote, error)
	// Busy reads the busy time of the connection's calendars in [from,
	// to), leaving out events whose UID skip reports (the bookings
	// written there), floating times and all-day events read in loc.
	Busy(ctx context.Context, a Access, from, to time.Time, loc *time.Location, skip func(uid string) bool) (BusyRead, error)
}

// Writer is a Source that also holds bookings: written,
// moved and cancelled in the connection's Destination by UID, so writing
// twice is the same as writing once.
type Writer interface {
	Source
	PutEvent(ctx context.Context, a Access, ev Event) error
	DeleteEvent(ctx context.Context, a Access, uid string) error
}

// Consent is a Source whose connections are made by the
// provider's consent on the calendar's own site (Google's), not by typing
// a password: the calendar page sends the provider there with
// OAuthConfig, and connects with the refresh token given back as the
// secret. OAuthConfig's RedirectURL must be the page's
// {prefix}/google/callback.
type Consent interface {
	Source
	OAuthConfig() *oauth2.Config
}

// Sync is a good read of a connection, for [Store.FinishSync].
type Sync struct {
	ConnectionID int64
	// From and To are the span read: its stored busy periods are replaced
	// by Periods (unless NotModified).
	From, To           time.Time
	Periods            []bookings.Period
	NotModified        bool
	ETag, LastModified string
	At, Next           time.Time
	// Warning is the read's BusyRead.Warning, kept as the connection's
	// LastError ("" clears it).
	Warning string
}
