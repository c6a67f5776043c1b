package bookingssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
)

// Reserve implements bookings.Store. The lock is a transaction-scoped
// advisory lock on Postgres (pg_advisory_xact_lock under a lock_timeout of
// r.LockWait), so it holds across instances; on SQLite the one write
// connection already serialises writers, and r.LockWait bounds the wait
// for it. In a caller's transaction (tx, or the one ctx carries) it works
// under a savepoint, so a refusal leaves that transaction as it was; the
// locks are held until the caller commits or rolls back, and on Postgres
// the transaction's lock_timeout is set back after they are taken.
func (s *Store) Reserve(ctx context.Context, tx *sql.Tx, r bookings.Reservation) (bookings.Booking, error) {
	if r.Booking.ProviderID == nil {
		return bookings.Booking{}, errors.New("bookingssql: reserve: no provider")
	}
	if tx != nil {
		return s.reserveIn(ctx, s.inTx(tx), r)
	}
	if joined := s.joined(ctx); joined != nil {
		return s.reserveIn(ctx, joined, r)
	}
	var out bookings.Booking
	err := s.db.InTx(store.WithBeginWait(ctx, r.LockWait), func(tx *sqlx.Tx) error {
		var err error
		out, err = s.reserve(ctx, tx, r, false, false)
		return err
	})
	return out, reserveErr(ctx, err, "reserve")
}

// joined is the transaction of the caller's that ctx carries, or nil.
func (s *Store) joined(ctx context.Context) *sqlx.Tx {
	tx, _ := s.db.On(ctx).(*sqlx.Tx)
	return tx
}

// inTx wraps a caller's *sql.Tx for sqlx.
func (s *Store) inTx(tx *sql.Tx) *sqlx.Tx { return &sqlx.Tx{Tx: tx, Mapper: s.db.Mapper} }

// ReserveSeries implements bookings.Store: every lock of every
// occurrence first, in one order, then each occurrence as Reserve does,
// all in one transaction.
func (s *Store) ReserveSeries(ctx context.Context, rs []bookings.Reservation) ([]bookings.Booking, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	var names []string
	for _, r := range rs {
		if r.Booking.ProviderID == nil {
			return nil, errors.New("bookingssql: reserve series: no provider")
		}
		names = append(append(names, r.Lock), r.Locks...)
	}
	out := make([]bookings.Booking, 0, len(rs))
	inHost := s.joined(ctx) != nil
	err := s.db.InTx(store.WithBeginWait(ctx, rs[0].LockWait), func(tx *sqlx.Tx) error {
		if err := s.lockRestoring(ctx, tx, rs[0].LockWait, inHost, names[0], names[1:]...); err != nil {
			return err
		}
		for _, r := range rs {
			b, err := s.reserve(ctx, tx, r, false, true)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	if err != nil {
		return nil, reserveErr(ctx, err, "reserve series")
	}
	return out, nil
}

// SeriesBookings implements bookings.Store.
func (s *Store) SeriesBookings(ctx context.Context, seriesID string) ([]bookings.Booking, error) {
	if seriesID == "" {
		return nil, nil
	}
	return s.selectBookings(ctx, "series bookings", bookingColumns, `series_id = ?`, seriesID)
}

// nullJSON is a nullable JSON column's value (from_form, visit): NULL
// for none.
func nullJSON[T any](v *T) any {
	if v == nil {
		return nil
	}
	return store.JSON[*T]{V: v}
}

// reserveIn is Reserve inside the caller's transaction, under a
// savepoint, so a refusal (a taken slot, a lock not had in time) leaves
// it as it was and usable.
func (s *Store) reserveIn(ctx context.Context, x *sqlx.Tx, r bookings.Reservation) (bookings.Booking, error) {
	if _, err := x.ExecContext(ctx, `SAVEPOINT bookings_reserve`); err != nil {
		return bookings.Booking{}, reserveErr(ctx, err, "reserve")
	}
	out, err := s.reserve(ctx, x, r, true, false)
	if err != nil {
		if _, rerr := x.ExecContext(ctx, `ROLLBACK TO SAVEPOINT bookings_reserve`); rerr != nil {
			return bookings.Booking{}, reserveErr(ctx, errors.Join(err, rerr), "reserve")
		}
		return bookings.Booking{}, reserveErr(ctx, err, "reserve")
	}
	if _, err := x.ExecContext(ctx, `RELEASE SAVEPOINT bookings_reserve`); err != nil {
		return bookings.Booking{}, reserveErr(ctx, err, "reserve")
	}
	return out, nil
}

// reserve is Reserve's work in tx; inHost marks a caller's transaction,
// whose lock_timeout is restored after the locks.
func (s *Store) reserve(ctx context.Context, tx *sqlx.Tx, r bookings.Reservation, inHost, locked bool) (bookings.Booking, error) {
	var out bookings.Booking
	err := func() error {
		if !locked {
			if err := s.lockRestoring(ctx, tx, r.LockWait, inHost, r.Lock, r.Locks...); err != nil {
				return err
			}
		}
		if err := s.checkBusy(ctx, tx,
			busyArgs([]int64{*r.Booking.ProviderID}, r.BusyFrom, r.BusyTo, r.Booking.CreatedAt, r.UseHold, 0), r.Check); err != nil {
			return err
		}
		if err := s.checkHosts(ctx, tx, r.Hosts, r.BusyFrom, r.BusyTo, r.Booking.CreatedAt, 0, r.CheckHost); err != nil {
			return err
		}
		b := r.Booking
		if r.Hold {
			_, err := tx.ExecContext(ctx, s.db.Rebind(`INSERT INTO bookings_holds (token_hash, service_id, provider_id, start_time, end_time,
				expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`), r.HoldTokenHash, b.ServiceID, *b.ProviderID, store.NewTime(b.Start),
				store.NewTime(b.End), store.NewTime(r.HoldExpires), store.NewTime(b.CreatedAt))
			out = b
			return err
		}
		seat, err := s.freeSeat(ctx, tx, *b.ProviderID, b.Start, 0)
		if err != nil {
			return err
		}
		if r.Place != nil {
			if b.Location, err = r.Place(ctx, tx.Tx, b); err != nil {
				return err
			}
		}
		kind, place := locationColumns(b.Location)
		var row bookingRow
		err = tx.QueryRowxContext(ctx, s.db.Rebind(`INSERT INTO bookings_bookings (number, service_id, provider_id, status, start_time,
			end_time, customer_name, customer_email, customer_phone, customer_timezone, assignment_strategy, intake_version, intake_data,
			notes, manage_token_hash, manage_token_sealed, created_at, updated_at, seat, location_kind, location, series_id, series_index,
			payment, from_form, visit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+bookingColumns),
			b.Number, b.ServiceID, nullID(b.ProviderID), b.Status, store.NewTime(b.Start), store.NewTime(b.End), b.CustomerName,
			b.CustomerEmail, b.CustomerPhone, b.CustomerTimeZone, b.AssignmentStrategy, b.IntakeVersion,
			store.JSON[map[string]any]{V: b.IntakeData}, b.Notes, r.ManageTokenHash, r.ManageTokenSealed, store.NewTime(b.CreatedAt),
			store.NewTime(b.UpdatedAt), seat, kind, place, b.SeriesID, b.SeriesIndex, store.JSON[*bookings.Payment]{V: b.Payment},
			nullJSON(b.FromForm), nullJSON(b.Visit)).StructScan(&row)
		if err != nil {
			return err
		}
		for _, h := range r.Hosts {
			if _, err := tx.ExecContext(ctx, s.db.Rebind(`INSERT INTO bookings_booking_hosts (booking_id, provider_id) VALUES (?, ?)`),
				row.ID, h); err != nil {
				return err
			}
		}
		if r.UseHold != 0 {
			if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_holds WHERE id = ?`), r.UseHold); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.db.Rebind(`UPDATE bookings_providers SET last_assigned_at = ? WHERE id = ?`),
			store.NewTime(b.CreatedAt), *b.ProviderID); err != nil {
			return err
		}
		out = row.booking()
		out.Hosts = r.Hosts
		return nil
	}()
	return out, err
}

// lockRestoring is lock, setting a caller's transaction's lock_timeout
// back afterwards (inHost) on Postgres: the setting it had is read in the
// statement that takes the first lock.
func (s *Store) lockRestoring(ctx context.Context, tx *sqlx.Tx, wait time.Duration, inHost bool, name string, more ...string) error {
	if s.db.Dialect() != store.Postgres {
		return nil
	}
	prev, err := s.lock(ctx, tx, wait, name, more...)
	if err != nil || !inHost {
		return err
	}
	_, err = tx.ExecContext(ctx, `SELECT set_config('lock_timeout', $1, true)`, prev)
	return err
}

// lock takes the named locks for the transaction, in sorted order so
// that two transactions wanting some of the same never wait on each
// other: on Postgres advisory locks under a lock_timeout of wait, set and
// the first taken in one round trip, which returns the lock_timeout the
// transaction had before; on SQLite the transaction's hold on the one
// writer is all of them.
func (s *Store) lock(ctx context.Context, tx *sqlx.Tx, wait time.Duration, name string, more ...string) (prev string, err error) {
	if s.db.Dialect() != store.Postgres {
		return "", nil
	}
	names := append([]string{name}, more...)
	slices.Sort(names)
	names = slices.Compact(names)
	// The lock in the select list: taken once both rows are read, so
	// under the new lock_timeout.
	var locked string
	err = tx.QueryRowContext(ctx, `WITH prev AS MATERIALIZED (SELECT current_setting('lock_timeout') AS v),
		wait AS MATERIALIZED (SELECT set_config('lock_timeout', $1, true) FROM prev)
		SELECT prev.v, pg_advisory_xact_lock(hashtextextended($2, 0))::text FROM prev, wait`,
		strconv.FormatInt(wait.Milliseconds(), 10)+"ms", "bookings:"+names[0]).Scan(&prev, &locked)
	for _, n := range names[1:] {
		if err != nil {
			break
		}
		// One statement a lock, so they are taken in this order; the
		// transaction's lock_timeout bounds each.
		_, err = tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "bookings:"+n)
	}
	return prev, err
}

// reserveErr maps a booking transaction's error.
func reserveErr(ctx context.Context, err error, what string) error {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bookings.ErrSlotTaken), errors.Is(err, bookings.ErrWrongStatus), errors.Is(err, bookings.ErrNotFound):
		return err
	case store.IsUniqueViolation(err):
		return bookings.ErrSlotTaken
	case errors.As(err, &pgErr) && pgErr.Code == "55P03", // lock_not_available
		ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return bookings.ErrBusy
	}
	return fmt.Errorf("bookingssql: %s: %w", what, err)
}

// Move implements bookings.Store.
func (s *Store) Move(ctx context.Context, m bookings.Move) (bookings.Booking, error) {
	var out bookings.Booking
	inHost := s.joined(ctx) != nil
	err := s.db.InTx(store.WithBeginWait(ctx, m.LockWait), func(tx *sqlx.Tx) error {
		if err := s.lockRestoring(ctx, tx, m.LockWait, inHost, m.Lock, m.Locks...); err != nil {
			return err
		}
		var cur bookingRow
		if err := tx.GetContext(ctx, &cur, s.db.Rebind(`SELECT `+bookingColumns+` FROM bookings_bookings WHERE id = ?`), m.BookingID); err != nil {
			return mapErr(err, "move")
		}
		if b := cur.booking(); !b.Active() {
			out = b
			return bookings.ErrWrongStatus
		}
		if err := s.checkBusy(ctx, tx,
			busyArgs([]int64{m.ProviderID}, m.BusyFrom, m.BusyTo, m.At, 0, m.BookingID), m.Check); err != nil {
			return err
		}
		if err := s.checkHosts(ctx, tx, m.Hosts, m.BusyFrom, m.BusyTo, m.At, m.BookingID, m.CheckHost); err != nil {
			return err
		}
		seat, err := s.freeSeat(ctx, tx, m.ProviderID, m.Period.Start, m.BookingID)
		if err != nil {
			return err
		}
		var row bookingRow
		err = tx.QueryRowxContext(ctx, s.db.Rebind(`UPDATE bookings_bookings SET provider_id = ?, start_time = ?, end_time = ?, seat = ?,
			sequence = sequence + 1, updated_at = ? WHERE id = ? RETURNING `+bookingColumns), m.ProviderID, store.NewTime(m.Period.Start), store.NewTime(m.Period.End),
			seat, store.NewTime(m.At), m.BookingID).StructScan(&row)
		if err != nil {
			return err
		}
		out = row.booking()
		out.Hosts = m.Hosts
		return nil
	})
	if errors.Is(err, bookings.ErrWrongStatus) {
		return out, err
	}
	return out, reserveErr(ctx, err, "move")
}

// HoldByHash implements bookings.Store.
func (s *Store) HoldByHash(ctx context.Context, tokenHash []byte) (bookings.Hold, error) {
	var row struct {
		ID         int64      `db:"id"`
		ServiceID  int64      `db:"service_id"`
		ProviderID int64      `db:"provider_id"`
		Start      store.Time `db:"start_time"`
		End        store.Time `db:"end_time"`
		ExpiresAt  store.Time `db:"expires_at"`
		CreatedAt  store.Time `db:"created_at"`
	}
	err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(`SELECT id, service_id, provider_id, start_time, end_time, expires_at, created_at
		FROM bookings_holds WHERE token_hash = ?`), tokenHash)
	if err != nil {
		return bookings.Hold{}, mapErr(err, "hold")
	}
	return bookings.Hold{ID: row.ID, ServiceID: row.ServiceID, ProviderID: row.ProviderID, Period: bookings.Period{Start: row.Start.Time, End: row.End.Time},
		ExpiresAt: row.ExpiresAt.Time, CreatedAt: row.CreatedAt.Time}, nil
}

// checkBusy reads the busy time busyArgs names, inside the lock, and asks
// check whether the slot is still free: ErrSlotTaken if not.
func (s *Store) checkBusy(ctx context.Context, tx *sqlx.Tx, args []any, check func([]bookings.Busy) bool) error {
	q, args, err := sqlx.In(busyQuery, args...)
	if err != nil {
		return err
	}
	var rows []busyRow
	if err := tx.SelectContext(ctx, &rows, s.db.Rebind(q), args...); err != nil {
		return err
	}
	busy := make([]bookings.Busy, len(rows))
	for i, row := range rows {
		busy[i] = row.busy()
	}
	if check != nil && !check(busy) {
		return bookings.ErrSlotTaken
	}
	return nil
}

// checkHosts checks each host's busy time with check, inside the locks.
func (s *Store) checkHosts(ctx context.Context, tx *sqlx.Tx, hosts []int64, from, to, now time.Time, exceptBooking int64,
	check func(int64, []bookings.Busy) bool) error {
	for _, h := range hosts {
		var checkOne func([]bookings.Busy) bool
		if check != nil {
			checkOne = func(busy []bookings.Busy) bool { return check(h, busy) }
		}
		if err := s.checkBusy(ctx, tx, busyArgs([]int64{h}, from, to, now, 0, exceptBooking), checkOne); err != nil {
			return err
		}
	}
	return nil
}

// freeSeat is the lowest seat no other active booking (than except) takes
// at this provider and start.
func (s *Store) freeSeat(ctx context.Context, tx *sqlx.Tx, providerID int64, start time.Time, except int64) (int, error) {
	var taken []int
	if err := tx.SelectContext(ctx, &taken, s.db.Rebind(`SELECT seat FROM bookings_bookings WHERE provider_id = ? AND start_time = ?
		AND status IN ('requested', 'confirmed', 'awaiting_payment') AND id <> ? ORDER BY seat`), providerID, store.NewTime(start), except); err != nil {
		return 0, err
	}
	seat := 1
	for _, t := range taken {
		if t == seat {
			seat++
		}
	}
	return seat, nil
}
