package bookingssql

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
)

// Reserve implements bookings.Store. The lock is a transaction-scoped
// advisory lock on Postgres (pg_advisory_xact_lock under a lock_timeout of
// r.LockWait), so it holds across instances; on SQLite the one write
// connection already serialises writers, and r.LockWait bounds the wait
// for it.
func (s *Store) Reserve(ctx context.Context, r bookings.Reservation) (bookings.Booking, error) {
	if r.Booking.ProviderID == nil {
		return bookings.Booking{}, errors.New("bookingssql: reserve: no provider")
	}
	wait := r.LockWait
	lockCtx := ctx
	if s.db.Dialect() == store.SQLite && wait > 0 {
		var cancel context.CancelFunc
		lockCtx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	var out bookings.Booking
	err := s.db.InTx(lockCtx, func(tx *sqlx.Tx) error {
		if s.db.Dialect() == store.Postgres {
			// One round trip: the timeout is set (for this transaction)
			// before the lock is asked for.
			if _, err := tx.ExecContext(ctx, `WITH wait AS (SELECT set_config('lock_timeout', $1, true))
				SELECT pg_advisory_xact_lock(hashtextextended($2, 0)) FROM wait`,
				strconv.FormatInt(wait.Milliseconds(), 10)+"ms", "bookings:"+r.Lock); err != nil {
				return err
			}
		}
		q, args, err := sqlx.In(busyQuery, []int64{*r.Booking.ProviderID}, store.NewTime(r.BusyTo), store.NewTime(r.BusyFrom))
		if err != nil {
			return err
		}
		var rows []busyRow
		if err := tx.SelectContext(ctx, &rows, tx.Rebind(q), args...); err != nil {
			return err
		}
		busy := make([]bookings.Busy, len(rows))
		for i, row := range rows {
			busy[i] = row.busy()
		}
		if r.Check != nil && !r.Check(busy) {
			return bookings.ErrSlotTaken
		}
		b := r.Booking
		var row bookingRow
		err = tx.QueryRowxContext(ctx, tx.Rebind(`INSERT INTO bookings_bookings (number, service_id, provider_id, status, start_time,
			end_time, customer_name, customer_email, customer_phone, customer_timezone, assignment_strategy, intake_version, intake_data,
			notes, manage_token_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+bookingColumns),
			b.Number, b.ServiceID, nullID(b.ProviderID), b.Status, store.NewTime(b.Start), store.NewTime(b.End), b.CustomerName,
			b.CustomerEmail, b.CustomerPhone, b.CustomerTimeZone, b.AssignmentStrategy, b.IntakeVersion,
			store.JSON[map[string]any]{V: b.IntakeData}, b.Notes, r.ManageTokenHash, store.NewTime(b.CreatedAt), store.NewTime(b.UpdatedAt)).StructScan(&row)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE bookings_providers SET last_assigned_at = ? WHERE id = ?`),
			store.NewTime(b.CreatedAt), *b.ProviderID); err != nil {
			return err
		}
		out = row.booking()
		return nil
	})
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, bookings.ErrSlotTaken), store.IsUniqueViolation(err):
		return bookings.Booking{}, bookings.ErrSlotTaken
	case errors.As(err, &pgErr) && pgErr.Code == "55P03", // lock_not_available
		ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return bookings.Booking{}, bookings.ErrBusy
	}
	return bookings.Booking{}, fmt.Errorf("bookingssql: reserve: %w", err)
}
