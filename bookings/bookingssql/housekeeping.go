package bookingssql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsstore"
	"github.com/groundwork-go/groundwork/store"
)

// SetProviderFeedHash implements bookings.Store.
func (s *Store) SetProviderFeedHash(ctx context.Context, providerID int64, hash []byte, at time.Time) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bookings_providers SET ical_token_hash = ?, updated_at = ? WHERE id = ?`),
		hash, store.NewTime(at), providerID)
	if err != nil {
		return fmt.Errorf("bookingssql: set feed token: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bookingssql: set feed token: %w", err)
	} else if n == 0 {
		return bookings.ErrNotFound
	}
	return nil
}

// ProviderByFeedHash implements bookings.Store.
func (s *Store) ProviderByFeedHash(ctx context.Context, hash []byte) (bookings.Provider, []byte, error) {
	var row struct {
		providerRow
		Hash []byte `db:"ical_token_hash"`
	}
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT `+providerColumns+`, ical_token_hash FROM bookings_providers
		WHERE ical_token_hash = ? AND is_active`), hash)
	if err != nil {
		return bookings.Provider{}, nil, mapErr(err, "provider by feed token")
	}
	return row.provider(), row.Hash, nil
}

// FeedStamp implements bookings.Store: one aggregate over the provider's
// (provider_id, start_time) index.
func (s *Store) FeedStamp(ctx context.Context, providerID int64, from, to time.Time) (bookingsstore.FeedStamp, error) {
	var row struct {
		Last     store.Time `db:"last"`
		Count    int        `db:"n"`
		Live     int        `db:"live"`
		Services store.Time `db:"services"`
	}
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT MAX(updated_at) AS last, COUNT(*) AS n,
		COUNT(CASE WHEN status <> 'cancelled' THEN 1 END) AS live, (SELECT MAX(updated_at) FROM bookings_services) AS services
		FROM bookings_bookings WHERE `+ofProvider+` AND start_time >= ? AND start_time < ?`),
		providerID, providerID, store.NewTime(from), store.NewTime(to))
	if err != nil {
		return bookingsstore.FeedStamp{}, mapErr(err, "feed stamp")
	}
	return bookingsstore.FeedStamp{LastUpdated: row.Last.Time, Count: row.Count, Live: row.Live, ServicesUpdated: row.Services.Time}, nil
}

func (s *Store) selectBookings(ctx context.Context, what, columns, where string, args ...any) ([]bookings.Booking, error) {
	q, args, err := sqlx.In(`SELECT `+columns+` FROM bookings_bookings WHERE `+where+` ORDER BY start_time, id`, args...)
	if err != nil {
		return nil, err
	}
	var rows []bookingRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(q), args...); err != nil {
		return nil, mapErr(err, what)
	}
	out := make([]bookings.Booking, len(rows))
	for i, r := range rows {
		out[i] = r.booking()
	}
	return out, nil
}

// ofProvider selects a provider's bookings, theirs and those they host
// (arguments: the provider's ID twice).
const ofProvider = `(provider_id = ? OR id IN (SELECT booking_id FROM bookings_booking_hosts WHERE provider_id = ?))`

// feedColumns are what a feed shows of a booking: no phone, answers or
// notes, which cost the most to read.
const feedColumns = `id, number, service_id, provider_id, status, start_time, end_time, customer_name, customer_email,
	customer_timezone, sequence, created_at, updated_at`

// feedColumnsSQLite are feedColumns with the times read as plain text:
// the driver parses a TIMESTAMP column by trying layouts (the first always
// fails for what it wrote, at an allocation each), store.Time parses the
// text at the first: a quarter of a feed's read on SQLite.
const feedColumnsSQLite = `id, number, service_id, provider_id, status, start_time || '', end_time || '', customer_name, customer_email,
	customer_timezone, sequence, created_at || '', updated_at || ''`

// FeedBookings implements bookings.Store: the bookings without their
// phone, intake answers and notes, scanned without reflection (a feed
// reads thousands).
func (s *Store) FeedBookings(ctx context.Context, providerID int64, from, to time.Time) ([]bookings.Booking, error) {
	columns := feedColumns
	if s.db.Dialect() == store.SQLite {
		columns = feedColumnsSQLite
	}
	rows, err := s.db.Reader().QueryContext(ctx, s.db.Rebind(`SELECT `+columns+` FROM bookings_bookings
		WHERE `+ofProvider+` AND start_time >= ? AND start_time < ? AND status <> 'cancelled' ORDER BY start_time, id`),
		providerID, providerID, store.NewTime(from), store.NewTime(to))
	if err != nil {
		return nil, mapErr(err, "feed bookings")
	}
	defer rows.Close()
	out := make([]bookings.Booking, 0, 64)
	for rows.Next() {
		var b bookings.Booking
		var provider sql.NullInt64
		var start, end, created, updated store.Time
		if err := rows.Scan(&b.ID, &b.Number, &b.ServiceID, &provider, &b.Status, &start, &end, &b.CustomerName, &b.CustomerEmail,
			&b.CustomerTimeZone, &b.Sequence, &created, &updated); err != nil {
			return nil, mapErr(err, "feed bookings")
		}
		b.ProviderID = idPtr(provider)
		b.Start, b.End, b.CreatedAt, b.UpdatedAt = start.Time, end.Time, created.Time, updated.Time
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, "feed bookings")
	}
	return out, nil
}

// BookingsStarting implements bookings.Store.
func (s *Store) BookingsStarting(ctx context.Context, statuses []bookings.Status, from, to time.Time) ([]bookings.Booking, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	return s.selectBookings(ctx, "bookings starting", bookingColumns, `start_time >= ? AND start_time < ? AND status IN (?)`,
		store.NewTime(from), store.NewTime(to), statuses)
}

// ClaimNotification implements bookings.Store.
func (s *Store) ClaimNotification(ctx context.Context, n bookingsstore.Notification) (bool, error) {
	res, err := s.db.On(ctx).ExecContext(ctx, s.db.Rebind(`INSERT INTO bookings_notification_log (booking_id, kind, scheduled_for, recipient, claimed_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (booking_id, kind, scheduled_for) DO NOTHING`),
		n.BookingID, n.Kind, store.NewTime(n.ScheduledFor), n.Recipient, store.NewTime(n.ClaimedAt))
	if err != nil {
		return false, fmt.Errorf("bookingssql: claim notification: %w", err)
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("bookingssql: claim notification: %w", err)
	}
	return rows > 0, nil
}

// CompleteEnded implements bookings.Store: one statement.
func (s *Store) CompleteEnded(ctx context.Context, before, at time.Time) ([]bookings.Booking, error) {
	var rows []bookingRow
	if err := sqlx.SelectContext(ctx, s.db.On(ctx), &rows, s.db.Rebind(`UPDATE bookings_bookings SET status = 'completed', updated_at = ?
		WHERE status = 'confirmed' AND end_time <= ? RETURNING `+bookingColumns), store.NewTime(at), store.NewTime(before)); err != nil {
		return nil, mapErr(err, "complete ended")
	}
	out := make([]bookings.Booking, len(rows))
	for i, r := range rows {
		out[i] = r.booking()
	}
	return out, nil
}

// PruneBookings implements bookings.Store.
func (s *Store) PruneBookings(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		cut := store.NewTime(before)
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM bookings_notification_log WHERE booking_id IN
			(SELECT id FROM bookings_bookings WHERE end_time < ?)`), cut); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM bookings_bookings WHERE end_time < ?`), cut)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bookingssql: prune bookings: %w", err)
	}
	return int(n), nil
}

// EraseCustomer implements bookings.Store, in one transaction.
func (s *Store) EraseCustomer(ctx context.Context, email string, at time.Time) ([]bookings.Booking, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return nil, nil
	}
	var out []bookings.Booking
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		var rows []bookingRow
		if err := tx.SelectContext(ctx, &rows, tx.Rebind(`SELECT `+bookingColumns+` FROM bookings_bookings
			WHERE LOWER(customer_email) = ? ORDER BY id`), email); err != nil {
			return err
		}
		for _, r := range rows {
			// A hash whose token nobody knows: the old links 404.
			var unknown [32]byte
			rand.Read(unknown[:])
			hash := sha256.Sum256(unknown[:])
			var erased bookingRow
			if err := tx.QueryRowxContext(ctx, tx.Rebind(`UPDATE bookings_bookings SET customer_name = '', customer_email = '',
				customer_phone = '', customer_timezone = '', intake_data = NULL, notes = '', manage_token_hash = ?, manage_token_sealed = '', updated_at = ?
				WHERE id = ? RETURNING `+bookingColumns),
				hash[:], store.NewTime(at), r.ID).StructScan(&erased); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE bookings_notification_log SET recipient = '' WHERE booking_id = ?`), r.ID); err != nil {
				return err
			}
			out = append(out, erased.booking())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bookingssql: erase customer: %w", err)
	}
	return out, nil
}
