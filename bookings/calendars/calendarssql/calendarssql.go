// Package calendarssql is the [calendars.Store] on SQLite and Postgres,
// in the tables bookingssql.Migrations makes beside the bookings'
// (migrate with it; the calendars have no schema of their own).
package calendarssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/store"
)

// Store is the calendars.Store on a store.DB: the providers'
// connections, their busy periods, and the busy days merged from them
// (bookings_calendar_connections, bookings_busy_periods,
// bookings_busy_days).
type Store struct{ db *store.DB }

var _ calendars.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with
// bookingssql.Migrations.
func New(db *store.DB) *Store { return &Store{db: db} }

// Join joins the providers' calendars to env beside bookings (joined
// first, with bookingssql.Join): their service attached to bk, the page
// and the admin routes, the sweep and the write-back jobs, on env's
// database. See calendars.NewModule.
func Join(env *store.Env, bk *bookings.Service, opts *calendars.ModuleOptions) (*calendars.Module, error) {
	return calendars.NewModule(env, bk, New(env.DB), opts)
}

// affected is err, or ErrNotFound when res changed no row.
func affected(res sql.Result, err error, what string) error {
	if err != nil {
		return mapErr(err, what)
	}
	if n, err := res.RowsAffected(); err != nil {
		return mapErr(err, what)
	} else if n == 0 {
		return calendars.ErrNotFound
	}
	return nil
}

// mapErr maps a missing row to calendars.ErrNotFound and names what
// failed.
func mapErr(err error, what string) error {
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return calendars.ErrNotFound
	}
	return fmt.Errorf("calendarssql: %s: %w", what, err)
}

type connectionRow struct {
	ID             int64                         `db:"id"`
	ProviderID     int64                         `db:"provider_id"`
	Kind           string                        `db:"kind"`
	Name           string                        `db:"name"`
	Endpoint       string                        `db:"endpoint"`
	Username       string                        `db:"username"`
	SealedSecret   string                        `db:"sealed_secret"`
	Calendars      store.JSON[[]string]          `db:"calendars"`
	Destination    string                        `db:"destination"`
	CalendarNames  store.JSON[map[string]string] `db:"calendar_names"`
	BlockWhenStale bool                          `db:"block_when_stale"`
	ETag           string                        `db:"etag"`
	LastModified   string                        `db:"last_modified"`
	SyncedAt       store.Time                    `db:"synced_at"`
	SyncedUntil    store.Time                    `db:"synced_until"`
	LastError      string                        `db:"last_error"`
	Failures       int                           `db:"failures"`
	NextSyncAt     store.Time                    `db:"next_sync_at"`
	CreatedAt      store.Time                    `db:"created_at"`
	UpdatedAt      store.Time                    `db:"updated_at"`
}

const connectionColumns = `id, provider_id, kind, name, endpoint, username, sealed_secret, calendars, destination, calendar_names, block_when_stale,
	etag, last_modified, synced_at, synced_until, last_error, failures, next_sync_at, created_at, updated_at`

// names is m, or an empty map for none (the column holds an object).
func names(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func timeOrNil(t store.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

func (r connectionRow) connection() calendars.Connection {
	cals := r.Calendars.V
	if cals == nil {
		cals = []string{}
	}
	return calendars.Connection{ID: r.ID, ProviderID: r.ProviderID, Kind: calendars.Kind(r.Kind), Name: r.Name, Endpoint: r.Endpoint,
		Username: r.Username, SealedSecret: r.SealedSecret, Calendars: cals, Destination: r.Destination, CalendarNames: names(r.CalendarNames.V),
		BlockWhenStale: r.BlockWhenStale, ETag: r.ETag, LastModified: r.LastModified, SyncedAt: timeOrNil(r.SyncedAt),
		SyncedUntil: timeOrNil(r.SyncedUntil), LastError: r.LastError, Failures: r.Failures, NextSyncAt: r.NextSyncAt.Time,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
}

// CreateConnection implements calendars.Store.
func (s *Store) CreateConnection(ctx context.Context, c calendars.Connection) (calendars.Connection, error) {
	var row connectionRow
	cals := c.Calendars
	if cals == nil {
		cals = []string{}
	}
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_calendar_connections (provider_id, kind, name, endpoint,
		username, sealed_secret, calendars, destination, calendar_names, block_when_stale, etag, last_modified, last_error, failures,
		next_sync_at, created_at, updated_at)
		SELECT id, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', '', 0, ?, ?, ? FROM bookings_providers WHERE id = ?
		RETURNING `+connectionColumns),
		c.Kind, c.Name, c.Endpoint, c.Username, c.SealedSecret, store.JSON[[]string]{V: cals}, c.Destination,
		store.JSON[map[string]string]{V: names(c.CalendarNames)}, c.BlockWhenStale,
		store.NewTime(c.NextSyncAt), store.NewTime(c.CreatedAt), store.NewTime(c.UpdatedAt), c.ProviderID).StructScan(&row)
	if err != nil {
		return calendars.Connection{}, mapErr(err, "create calendar connection")
	}
	return row.connection(), nil
}

// Connection implements calendars.Store.
func (s *Store) Connection(ctx context.Context, id int64) (calendars.Connection, error) {
	var row connectionRow
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+connectionColumns+` FROM bookings_calendar_connections WHERE id = ?`), id)
	if err != nil {
		return calendars.Connection{}, mapErr(err, "calendar connection")
	}
	return row.connection(), nil
}

// ListConnections implements calendars.Store.
func (s *Store) ListConnections(ctx context.Context, providerID int64) ([]calendars.Connection, error) {
	var rows []connectionRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT `+connectionColumns+` FROM bookings_calendar_connections
		WHERE ? = 0 OR provider_id = ? ORDER BY id`), providerID, providerID)
	if err != nil {
		return nil, mapErr(err, "list calendar connections")
	}
	out := make([]calendars.Connection, len(rows))
	for i, r := range rows {
		out[i] = r.connection()
	}
	return out, nil
}

// UpdateConnection implements calendars.Store.
func (s *Store) UpdateConnection(ctx context.Context, c calendars.Connection) (calendars.Connection, error) {
	var row connectionRow
	cals := c.Calendars
	if cals == nil {
		cals = []string{}
	}
	err := s.db.QueryRowxContext(ctx, s.db.Rebind(`UPDATE bookings_calendar_connections SET name = ?, endpoint = ?, username = ?,
		sealed_secret = ?, calendars = ?, destination = ?, calendar_names = ?, block_when_stale = ?, next_sync_at = ?, updated_at = ?
		WHERE id = ? RETURNING `+connectionColumns),
		c.Name, c.Endpoint, c.Username, c.SealedSecret, store.JSON[[]string]{V: cals}, c.Destination,
		store.JSON[map[string]string]{V: names(c.CalendarNames)}, c.BlockWhenStale,
		store.NewTime(c.NextSyncAt), store.NewTime(c.UpdatedAt), c.ID).StructScan(&row)
	if err != nil {
		return calendars.Connection{}, mapErr(err, "update calendar connection")
	}
	return row.connection(), nil
}

// DeleteConnection implements calendars.Store.
func (s *Store) DeleteConnection(ctx context.Context, id int64) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var span struct {
			Provider int64      `db:"provider_id"`
			From     store.Time `db:"first"`
			To       store.Time `db:"last"`
		}
		err := tx.GetContext(ctx, &span, s.db.Rebind(`SELECT c.provider_id, MIN(e.start_time) AS first, MAX(e.end_time) AS last
			FROM bookings_calendar_connections c LEFT JOIN bookings_busy_periods e ON e.connection_id = c.id
			WHERE c.id = ? GROUP BY c.provider_id`), id)
		if err != nil {
			return mapErr(err, "delete calendar connection")
		}
		if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_busy_periods WHERE connection_id = ?`), id); err != nil {
			return mapErr(err, "delete calendar connection")
		}
		res, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_calendar_connections WHERE id = ?`), id)
		if err := affected(res, err, "delete calendar connection"); err != nil {
			return err
		}
		if !span.From.IsZero() {
			return s.rebuildBusyDays(ctx, tx, span.Provider, span.From.Time, span.To.Time)
		}
		return nil
	})
}

// ClaimSync implements calendars.Store.
func (s *Store) ClaimSync(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bookings_calendar_connections SET claimed_until = ?
		WHERE id = ? AND (claimed_until IS NULL OR claimed_until <= ?)`), store.NewTime(until), id, store.NewTime(now))
	if err != nil {
		return false, mapErr(err, "claim calendar sync")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, mapErr(err, "claim calendar sync")
	}
	return n == 1, nil
}

// DueSyncs implements calendars.Store.
func (s *Store) DueSyncs(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	var ids []int64
	err := s.db.Reader().SelectContext(ctx, &ids, s.db.Rebind(`SELECT id FROM bookings_calendar_connections
		WHERE next_sync_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_sync_at, id LIMIT ?`),
		store.NewTime(now), store.NewTime(now), limit)
	if err != nil {
		return nil, mapErr(err, "due calendar syncs")
	}
	return ids, nil
}

// FinishSync implements calendars.Store.
func (s *Store) FinishSync(ctx context.Context, cs calendars.Sync) error {
	return s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var providerID int64
		err := tx.GetContext(ctx, &providerID, s.db.Rebind(`SELECT provider_id FROM bookings_calendar_connections WHERE id = ?`), cs.ConnectionID)
		if err != nil {
			return mapErr(err, "finish calendar sync")
		}
		if !cs.NotModified {
			if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_busy_periods
				WHERE connection_id = ? AND start_time < ? AND end_time > ?`), cs.ConnectionID, store.NewTime(cs.To), store.NewTime(cs.From)); err != nil {
				return mapErr(err, "finish calendar sync")
			}
			if err := s.insertBusy(ctx, tx, cs.ConnectionID, providerID, cs.Periods); err != nil {
				return err
			}
			if err := s.rebuildBusyDays(ctx, tx, providerID, cs.From, cs.To); err != nil {
				return err
			}
		}
		to := store.NewTime(cs.To)
		// A read's warning is kept as the last error; an unchanged
		// calendar keeps the warning of the read that found it, and clears
		// a failure's reason.
		_, err = tx.ExecContext(ctx, s.db.Rebind(`UPDATE bookings_calendar_connections SET etag = ?, last_modified = ?, synced_at = ?,
			synced_until = CASE WHEN synced_until IS NULL OR synced_until < ? THEN ? ELSE synced_until END,
			last_error = CASE WHEN ? AND failures = 0 THEN last_error ELSE ? END, failures = 0, next_sync_at = ?, claimed_until = NULL WHERE id = ?`),
			cs.ETag, cs.LastModified, store.NewTime(cs.At), to, to, cs.NotModified, cs.Warning, store.NewTime(cs.Next), cs.ConnectionID)
		if err != nil {
			return mapErr(err, "finish calendar sync")
		}
		return nil
	})
}

// insertBusy writes periods a few hundred rows to a statement.
func (s *Store) insertBusy(ctx context.Context, tx *sqlx.Tx, connectionID, providerID int64, periods []bookings.Period) error {
	const batch = 200
	for len(periods) > 0 {
		n := min(batch, len(periods))
		q := `INSERT INTO bookings_busy_periods (connection_id, provider_id, start_time, end_time) VALUES `
		args := make([]any, 0, 4*n)
		for i, p := range periods[:n] {
			if i > 0 {
				q += ", "
			}
			q += "(?, ?, ?, ?)"
			args = append(args, connectionID, providerID, store.NewTime(p.Start), store.NewTime(p.End))
		}
		if _, err := tx.ExecContext(ctx, s.db.Rebind(q), args...); err != nil {
			return mapErr(err, "store busy periods")
		}
		periods = periods[n:]
	}
	return nil
}

// FailSync implements calendars.Store.
func (s *Store) FailSync(ctx context.Context, id int64, reason string, next time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bookings_calendar_connections SET last_error = ?, failures = failures + 1,
		next_sync_at = ?, claimed_until = NULL WHERE id = ?`), reason, store.NewTime(next), id)
	return affected(res, err, "fail calendar sync")
}

// BusyPeriods implements calendars.Store.
func (s *Store) BusyPeriods(ctx context.Context, connectionID int64, from, to time.Time) ([]bookings.Period, error) {
	var rows []struct {
		Start store.Time `db:"start_time"`
		End   store.Time `db:"end_time"`
	}
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT start_time, end_time FROM bookings_busy_periods
		WHERE connection_id = ? AND start_time < ? AND end_time > ? ORDER BY start_time`), connectionID, store.NewTime(to), store.NewTime(from))
	if err != nil {
		return nil, mapErr(err, "busy periods")
	}
	out := make([]bookings.Period, len(rows))
	for i, r := range rows {
		out[i] = bookings.Period{Start: r.Start.Time, End: r.End.Time}
	}
	return out, nil
}
