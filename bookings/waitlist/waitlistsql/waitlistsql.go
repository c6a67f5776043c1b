// Package waitlistsql is the [waitlist.Store] on SQLite and Postgres, in
// the table bookingssql.Migrations makes beside the bookings'
// (bookings_waitlist; migrate with it).
package waitlistsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/store"
)

// Store is the waitlist.Store on a store.DB.
type Store struct{ db *store.DB }

var _ waitlist.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with
// bookingssql.Migrations.
func New(db *store.DB) *Store { return &Store{db: db} }

// Join joins the waitlists to env beside bookings (joined first, with
// bookingssql.Join): the service hooked on bk, the page, the API routes,
// the offer mail and the sweep, on env's database. See waitlist.NewModule.
func Join(env *store.Env, bk *bookings.Service, opts *waitlist.ModuleOptions) (*waitlist.Module, error) {
	return waitlist.NewModule(env, bk, New(env.DB), opts)
}

// RunInTx implements waitlist.Store.
func (s *Store) RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.RunInTx(ctx, fn)
}

const columns = `id, service_id, start_time, length_minutes, name, email, time_zone, status, offer_hash, offer_sealed,
	offer_provider_id, offered_at, offer_expires, booking_id, created_at, updated_at`

type row struct {
	ID           int64         `db:"id"`
	ServiceID    int64         `db:"service_id"`
	Start        store.Time    `db:"start_time"`
	Length       int           `db:"length_minutes"`
	Name         string        `db:"name"`
	Email        string        `db:"email"`
	TimeZone     string        `db:"time_zone"`
	Status       string        `db:"status"`
	OfferHash    []byte        `db:"offer_hash"`
	OfferSealed  string        `db:"offer_sealed"`
	ProviderID   sql.NullInt64 `db:"offer_provider_id"`
	OfferedAt    store.Time    `db:"offered_at"`
	OfferExpires store.Time    `db:"offer_expires"`
	BookingID    sql.NullInt64 `db:"booking_id"`
	CreatedAt    store.Time    `db:"created_at"`
	UpdatedAt    store.Time    `db:"updated_at"`
}

func (r row) entry() waitlist.Entry {
	e := waitlist.Entry{ID: r.ID, ServiceID: r.ServiceID, Start: r.Start.Time, Length: r.Length, Name: r.Name, Email: r.Email,
		TimeZone: r.TimeZone, Status: waitlist.Status(r.Status), OfferHash: r.OfferHash, OfferSealed: r.OfferSealed,
		OfferedAt: timeOrNil(r.OfferedAt), OfferExpires: timeOrNil(r.OfferExpires), CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
	if r.ProviderID.Valid {
		e.ProviderID = &r.ProviderID.Int64
	}
	if r.BookingID.Valid {
		e.BookingID = &r.BookingID.Int64
	}
	return e
}

func timeOrNil(t store.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

func nullTime(t *time.Time) store.Time {
	if t == nil {
		return store.Time{}
	}
	return store.NewTime(*t)
}

func nullInt(v *int64) sql.NullInt64 {
	if v == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *v, Valid: true}
}

// mapErr maps a missing row to waitlist.ErrNotFound and names what failed.
func mapErr(err error, what string) error {
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return waitlist.ErrNotFound
	}
	return fmt.Errorf("waitlistsql: %s: %w", what, err)
}

// Add implements waitlist.Store: one statement that inserts unless the
// customer already waits, then the entry they have.
func (s *Store) Add(ctx context.Context, e waitlist.Entry) (waitlist.Entry, bool, error) {
	var r row
	err := sqlx.GetContext(ctx, s.db.On(ctx), &r, s.db.Rebind(`INSERT INTO bookings_waitlist (service_id, start_time, length_minutes,
		name, email, time_zone, status, created_at, updated_at)
		SELECT id, ?, ?, ?, ?, ?, ?, ?, ? FROM bookings_services WHERE id = ?
		ON CONFLICT (service_id, start_time, lower(email)) WHERE status IN ('waiting', 'offered') DO NOTHING
		RETURNING `+columns), store.NewTime(e.Start), e.Length, e.Name, e.Email, e.TimeZone, string(waitlist.StatusWaiting),
		store.NewTime(e.CreatedAt), store.NewTime(e.UpdatedAt), e.ServiceID)
	if err == nil {
		return r.entry(), true, nil
	}
	if !errors.Is(store.MapError(err), store.ErrNotFound) {
		return waitlist.Entry{}, false, mapErr(err, "add")
	}
	err = sqlx.GetContext(ctx, s.db.On(ctx), &r, s.db.Rebind(`SELECT `+columns+` FROM bookings_waitlist
		WHERE service_id = ? AND start_time = ? AND lower(email) = lower(?) AND status IN ('waiting', 'offered')`),
		e.ServiceID, store.NewTime(e.Start), e.Email)
	if err != nil {
		return waitlist.Entry{}, false, mapErr(err, "add")
	}
	return r.entry(), false, nil
}

// Waiting implements waitlist.Store: on Postgres the rows are locked FOR
// UPDATE, so a second transaction waits and then reads them again.
func (s *Store) Waiting(ctx context.Context, serviceID int64, from, to time.Time, limit int) ([]waitlist.Entry, error) {
	lock := ""
	if s.db.Dialect() == store.Postgres {
		lock = ` FOR UPDATE`
	}
	return s.selectEntries(ctx, "waiting", `service_id = ? AND start_time >= ? AND start_time < ? AND status = 'waiting'
		ORDER BY id LIMIT ?`+lock, serviceID, store.NewTime(from), store.NewTime(to), limit)
}

// Update implements waitlist.Store.
func (s *Store) Update(ctx context.Context, e waitlist.Entry, from waitlist.Status) (waitlist.Entry, error) {
	var r row
	err := sqlx.GetContext(ctx, s.db.On(ctx), &r, s.db.Rebind(`UPDATE bookings_waitlist SET status = ?, offer_hash = ?, offer_sealed = ?,
		offer_provider_id = ?, offered_at = ?, offer_expires = ?, booking_id = ?, updated_at = ?
		WHERE id = ? AND status = ? RETURNING `+columns), string(e.Status), e.OfferHash, e.OfferSealed, nullInt(e.ProviderID),
		nullTime(e.OfferedAt), nullTime(e.OfferExpires), nullInt(e.BookingID), store.NewTime(e.UpdatedAt), e.ID, string(from))
	if err != nil {
		return waitlist.Entry{}, mapErr(err, "update")
	}
	return r.entry(), nil
}

// ByOffer implements waitlist.Store.
func (s *Store) ByOffer(ctx context.Context, hash []byte) (waitlist.Entry, error) {
	var r row
	err := sqlx.GetContext(ctx, s.db.On(ctx), &r, s.db.Rebind(`SELECT `+columns+` FROM bookings_waitlist WHERE offer_hash = ?`), hash)
	if err != nil {
		return waitlist.Entry{}, mapErr(err, "by offer")
	}
	return r.entry(), nil
}

// Entries implements waitlist.Store.
func (s *Store) Entries(ctx context.Context, serviceID int64, from time.Time) ([]waitlist.Entry, error) {
	return s.selectEntries(ctx, "entries", `(? = 0 OR service_id = ?) AND start_time >= ? ORDER BY start_time, id`,
		serviceID, serviceID, store.NewTime(from))
}

// Lapsed implements waitlist.Store.
func (s *Store) Lapsed(ctx context.Context, now time.Time, limit int) ([]waitlist.Entry, error) {
	return s.selectEntries(ctx, "lapsed", `(status = 'offered' AND offer_expires <= ?) OR (status = 'waiting' AND start_time < ?)
		ORDER BY id LIMIT ?`, store.NewTime(now), store.NewTime(now), limit)
}

// Prune implements waitlist.Store.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	return s.delete(ctx, "prune", `start_time < ?`, store.NewTime(before))
}

// Erase implements waitlist.Store.
func (s *Store) Erase(ctx context.Context, email string) (int, error) {
	return s.delete(ctx, "erase", `lower(email) = lower(?)`, strings.TrimSpace(email))
}

// delete deletes the entries where holds, and counts them.
func (s *Store) delete(ctx context.Context, what, where string, args ...any) (int, error) {
	res, err := s.db.On(ctx).ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_waitlist WHERE `+where), args...)
	if err != nil {
		return 0, mapErr(err, what)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, mapErr(err, what)
	}
	return int(n), nil
}

func (s *Store) selectEntries(ctx context.Context, what, where string, args ...any) ([]waitlist.Entry, error) {
	var rows []row
	if err := sqlx.SelectContext(ctx, s.db.On(ctx), &rows, s.db.Rebind(`SELECT `+columns+` FROM bookings_waitlist WHERE `+where), args...); err != nil {
		return nil, mapErr(err, what)
	}
	out := make([]waitlist.Entry, len(rows))
	for i, r := range rows {
		out[i] = r.entry()
	}
	return out, nil
}
