// Package bookingssql is the [bookings.Store] on SQLite and Postgres.
package bookingssql

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/store"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the bookings schema; pass it to store.Migrate.
var Migrations = store.MigrationsFrom("bookings", migrations, "migrations")

// Store is the bookings.Store on a store.DB.
type Store struct{ db *store.DB }

var _ bookings.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with [Migrations].
func New(db *store.DB) *Store { return &Store{db: db} }

// RunInTx implements bookings.Store: a transaction of the store's DB
// ([store.DB.RunInTx]), which the methods called with its context join.
func (s *Store) RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.RunInTx(ctx, fn)
}

func nullInt(p *int) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*p), Valid: true}
}

func intPtr(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}

func nullID(p *int64) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *p, Valid: true}
}

func idPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

func nullString(p *string) sql.NullString {
	if p == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *p, Valid: true}
}

func stringPtr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return &n.String
}

func nullDate(d *bookings.Date) sql.NullString {
	if d == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: d.String(), Valid: true}
}

func datePtr(n sql.NullString) *bookings.Date {
	if !n.Valid {
		return nil
	}
	d, _ := slots.ParseDate(n.String)
	return &d
}

func mapErr(err error, what string) error {
	switch {
	case errors.Is(store.MapError(err), store.ErrNotFound):
		return bookings.ErrNotFound
	case store.IsUniqueViolation(err):
		return bookings.ErrSlugTaken
	}
	return fmt.Errorf("bookingssql: %s: %w", what, err)
}

type serviceRow struct {
	ID                 int64                              `db:"id"`
	Slug               string                             `db:"slug"`
	Name               string                             `db:"name"`
	Description        string                             `db:"description"`
	Duration           int                                `db:"duration"`
	BufferBefore       int                                `db:"buffer_before"`
	BufferAfter        int                                `db:"buffer_after"`
	Price              sql.NullString                     `db:"price"`
	IsFree             bool                               `db:"is_free"`
	TimeZone           string                             `db:"timezone"`
	AssignmentStrategy string                             `db:"assignment_strategy"`
	DefaultProviderID  sql.NullInt64                      `db:"default_provider_id"`
	SlotInterval       sql.NullInt64                      `db:"slot_interval"`
	MinAdvance         sql.NullInt64                      `db:"min_advance"`
	MaxAdvance         sql.NullInt64                      `db:"max_advance"`
	MaxPerSlot         int                                `db:"max_bookings_per_slot"`
	IntakeSchema       store.JSON[*bookings.IntakeSchema] `db:"intake_schema"`
	IntakeVersion      int                                `db:"intake_schema_version"`
	IsActive           bool                               `db:"is_active"`
	CreatedAt          store.Time                         `db:"created_at"`
	UpdatedAt          store.Time                         `db:"updated_at"`
	Rules              store.JSON[bookings.ServiceRules]  `db:"rules"`
	Tenant             string                             `db:"tenant"`
}

const serviceColumns = `id, slug, name, description, duration, buffer_before, buffer_after, price, is_free, timezone,
	assignment_strategy, default_provider_id, slot_interval, min_advance, max_advance, max_bookings_per_slot,
	intake_schema, intake_schema_version, is_active, created_at, updated_at, rules, tenant`

func (r serviceRow) service() bookings.Offering {
	return bookings.Offering{ID: r.ID, Slug: r.Slug, Name: r.Name, Description: r.Description, Duration: r.Duration,
		BufferBefore: r.BufferBefore, BufferAfter: r.BufferAfter, Price: stringPtr(r.Price), IsFree: r.IsFree, TimeZone: r.TimeZone,
		AssignmentStrategy: bookings.Assignment(r.AssignmentStrategy), DefaultProviderID: idPtr(r.DefaultProviderID), SlotInterval: intPtr(r.SlotInterval),
		MinAdvance: intPtr(r.MinAdvance), MaxAdvance: intPtr(r.MaxAdvance), MaxBookingsPerSlot: r.MaxPerSlot,
		IntakeSchema: r.IntakeSchema.V, IntakeSchemaVersion: r.IntakeVersion, IsActive: r.IsActive,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time, ServiceRules: r.Rules.V, Tenant: r.Tenant}
}

// CreateService implements bookings.Store.
func (s *Store) CreateService(ctx context.Context, v bookings.Offering) (bookings.Offering, error) {
	var row serviceRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_services (slug, name, description, duration, buffer_before,
		buffer_after, price, is_free, timezone, assignment_strategy, default_provider_id, slot_interval, min_advance, max_advance,
		max_bookings_per_slot, intake_schema, intake_schema_version, is_active, created_at, updated_at, rules, tenant)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+serviceColumns),
		v.Slug, v.Name, v.Description, v.Duration, v.BufferBefore, v.BufferAfter, nullString(v.Price), v.IsFree, v.TimeZone,
		v.AssignmentStrategy, nullID(v.DefaultProviderID), nullInt(v.SlotInterval), nullInt(v.MinAdvance), nullInt(v.MaxAdvance),
		v.MaxBookingsPerSlot, store.JSON[*bookings.IntakeSchema]{V: v.IntakeSchema}, v.IntakeSchemaVersion, v.IsActive,
		store.NewTime(v.CreatedAt), store.NewTime(v.UpdatedAt), store.JSON[bookings.ServiceRules]{V: v.ServiceRules}, v.Tenant).StructScan(&row)
	if err != nil {
		return bookings.Offering{}, mapErr(err, "create service")
	}
	return row.service(), nil
}

// ServiceBySlug implements bookings.Store.
func (s *Store) ServiceBySlug(ctx context.Context, slug string) (bookings.Offering, error) {
	var row serviceRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+serviceColumns+` FROM bookings_services WHERE slug = ?`), slug); err != nil {
		return bookings.Offering{}, mapErr(err, "service")
	}
	return row.service(), nil
}

// ListServices implements bookings.Store.
func (s *Store) ListServices(ctx context.Context, activeOnly bool) ([]bookings.Offering, error) {
	q := `SELECT ` + serviceColumns + ` FROM bookings_services`
	if activeOnly {
		q += ` WHERE is_active`
	}
	var rows []serviceRow
	if err := s.db.Reader().SelectContext(ctx, &rows, q+` ORDER BY name, id`); err != nil {
		return nil, mapErr(err, "list services")
	}
	out := make([]bookings.Offering, len(rows))
	for i, r := range rows {
		out[i] = r.service()
	}
	return out, nil
}

type providerRow struct {
	ID             int64                              `db:"id"`
	Slug           string                             `db:"slug"`
	Name           string                             `db:"name"`
	Bio            string                             `db:"bio"`
	Email          string                             `db:"email"`
	Phone          string                             `db:"phone"`
	TimeZone       string                             `db:"timezone"`
	Weight         int                                `db:"round_robin_weight"`
	LastAssignedAt store.Time                         `db:"last_assigned_at"`
	SortOrder      int                                `db:"sort_order"`
	IsActive       bool                               `db:"is_active"`
	CreatedAt      store.Time                         `db:"created_at"`
	UpdatedAt      store.Time                         `db:"updated_at"`
	Rules          store.JSON[bookings.ProviderRules] `db:"rules"`
	Tenant         string                             `db:"tenant"`
}

const providerColumns = `id, slug, name, bio, email, phone, timezone, round_robin_weight, last_assigned_at, sort_order, is_active, created_at, updated_at, rules,
	tenant`

func (r providerRow) provider() bookings.Provider {
	p := bookings.Provider{ID: r.ID, Slug: r.Slug, Name: r.Name, Bio: r.Bio, Email: r.Email, Phone: r.Phone, TimeZone: r.TimeZone,
		RoundRobinWeight: r.Weight, SortOrder: r.SortOrder, IsActive: r.IsActive, CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time,
		Rules: r.Rules.V, Tenant: r.Tenant}
	if !r.LastAssignedAt.IsZero() {
		t := r.LastAssignedAt.Time
		p.LastAssignedAt = &t
	}
	return p
}

// CreateProvider implements bookings.Store.
func (s *Store) CreateProvider(ctx context.Context, p bookings.Provider) (bookings.Provider, error) {
	var row providerRow
	var last store.Time
	if p.LastAssignedAt != nil {
		last = store.NewTime(*p.LastAssignedAt)
	}
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_providers (slug, name, bio, email, phone, timezone,
		round_robin_weight, last_assigned_at, sort_order, is_active, created_at, updated_at, rules, tenant)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+providerColumns),
		p.Slug, p.Name, p.Bio, p.Email, p.Phone, p.TimeZone, p.RoundRobinWeight, last, p.SortOrder, p.IsActive,
		store.NewTime(p.CreatedAt), store.NewTime(p.UpdatedAt), store.JSON[bookings.ProviderRules]{V: p.Rules}, p.Tenant).StructScan(&row)
	if err != nil {
		return bookings.Provider{}, mapErr(err, "create provider")
	}
	return row.provider(), nil
}

// Provider implements bookings.Store.
func (s *Store) Provider(ctx context.Context, id int64) (bookings.Provider, error) {
	var row providerRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+providerColumns+` FROM bookings_providers WHERE id = ?`), id); err != nil {
		return bookings.Provider{}, mapErr(err, "provider")
	}
	return row.provider(), nil
}

// LinkProvider implements bookings.Store.
func (s *Store) LinkProvider(ctx context.Context, serviceID, providerID int64, customDuration *int, customPrice *string) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO bookings_service_providers (service_id, provider_id, custom_duration, custom_price)
		VALUES (?, ?, ?, ?) ON CONFLICT (service_id, provider_id) DO UPDATE SET custom_duration = excluded.custom_duration,
		custom_price = excluded.custom_price`), serviceID, providerID, nullInt(customDuration), nullString(customPrice))
	if err != nil {
		if isForeignKey(err) {
			return bookings.ErrNotFound
		}
		return fmt.Errorf("bookingssql: link provider: %w", err)
	}
	return nil
}

func isForeignKey(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "FOREIGN KEY") || strings.Contains(msg, "23503")
}

// Offers implements bookings.Store.
func (s *Store) Offers(ctx context.Context, serviceID int64) ([]bookings.Offer, error) {
	var rows []struct {
		providerRow
		CustomDuration sql.NullInt64  `db:"custom_duration"`
		CustomPrice    sql.NullString `db:"custom_price"`
	}
	cols := "p." + strings.ReplaceAll(providerColumns, ", ", ", p.")
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT `+cols+`, sp.custom_duration, sp.custom_price
		FROM bookings_service_providers sp JOIN bookings_providers p ON p.id = sp.provider_id
		WHERE sp.service_id = ? ORDER BY p.sort_order, p.id`), serviceID)
	if err != nil {
		return nil, mapErr(err, "offers")
	}
	out := make([]bookings.Offer, len(rows))
	for i, r := range rows {
		out[i] = bookings.Offer{Provider: r.provider(), CustomDuration: intPtr(r.CustomDuration), CustomPrice: stringPtr(r.CustomPrice)}
	}
	return out, nil
}

// AddWeeklyHours implements bookings.Store.
func (s *Store) AddWeeklyHours(ctx context.Context, h bookings.WeeklyHours) (bookings.WeeklyHours, error) {
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_weekly_hours (provider_id, weekday, start_minute, end_minute,
		effective_from, effective_until, is_available) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		h.ProviderID, int(h.Weekday), h.Start, h.End, nullDate(h.EffectiveFrom), nullDate(h.EffectiveUntil), h.IsAvailable).Scan(&h.ID)
	if err != nil {
		return h, mapErr(err, "add weekly hours")
	}
	return h, nil
}

// AddOverride implements bookings.Store.
func (s *Store) AddOverride(ctx context.Context, o bookings.Override) (bookings.Override, error) {
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_overrides (provider_id, day, type, start_minute, end_minute, reason)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), o.ProviderID, o.Date.String(), o.Type, nullInt(o.Start), nullInt(o.End), o.Reason).Scan(&o.ID)
	if err != nil {
		return o, mapErr(err, "add override")
	}
	return o, nil
}

// AddBlackout implements bookings.Store.
func (s *Store) AddBlackout(ctx context.Context, b bookings.Blackout) (bookings.Blackout, error) {
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_blackouts (service_id, starts_on, ends_on, reason, tenant)
		VALUES (?, ?, ?, ?, ?) RETURNING id`), nullID(b.ServiceID), b.From.String(), b.To.String(), b.Reason, b.Tenant).Scan(&b.ID)
	if err != nil {
		return b, mapErr(err, "add blackout")
	}
	return b, nil
}

type busyRow struct {
	ProviderID   int64      `db:"provider_id"`
	ServiceID    int64      `db:"service_id"`
	Start        store.Time `db:"start_time"`
	End          store.Time `db:"end_time"`
	BufferBefore int        `db:"buffer_before"`
	BufferAfter  int        `db:"buffer_after"`
}

// busyQuery reads active bookings and live holds of some providers
// overlapping a span, with their services' buffers, and the collective
// bookings they are hosts of (the busy time of the providers' own
// calendars is the calendars package's). Arguments: provider IDs, span
// end, span start, the booking to leave out; the same for holds with the
// instant they must outlive and the hold to leave out; and for hosts as
// for bookings.
const busyQuery = `SELECT b.provider_id, b.service_id, b.start_time, b.end_time, s.buffer_before, s.buffer_after
	FROM bookings_bookings b JOIN bookings_services s ON s.id = b.service_id
	WHERE b.provider_id IN (?) AND b.status IN ('requested', 'confirmed', 'awaiting_payment') AND b.start_time < ? AND b.end_time > ? AND b.id <> ?
	UNION ALL
	SELECT h.provider_id, h.service_id, h.start_time, h.end_time, s.buffer_before, s.buffer_after
	FROM bookings_holds h JOIN bookings_services s ON s.id = h.service_id
	WHERE h.provider_id IN (?) AND h.start_time < ? AND h.end_time > ? AND h.expires_at > ? AND h.id <> ?
	UNION ALL
	SELECT o.provider_id, b.service_id, b.start_time, b.end_time, s.buffer_before, s.buffer_after
	FROM bookings_booking_hosts o JOIN bookings_bookings b ON b.id = o.booking_id JOIN bookings_services s ON s.id = b.service_id
	WHERE o.provider_id IN (?) AND b.status IN ('requested', 'confirmed', 'awaiting_payment') AND b.start_time < ? AND b.end_time > ? AND b.id <> ?
	ORDER BY start_time`

func busyArgs(providers []int64, from, to, now time.Time, exceptHold, exceptBooking int64) []any {
	return []any{providers, store.NewTime(to), store.NewTime(from), exceptBooking, providers, store.NewTime(to), store.NewTime(from),
		store.NewTime(now), exceptHold, providers, store.NewTime(to), store.NewTime(from), exceptBooking}
}

func (r busyRow) busy() bookings.Busy {
	return bookings.Busy{Period: bookings.Period{Start: r.Start.Time, End: r.End.Time}, ServiceID: r.ServiceID,
		BufferBefore: time.Duration(r.BufferBefore) * time.Minute, BufferAfter: time.Duration(r.BufferAfter) * time.Minute}
}

// Availability implements bookings.Store.
func (s *Store) Availability(ctx context.Context, cq bookings.AvailabilityQuery) (bookings.Availability, error) {
	serviceID, providerIDs, from, to := cq.ServiceID, cq.ProviderIDs, cq.From, cq.To
	cal := bookings.Availability{Busy: map[int64][]bookings.Busy{}}
	if len(providerIDs) == 0 {
		return cal, nil
	}
	// Inside a caller's transaction (a waitlist's offer, made in the
	// cancellation's), what it has changed counts.
	var db sqlx.QueryerContext = s.db.Reader()
	if tx := s.joined(ctx); tx != nil {
		db = tx
	}
	in := func(q string, args ...any) (string, []any, error) {
		q, args, err := sqlx.In(q, args...)
		return s.db.Rebind(q), args, err
	}
	var hours []hoursRow
	q, args, err := in(`SELECT id, provider_id, weekday, start_minute, end_minute, effective_from, effective_until, is_available
		FROM bookings_weekly_hours WHERE provider_id IN (?) ORDER BY provider_id, weekday, start_minute`, providerIDs)
	if err == nil {
		err = sqlx.SelectContext(ctx, db, &hours, q, args...)
	}
	if err != nil {
		return cal, mapErr(err, "availability hours")
	}
	cal.Hours = values[hoursRow, bookings.WeeklyHours](hours)
	var overrides []overrideRow
	q, args, err = in(`SELECT id, provider_id, day, type, start_minute, end_minute, reason FROM bookings_overrides
		WHERE provider_id IN (?) AND day >= ? AND day <= ? ORDER BY provider_id, day, start_minute`, providerIDs, from.String(), to.String())
	if err == nil {
		err = sqlx.SelectContext(ctx, db, &overrides, q, args...)
	}
	if err != nil {
		return cal, mapErr(err, "availability overrides")
	}
	cal.Overrides = values[overrideRow, bookings.Override](overrides)
	var blackouts []blackoutRow
	err = sqlx.SelectContext(ctx, db, &blackouts, s.db.Rebind(`SELECT id, service_id, starts_on, ends_on, reason, tenant FROM bookings_blackouts
		WHERE (service_id = ? OR service_id IS NULL AND tenant = (SELECT tenant FROM bookings_services WHERE id = ?))
		AND starts_on <= ? AND ends_on >= ? ORDER BY starts_on`), serviceID, serviceID, to.String(), from.String())
	if err != nil {
		return cal, mapErr(err, "availability blackouts")
	}
	cal.Blackouts = values[blackoutRow, bookings.Blackout](blackouts)
	var busy []busyRow
	q, args, err = in(busyQuery, busyArgs(providerIDs, cq.BusyFrom, cq.BusyTo, cq.Now, cq.ExceptHold, cq.ExceptBooking)...)
	if err == nil {
		err = sqlx.SelectContext(ctx, db, &busy, q, args...)
	}
	if err != nil {
		return cal, mapErr(err, "availability bookings")
	}
	for _, b := range busy {
		cal.Busy[b.ProviderID] = append(cal.Busy[b.ProviderID], b.busy())
	}
	return cal, nil
}

type bookingRow struct {
	ID            int64                          `db:"id"`
	Number        string                         `db:"number"`
	ServiceID     int64                          `db:"service_id"`
	ProviderID    sql.NullInt64                  `db:"provider_id"`
	Status        string                         `db:"status"`
	Start         store.Time                     `db:"start_time"`
	End           store.Time                     `db:"end_time"`
	Name          string                         `db:"customer_name"`
	Email         string                         `db:"customer_email"`
	Phone         string                         `db:"customer_phone"`
	TimeZone      string                         `db:"customer_timezone"`
	Strategy      string                         `db:"assignment_strategy"`
	IntakeVersion int                            `db:"intake_version"`
	IntakeData    store.JSON[map[string]any]     `db:"intake_data"`
	Notes         string                         `db:"notes"`
	Sequence      int                            `db:"sequence"`
	CreatedAt     store.Time                     `db:"created_at"`
	UpdatedAt     store.Time                     `db:"updated_at"`
	Sealed        string                         `db:"manage_token_sealed"`
	LocationKind  string                         `db:"location_kind"`
	Location      string                         `db:"location"`
	SeriesID      string                         `db:"series_id"`
	SeriesIndex   int                            `db:"series_index"`
	Payment       store.JSON[*bookings.Payment]  `db:"payment"`
	FromForm      store.JSON[*bookings.FromForm] `db:"from_form"`
	Visit         store.JSON[*groundwork.Visit]  `db:"visit"`
}

const bookingColumns = `id, number, service_id, provider_id, status, start_time, end_time, customer_name, customer_email,
	customer_phone, customer_timezone, assignment_strategy, intake_version, intake_data, notes, sequence, created_at, updated_at,
	manage_token_sealed, location_kind, location, series_id, series_index, payment, from_form, visit`

func (r bookingRow) booking() bookings.Booking {
	return bookings.Booking{ID: r.ID, Number: r.Number, ServiceID: r.ServiceID, ProviderID: idPtr(r.ProviderID), Status: bookings.Status(r.Status),
		Start: r.Start.Time, End: r.End.Time, CustomerName: r.Name, CustomerEmail: r.Email, CustomerPhone: r.Phone,
		CustomerTimeZone: r.TimeZone, AssignmentStrategy: bookings.Assignment(r.Strategy), IntakeVersion: r.IntakeVersion, IntakeData: r.IntakeData.V,
		Notes: r.Notes, Sequence: r.Sequence, CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time, SealedManageToken: r.Sealed,
		Location: locationOf(r.LocationKind, r.Location), SeriesID: r.SeriesID, SeriesIndex: r.SeriesIndex, Payment: r.Payment.V,
		FromForm: r.FromForm.V, Visit: r.Visit.V}
}

// locationOf is a booking's stored place, nil for none.
func locationOf(kind, value string) *bookings.Location {
	if kind == "" {
		return nil
	}
	return &bookings.Location{Kind: bookings.LocationKind(kind), Value: value}
}

// locationColumns are the stored kind and value of l.
func locationColumns(l *bookings.Location) (string, string) {
	if l == nil {
		return "", ""
	}
	return string(l.Kind), l.Value
}

// Booking implements bookings.Store.
func (s *Store) Booking(ctx context.Context, id int64) (bookings.Booking, error) {
	var row bookingRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+bookingColumns+` FROM bookings_bookings WHERE id = ?`), id); err != nil {
		return bookings.Booking{}, mapErr(err, "booking")
	}
	b := row.booking()
	if err := s.db.Reader().SelectContext(ctx, &b.Hosts, s.db.Rebind(`SELECT provider_id FROM bookings_booking_hosts
		WHERE booking_id = ? ORDER BY provider_id`), id); err != nil {
		return bookings.Booking{}, mapErr(err, "booking hosts")
	}
	return b, nil
}

// ListBookings implements bookings.Store.
func (s *Store) ListBookings(ctx context.Context, f bookings.BookingFilter) ([]bookings.Booking, int, error) {
	where := []string{"1 = 1"}
	var args []any
	add := func(cond string, arg any) { where = append(where, cond); args = append(args, arg) }
	if f.ServiceID != 0 {
		add("service_id = ?", f.ServiceID)
	}
	if f.ProviderID != 0 {
		add("provider_id = ?", f.ProviderID)
	}
	if f.Tenant != nil {
		add("service_id IN (SELECT id FROM bookings_services WHERE tenant = ?)", *f.Tenant)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if !f.From.IsZero() {
		add("start_time >= ?", store.NewTime(f.From))
	}
	if !f.To.IsZero() {
		add("start_time < ?", store.NewTime(f.To))
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.Reader().GetContext(ctx, &total, s.db.Rebind(`SELECT COUNT(*) FROM bookings_bookings WHERE `+cond), args...); err != nil {
		return nil, 0, mapErr(err, "count bookings")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	var rows []bookingRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT `+bookingColumns+` FROM bookings_bookings WHERE `+cond+
		` ORDER BY start_time, id LIMIT ? OFFSET ?`), append(args, limit, f.Offset)...)
	if err != nil {
		return nil, 0, mapErr(err, "list bookings")
	}
	out := make([]bookings.Booking, len(rows))
	for i, r := range rows {
		out[i] = r.booking()
	}
	return out, total, nil
}

// SetStatus implements bookings.Store: one compare-and-set UPDATE (in the
// caller's transaction when ctx carries one). A cancellation counts in the
// booking's sequence.
func (s *Store) SetStatus(ctx context.Context, id int64, from []bookings.Status, to bookings.Status, at time.Time,
	pay *bookings.Payment) (bookings.Booking, error) {
	bump := 0
	if to == bookings.StatusCancelled {
		bump = 1
	}
	set, args := "", []any{to, to, bump, store.NewTime(at)}
	if pay != nil {
		set, args = ", payment = ?", append(args, store.JSON[*bookings.Payment]{V: pay})
	}
	q, args, err := sqlx.In(`UPDATE bookings_bookings SET status = ?, sequence = sequence + CASE WHEN status = ? THEN 0 ELSE ? END,
		updated_at = ?`+set+` WHERE id = ? AND status IN (?) RETURNING `+bookingColumns, append(args, id, from)...)
	if err != nil {
		return bookings.Booking{}, err
	}
	var row bookingRow
	err = s.db.On(ctx).QueryRowxContext(ctx, s.db.Rebind(q), args...).StructScan(&row)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		// The booking as it is, read where the update ran (in a caller's
		// transaction, through it: an in-memory SQLite has one connection).
		var cur bookingRow
		if err := sqlx.GetContext(ctx, s.db.On(ctx), &cur, s.db.Rebind(`SELECT `+bookingColumns+` FROM bookings_bookings WHERE id = ?`), id); err != nil {
			return bookings.Booking{}, mapErr(err, "set status")
		}
		return cur.booking(), bookings.ErrWrongStatus
	}
	if err != nil {
		return bookings.Booking{}, mapErr(err, "set status")
	}
	return row.booking(), nil
}
