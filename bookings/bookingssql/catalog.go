package bookingssql

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/store"
)

// ServiceByID implements bookings.Store.
func (s *Store) ServiceByID(ctx context.Context, id int64) (bookings.Offering, error) {
	var row serviceRow
	if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+serviceColumns+` FROM bookings_services WHERE id = ?`), id); err != nil {
		return bookings.Offering{}, mapErr(err, "service")
	}
	return row.service(), nil
}

// UpdateService implements bookings.Store.
func (s *Store) UpdateService(ctx context.Context, v bookings.Offering) (bookings.Offering, error) {
	var row serviceRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`UPDATE bookings_services SET slug = ?, name = ?, description = ?, duration = ?,
		buffer_before = ?, buffer_after = ?, price = ?, is_free = ?, timezone = ?, assignment_strategy = ?, default_provider_id = ?,
		slot_interval = ?, min_advance = ?, max_advance = ?, max_bookings_per_slot = ?, intake_schema = ?, intake_schema_version = ?,
		is_active = ?, updated_at = ?, rules = ? WHERE id = ? RETURNING `+serviceColumns),
		v.Slug, v.Name, v.Description, v.Duration, v.BufferBefore, v.BufferAfter, nullString(v.Price), v.IsFree, v.TimeZone,
		v.AssignmentStrategy, nullID(v.DefaultProviderID), nullInt(v.SlotInterval), nullInt(v.MinAdvance), nullInt(v.MaxAdvance),
		v.MaxBookingsPerSlot, store.JSON[*bookings.IntakeSchema]{V: v.IntakeSchema}, v.IntakeSchemaVersion, v.IsActive,
		store.NewTime(v.UpdatedAt), store.JSON[bookings.ServiceRules]{V: v.ServiceRules}, v.ID).StructScan(&row)
	if err != nil {
		return bookings.Offering{}, mapErr(err, "update service")
	}
	return row.service(), nil
}

// UpdateProvider implements bookings.Store.
func (s *Store) UpdateProvider(ctx context.Context, p bookings.Provider) (bookings.Provider, error) {
	var row providerRow
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`UPDATE bookings_providers SET slug = ?, name = ?, bio = ?, email = ?, phone = ?,
		timezone = ?, round_robin_weight = ?, sort_order = ?, is_active = ?, updated_at = ?, rules = ? WHERE id = ? RETURNING `+providerColumns),
		p.Slug, p.Name, p.Bio, p.Email, p.Phone, p.TimeZone, p.RoundRobinWeight, p.SortOrder, p.IsActive, store.NewTime(p.UpdatedAt),
		store.JSON[bookings.ProviderRules]{V: p.Rules}, p.ID).StructScan(&row)
	if err != nil {
		return bookings.Provider{}, mapErr(err, "update provider")
	}
	return row.provider(), nil
}

// ListProviders implements bookings.Store.
func (s *Store) ListProviders(ctx context.Context) ([]bookings.Provider, error) {
	var rows []providerRow
	if err := s.db.Reader().SelectContext(ctx, &rows, `SELECT `+providerColumns+` FROM bookings_providers ORDER BY sort_order, id`); err != nil {
		return nil, mapErr(err, "list providers")
	}
	out := make([]bookings.Provider, len(rows))
	for i, r := range rows {
		out[i] = r.provider()
	}
	return out, nil
}

// UnlinkProvider implements bookings.Store.
func (s *Store) UnlinkProvider(ctx context.Context, serviceID, providerID int64) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_service_providers WHERE service_id = ? AND provider_id = ?`), serviceID, providerID)
	if err != nil {
		return fmt.Errorf("bookingssql: unlink provider: %w", err)
	}
	return nil
}

type hoursRow struct {
	ID         int64          `db:"id"`
	ProviderID int64          `db:"provider_id"`
	Weekday    int            `db:"weekday"`
	Start      int            `db:"start_minute"`
	End        int            `db:"end_minute"`
	From       sql.NullString `db:"effective_from"`
	Until      sql.NullString `db:"effective_until"`
	Available  bool           `db:"is_available"`
}

func (h hoursRow) value() bookings.WeeklyHours {
	return bookings.WeeklyHours{ID: h.ID, ProviderID: h.ProviderID, Weekday: time.Weekday(h.Weekday), Start: h.Start, End: h.End,
		EffectiveFrom: datePtr(h.From), EffectiveUntil: datePtr(h.Until), IsAvailable: h.Available}
}

type overrideRow struct {
	ID         int64         `db:"id"`
	ProviderID int64         `db:"provider_id"`
	Day        string        `db:"day"`
	Type       string        `db:"type"`
	Start      sql.NullInt64 `db:"start_minute"`
	End        sql.NullInt64 `db:"end_minute"`
	Reason     string        `db:"reason"`
}

func (o overrideRow) value() bookings.Override {
	d, _ := slots.ParseDate(o.Day)
	return bookings.Override{ID: o.ID, ProviderID: o.ProviderID, Date: d, Type: bookings.OverrideKind(o.Type), Start: intPtr(o.Start), End: intPtr(o.End), Reason: o.Reason}
}

type blackoutRow struct {
	ID        int64         `db:"id"`
	ServiceID sql.NullInt64 `db:"service_id"`
	From      string        `db:"starts_on"`
	To        string        `db:"ends_on"`
	Reason    string        `db:"reason"`
	Tenant    string        `db:"tenant"`
}

func (b blackoutRow) value() bookings.Blackout {
	f, _ := slots.ParseDate(b.From)
	t, _ := slots.ParseDate(b.To)
	return bookings.Blackout{ID: b.ID, ServiceID: idPtr(b.ServiceID), From: f, To: t, Reason: b.Reason, Tenant: b.Tenant}
}

// values converts rows.
func values[R interface{ value() V }, V any](rows []R) []V {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = r.value()
	}
	return out
}

// ListWeeklyHours implements bookings.Store.
func (s *Store) ListWeeklyHours(ctx context.Context, providerID int64) ([]bookings.WeeklyHours, error) {
	var rows []hoursRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT id, provider_id, weekday, start_minute, end_minute, effective_from,
		effective_until, is_available FROM bookings_weekly_hours WHERE provider_id = ? ORDER BY weekday, start_minute, id`), providerID)
	if err != nil {
		return nil, mapErr(err, "list weekly hours")
	}
	return values[hoursRow, bookings.WeeklyHours](rows), nil
}

// ListOverrides implements bookings.Store.
func (s *Store) ListOverrides(ctx context.Context, providerID int64) ([]bookings.Override, error) {
	var rows []overrideRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT id, provider_id, day, type, start_minute, end_minute, reason
		FROM bookings_overrides WHERE provider_id = ? ORDER BY day, start_minute, id`), providerID)
	if err != nil {
		return nil, mapErr(err, "list overrides")
	}
	return values[overrideRow, bookings.Override](rows), nil
}

// ListBlackouts implements bookings.Store.
func (s *Store) ListBlackouts(ctx context.Context) ([]bookings.Blackout, error) {
	var rows []blackoutRow
	if err := s.db.Reader().SelectContext(ctx, &rows, `SELECT id, service_id, starts_on, ends_on, reason, tenant FROM bookings_blackouts ORDER BY starts_on, id`); err != nil {
		return nil, mapErr(err, "list blackouts")
	}
	return values[blackoutRow, bookings.Blackout](rows), nil
}

func (s *Store) deleteOne(ctx context.Context, what, query string, args ...any) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(query), args...)
	return affected(res, err, "delete "+what)
}

// affected is ErrNotFound when a statement changed no row, its error
// (wrapped with what) when it failed, else nil.
func affected(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("bookingssql: %s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bookingssql: %s: %w", what, err)
	} else if n == 0 {
		return bookings.ErrNotFound
	}
	return nil
}

// DeleteWeeklyHours implements bookings.Store.
func (s *Store) DeleteWeeklyHours(ctx context.Context, providerID, id int64) error {
	return s.deleteOne(ctx, "weekly hours", `DELETE FROM bookings_weekly_hours WHERE id = ? AND provider_id = ?`, id, providerID)
}

// DeleteOverride implements bookings.Store.
func (s *Store) DeleteOverride(ctx context.Context, providerID, id int64) error {
	return s.deleteOne(ctx, "override", `DELETE FROM bookings_overrides WHERE id = ? AND provider_id = ?`, id, providerID)
}

// DeleteBlackout implements bookings.Store.
func (s *Store) DeleteBlackout(ctx context.Context, id int64) error {
	return s.deleteOne(ctx, "blackout", `DELETE FROM bookings_blackouts WHERE id = ?`, id)
}

// BookingByTokenHash implements bookings.Store.
func (s *Store) BookingByTokenHash(ctx context.Context, hash []byte) (bookings.Booking, []byte, error) {
	var row struct {
		bookingRow
		Hash []byte `db:"manage_token_hash"`
	}
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+bookingColumns+`, manage_token_hash FROM bookings_bookings
		WHERE manage_token_hash = ?`), hash)
	if err != nil {
		return bookings.Booking{}, nil, mapErr(err, "booking by token")
	}
	return row.booking(), row.Hash, nil
}

// SetManageTokenHash implements bookings.Store.
func (s *Store) SetManageTokenHash(ctx context.Context, id int64, hash []byte, sealed string, at time.Time) (bookings.Booking, error) {
	var row bookingRow
	err := s.db.On(ctx).QueryRowxContext(ctx, s.db.Rebind(`UPDATE bookings_bookings SET manage_token_hash = ?, manage_token_sealed = ?, updated_at = ?
		WHERE id = ? RETURNING `+bookingColumns), hash, sealed, store.NewTime(at), id).StructScan(&row)
	if err != nil {
		return bookings.Booking{}, mapErr(err, "set manage token")
	}
	return row.booking(), nil
}
