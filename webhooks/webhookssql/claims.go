package webhookssql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

// ---- claims, attempts and retention ----

// claimRow is a claimed delivery and its subscription.
type claimRow struct {
	deliveryRow
	Sub subscriptionRow `db:"s"`
}

// prefixed names columns "<alias>.<column>" for sqlx's nested structs.
func prefixed(alias, columns string) string {
	var b strings.Builder
	for i, c := range strings.Split(columns, ",") {
		c = strings.TrimSpace(c)
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `%s.%s AS "%s.%s"`, alias, c, alias, c)
	}
	return b.String()
}

var claimedColumns = func() string {
	cols := strings.Split(fullDeliveryColumns, ",")
	for i, c := range cols {
		cols[i] = "d." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ") + ", " + prefixed("s", subscriptionColumns)
}()

const claimable = `status IN ('pending', 'retrying')`

// ReadDeliveries implements webhooks.Store: one query.
func (s *Store) ReadDeliveries(ctx context.Context, ids []int64) ([]webhooks.Delivery, map[int64]*webhooks.Subscription, error) {
	subs := map[int64]*webhooks.Subscription{}
	if len(ids) == 0 {
		return nil, subs, nil
	}
	query, args, err := sqlx.In(`SELECT `+claimedColumns+` FROM webhooks_deliveries d
		JOIN webhooks_subscriptions s ON s.id = d.subscription_id WHERE d.id IN (?)`, ids)
	if err != nil {
		return nil, nil, err
	}
	var rows []claimRow
	if err := s.db.SelectContext(ctx, &rows, s.q(query), args...); err != nil {
		return nil, nil, fmt.Errorf("webhookssql: read deliveries: %w", err)
	}
	out := make([]webhooks.Delivery, len(rows))
	for i := range rows {
		out[i] = rows[i].deliveryRow.delivery()
		if _, ok := subs[rows[i].Sub.ID]; !ok {
			subs[rows[i].Sub.ID] = rows[i].Sub.subscription()
		}
	}
	return out, subs, nil
}

// ClaimDelivery implements webhooks.Store: on Postgres one statement, on
// SQLite an update and a read.
func (s *Store) ClaimDelivery(ctx context.Context, id int64, claim, lease time.Time) (*webhooks.Delivery, *webhooks.Subscription, error) {
	var r claimRow
	var err error
	if lease.Equal(claim) {
		// Only a check: the caller's claim lasts long enough.
		err = s.db.GetContext(ctx, &r, s.q(`SELECT `+claimedColumns+` FROM webhooks_deliveries d
			JOIN webhooks_subscriptions s ON s.id = d.subscription_id
			WHERE d.id = ? AND d.next_attempt_at = ? AND d.`+claimable), id, store.NewTime(claim))
	} else if s.postgres() {
		// The lease commits without waiting for the disk: if a crash
		// loses it, the delivery keeps its older claim and is recovered
		// as a lost job would be; the attempt's outcome, written later
		// and durably, flushes it anyway.
		err = s.db.GetContext(ctx, &r, `WITH async AS (SELECT set_config('synchronous_commit', 'off', true)),
			d AS (UPDATE webhooks_deliveries SET next_attempt_at = $1
			WHERE id = $2 AND next_attempt_at = $3 AND `+claimable+` AND EXISTS (SELECT 1 FROM async)
			RETURNING `+fullDeliveryColumns+`)
			SELECT `+claimedColumns+` FROM d JOIN webhooks_subscriptions s ON s.id = d.subscription_id`,
			store.NewTime(lease), id, store.NewTime(claim))
	} else {
		err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			if err := tx.GetContext(ctx, &r.deliveryRow, tx.Rebind(`UPDATE webhooks_deliveries SET next_attempt_at = ?
				WHERE id = ? AND next_attempt_at = ? AND `+claimable+` RETURNING `+fullDeliveryColumns),
				store.NewTime(lease), id, store.NewTime(claim)); err != nil {
				return err
			}
			return tx.GetContext(ctx, &r.Sub, tx.Rebind(`SELECT `+subscriptionColumns+` FROM webhooks_subscriptions WHERE id = ?`),
				r.SubscriptionID)
		})
	}
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, store.ErrNotFound) {
		return nil, nil, webhooks.ErrClaimLost
	}
	if err != nil {
		return nil, nil, fmt.Errorf("webhookssql: claim delivery: %w", err)
	}
	d := r.deliveryRow.delivery()
	return &d, r.Sub.subscription(), nil
}

// successDue: a success writes the subscription only when it changes
// something that matters, its streak, or last_success_at by at least
// webhooks.LastSuccessResolution; so busy subscriptions are not written
// (and locked) by every delivery.
const successDue = `(consecutive_failures <> 0 OR last_success_at IS NULL OR last_success_at <= ?)`

const finishSet = `status = ?, attempts = ?, next_attempt_at = ?, response_status = ?, response_body = ?, delivered_at = ?,
	updated_at = ? WHERE id = ? AND next_attempt_at = ?`

func finishArgs(d *webhooks.Delivery, lease time.Time) []any {
	return []any{string(d.Status), d.Attempts, optTime(d.NextAttemptAt), d.ResponseStatus, d.ResponseBody,
		optTime(d.DeliveredAt), store.NewTime(d.UpdatedAt), d.ID, store.NewTime(lease)}
}

// FinishAttempt implements webhooks.Store. A success or a failure on
// Postgres is one statement; the rest is a transaction.
func (s *Store) FinishAttempt(ctx context.Context, d *webhooks.Delivery, lease time.Time, o webhooks.Outcome, disableAfter int) (bool, error) {
	at := store.NewTime(d.UpdatedAt)
	if o == webhooks.OutcomeSuccess && s.postgres() {
		var n int
		err := s.db.QueryRowxContext(ctx, s.q(`WITH d AS (UPDATE webhooks_deliveries SET `+finishSet+` RETURNING subscription_id),
			u AS (UPDATE webhooks_subscriptions s SET consecutive_failures = 0, last_success_at = ? FROM d
				WHERE s.id = d.subscription_id AND `+successDue+` RETURNING s.id)
			SELECT COUNT(*) FROM d`), append(finishArgs(d, lease), at, store.NewTime(d.UpdatedAt.Add(-webhooks.LastSuccessResolution)))...).Scan(&n)
		if err != nil {
			return false, fmt.Errorf("webhookssql: finish attempt: %w", err)
		}
		if n == 0 {
			return false, webhooks.ErrClaimLost
		}
		return false, nil
	}
	excerpt := "" // the failed attempt's, for the delivery's log
	if o == webhooks.OutcomeFailure && d.ResponseBody != nil {
		excerpt = driverless.ClipText(*d.ResponseBody, webhooks.AttemptExcerptLimit)
	}
	if o == webhooks.OutcomeFailure && s.postgres() {
		// One statement too: failures come in bursts (a hundred endpoints
		// refusing at once), and a transaction of five round trips each
		// would hold connections the claims and successes need. The
		// subscription's row as it was before (b, locked) tells whether
		// this failure switched it off.
		var r struct {
			Finished int  `db:"finished"`
			Disabled bool `db:"disabled"`
		}
		err := s.db.GetContext(ctx, &r, s.q(`WITH d AS (UPDATE webhooks_deliveries SET `+finishSet+` RETURNING id, subscription_id),
			a AS (INSERT INTO webhooks_attempts (delivery_id, attempt, response_status, response_excerpt, created_at)
				SELECT id, ?, ?, ?, ? FROM d ON CONFLICT (delivery_id, attempt) DO NOTHING),
			u AS (UPDATE webhooks_subscriptions s SET consecutive_failures = b.consecutive_failures + 1, last_failure_at = ?,
					is_active = b.is_active AND b.consecutive_failures + 1 < ?
				FROM (SELECT id, is_active, consecutive_failures FROM webhooks_subscriptions
					WHERE id = (SELECT subscription_id FROM d) `+lockToUpdate+`) b
				WHERE s.id = b.id RETURNING b.is_active AND NOT s.is_active AS disabled)
			SELECT (SELECT COUNT(*) FROM d) AS finished, COALESCE((SELECT disabled FROM u), FALSE) AS disabled`),
			append(finishArgs(d, lease), d.Attempts, d.ResponseStatus, excerpt, at, at, disableAfter)...)
		if err != nil {
			return false, fmt.Errorf("webhookssql: finish attempt: %w", err)
		}
		if r.Finished == 0 {
			return false, webhooks.ErrClaimLost
		}
		return r.Disabled, nil
	}
	disabled := false
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		res, err := s.stmts.ExecContext(ctx, tx, s.q(`UPDATE webhooks_deliveries SET `+finishSet), finishArgs(d, lease)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return webhooks.ErrClaimLost
		}
		switch o {
		case webhooks.OutcomeSuccess:
			_, err = s.stmts.ExecContext(ctx, tx, s.q(`UPDATE webhooks_subscriptions SET consecutive_failures = 0, last_success_at = ?
				WHERE id = ? AND `+successDue), at, d.SubscriptionID, store.NewTime(d.UpdatedAt.Add(-webhooks.LastSuccessResolution)))
			return err
		case webhooks.OutcomeFailure: // (SQLite: the one writer, so no lock to take)
			var before struct {
				Active bool `db:"is_active"`
				Streak int  `db:"consecutive_failures"`
			}
			if err := tx.GetContext(ctx, &before, tx.Rebind(`SELECT is_active, consecutive_failures FROM webhooks_subscriptions
				WHERE id = ?`), d.SubscriptionID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO webhooks_attempts (delivery_id, attempt, response_status, response_excerpt,
				created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (delivery_id, attempt) DO NOTHING`), d.ID, d.Attempts, d.ResponseStatus,
				excerpt, at); err != nil {
				return err
			}
			streak := before.Streak + 1
			disabled = before.Active && streak >= disableAfter
			_, err = tx.ExecContext(ctx, tx.Rebind(`UPDATE webhooks_subscriptions SET consecutive_failures = ?, last_failure_at = ?,
				is_active = ? WHERE id = ?`), streak, at, before.Active && !disabled, d.SubscriptionID)
			return err
		}
		return nil
	})
	if errors.Is(err, webhooks.ErrClaimLost) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("webhookssql: finish attempt: %w", err)
	}
	return disabled, nil
}

// FinishDelivered implements webhooks.Store: on Postgres one statement
// for the lot, on SQLite one transaction.
func (s *Store) FinishDelivered(ctx context.Context, ds []webhooks.SuccessfulAttempt) ([]int64, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	done := map[int64]bool{}
	if s.postgres() {
		n := len(ds)
		ids, attempts, statuses := make([]int64, n), make([]int32, n), make([]*int32, n)
		leases, ats := make([]time.Time, n), make([]time.Time, n)
		bodies := make([]*string, n)
		for i, x := range ds {
			d := x.Delivery
			ids[i], attempts[i], bodies[i] = d.ID, int32(d.Attempts), d.ResponseBody
			if d.ResponseStatus != nil {
				v := int32(*d.ResponseStatus)
				statuses[i] = &v
			}
			leases[i], ats[i] = store.NewTime(x.Lease).Time, store.NewTime(d.UpdatedAt).Time
		}
		var got []int64
		// Subscriptions are locked in ID order (l), so batches that touch
		// the same ones at once queue up instead of deadlocking.
		err := retryDeadlock(func() error {
			got = got[:0]
			return s.db.SelectContext(ctx, &got, `WITH x AS (
				SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::timestamptz[])
					AS x(id, lease, attempts, response_status, response_body, at)
			), d AS (
				UPDATE webhooks_deliveries t SET status = 'delivered', attempts = x.attempts, next_attempt_at = NULL,
					response_status = x.response_status, response_body = x.response_body, delivered_at = x.at, updated_at = x.at
				FROM x WHERE t.id = x.id AND t.next_attempt_at = x.lease RETURNING t.id, t.subscription_id, x.at
			), m AS (
				SELECT subscription_id, MAX(at) AS at FROM d GROUP BY subscription_id
			), l AS (
				SELECT s.id, m.at FROM webhooks_subscriptions s JOIN m ON m.subscription_id = s.id
				WHERE s.consecutive_failures <> 0 OR s.last_success_at IS NULL OR s.last_success_at <= m.at - $7::interval
				ORDER BY s.id `+lockToUpdate+` OF s
			), u AS (
				UPDATE webhooks_subscriptions s SET consecutive_failures = 0, last_success_at = l.at FROM l
				WHERE s.id = l.id RETURNING s.id
			)
			SELECT id FROM d`, ids, leases, attempts, statuses, bodies, ats, fmt.Sprintf("%d microseconds", webhooks.LastSuccessResolution.Microseconds()))
		})
		if err != nil {
			return nil, fmt.Errorf("webhookssql: finish delivered: %w", err)
		}
		for _, id := range got {
			done[id] = true
		}
	} else {
		err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			latest := map[int64]time.Time{}
			for _, x := range ds {
				d := *x.Delivery
				d.Status, d.NextAttemptAt = webhooks.StatusDelivered, nil
				res, err := s.stmts.ExecContext(ctx, tx, s.q(`UPDATE webhooks_deliveries SET `+finishSet), finishArgs(&d, x.Lease)...)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil {
					return err
				} else if n == 1 {
					done[x.Delivery.ID] = true
					if at := x.Delivery.UpdatedAt; at.After(latest[x.Delivery.SubscriptionID]) {
						latest[x.Delivery.SubscriptionID] = at
					}
				}
			}
			for sub, at := range latest {
				if _, err := s.stmts.ExecContext(ctx, tx, s.q(`UPDATE webhooks_subscriptions SET consecutive_failures = 0,
					last_success_at = ? WHERE id = ? AND `+successDue), store.NewTime(at), sub,
					store.NewTime(at.Add(-webhooks.LastSuccessResolution))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("webhookssql: finish delivered: %w", err)
		}
	}
	var lost []int64
	for _, x := range ds {
		if !done[x.Delivery.ID] {
			lost = append(lost, x.Delivery.ID)
		}
	}
	return lost, nil
}

// retryDeadlock runs fn again (twice at most) when Postgres broke a
// deadlock by failing it: the transaction rolled back, so it may run anew.
func retryDeadlock(fn func() error) error {
	var err error
	for range 3 {
		var pgErr *pgconn.PgError
		if err = fn(); !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
			return err
		}
	}
	return err
}

// walkDueInOrder has Postgres read the due deliveries for the rest of tx
// by walking the due index in its order and stopping at the claim's
// limit, never by gathering every due row and sorting it. The planner
// would choose the sort on a table it has not analysed yet (a new one, or
// one grown by a backlog since): it guesses a few hundred due rows where
// there are tens of thousands, and each claim then sorts them all (28 ms
// with 22,000 due, against 0.6 ms for the walk).
func walkDueInOrder(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `SET LOCAL enable_sort = off`)
	return err
}

// lockToUpdate locks a subscription row on Postgres to update its
// counters. Not FOR UPDATE: that waits for every transaction still
// inserting deliveries for the subscription (their foreign-key checks
// hold a key share on it until they commit: a fan-out to a thousand
// endpoints holds a thousand), and an attempt's end has no need to.
const lockToUpdate = `FOR NO KEY UPDATE`

// ClaimDue implements webhooks.Store.
func (s *Store) ClaimDue(ctx context.Context, now, lease time.Time, limit int) ([]int64, error) {
	// The outer conditions are checked again on each row as it is
	// updated, so two sweeps at once never claim a row twice. On Postgres
	// the due rows are picked once, in a materialised CTE (a subquery under
	// IN may be rescanned and pick more than limit), skipping rows another
	// sweep holds.
	query := `UPDATE webhooks_deliveries SET next_attempt_at = ?
		WHERE id IN (SELECT id FROM webhooks_deliveries WHERE ` + claimable + ` AND next_attempt_at <= ?
			ORDER BY next_attempt_at, id LIMIT ?)
		AND ` + claimable + ` AND next_attempt_at <= ? RETURNING id`
	args := []any{store.NewTime(lease), store.NewTime(now), limit, store.NewTime(now)}
	if s.postgres() {
		query = `WITH due AS MATERIALIZED (SELECT id FROM webhooks_deliveries WHERE ` + claimable + ` AND next_attempt_at <= ?
			ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
		UPDATE webhooks_deliveries d SET next_attempt_at = ? FROM due
		WHERE d.id = due.id AND d.` + claimable + ` AND d.next_attempt_at <= ? RETURNING d.id`
		args = []any{store.NewTime(now), limit, store.NewTime(lease), store.NewTime(now)}
	}
	var ids []int64
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		ids = nil
		if s.postgres() {
			if err := walkDueInOrder(ctx, tx); err != nil {
				return err
			}
		}
		rows, err := s.stmts.QueryContext(ctx, tx, s.q(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("webhookssql: claim due: %w", err)
	}
	return ids, nil
}

// ClaimChosen implements webhooks.Store: a read, then an update of the
// rows chosen that are still due (the update's conditions make it safe
// beside other claims, so no transaction holds the two together).
func (s *Store) ClaimChosen(ctx context.Context, now, lease time.Time, limit int, pick webhooksstore.ClaimPick) ([]int64, error) {
	if limit <= 0 || pick.Scan <= 0 || pick.Choose == nil {
		return nil, nil
	}
	skip, err := json.Marshal(append([]int64{}, pick.Skip...))
	if err != nil {
		return nil, err
	}
	read := s.dueRead()
	take := `UPDATE webhooks_deliveries SET next_attempt_at = ? WHERE id IN (SELECT value FROM json_each(?))
		AND ` + claimable + ` AND next_attempt_at <= ? RETURNING id`
	if s.postgres() {
		// Rows another claim holds are skipped, not waited for; and, as
		// ClaimDue's, the lease commits without waiting for the disk (a
		// crash that loses it leaves the deliveries due).
		take = `WITH async AS (SELECT set_config('synchronous_commit', 'off', true)),
			c AS (SELECT id FROM webhooks_deliveries WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::bigint)
				AND ` + claimable + ` AND next_attempt_at <= ? FOR UPDATE SKIP LOCKED)
			UPDATE webhooks_deliveries d SET next_attempt_at = ? FROM c
			WHERE d.id = c.id AND d.` + claimable + ` AND d.next_attempt_at <= ? AND EXISTS (SELECT 1 FROM async) RETURNING d.id`
	}
	var due []struct {
		ID  int64 `db:"id"`
		Sub int64 `db:"subscription_id"`
	}
	readArgs := []any{store.NewTime(now), string(skip), pick.Scan}
	if s.postgres() {
		err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			if err := walkDueInOrder(ctx, tx); err != nil {
				return err
			}
			return tx.SelectContext(ctx, &due, read, readArgs...)
		})
	} else {
		err = s.db.Reader().SelectContext(ctx, &due, read, readArgs...)
	}
	if err != nil {
		return nil, fmt.Errorf("webhookssql: claim chosen: %w", err)
	}
	if len(due) == 0 {
		return nil, nil
	}
	shown := make([]webhooksstore.DueDelivery, len(due))
	for i, d := range due {
		shown[i] = webhooksstore.DueDelivery{ID: d.ID, SubscriptionID: d.Sub}
	}
	chosen := pick.Choose(shown)
	if len(chosen) > limit {
		chosen = chosen[:limit]
	}
	if len(chosen) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(chosen)
	if err != nil {
		return nil, err
	}
	args := []any{store.NewTime(lease), string(list), store.NewTime(now)}
	if s.postgres() {
		args = []any{string(list), store.NewTime(now), store.NewTime(lease), store.NewTime(now)}
	}
	var ids []int64
	if err := s.db.SelectContext(ctx, &ids, s.q(take), args...); err != nil {
		return nil, fmt.Errorf("webhookssql: claim chosen: %w", err)
	}
	return ids, nil
}

// dueRead is ClaimChosen's read: the oldest due deliveries of the
// subscriptions not in a JSON list of IDs, at most a number of them, in
// the order of the due index. Its arguments: the time, the list, the
// number.
func (s *Store) dueRead() string {
	notIn := `SELECT value FROM json_each(?)`
	if s.postgres() {
		notIn = `SELECT jsonb_array_elements_text(?::jsonb)::bigint`
	}
	return s.q(`SELECT id, subscription_id FROM webhooks_deliveries WHERE ` + claimable + ` AND next_attempt_at <= ?
		AND subscription_id NOT IN (` + notIn + `) ORDER BY next_attempt_at, id LIMIT ?`)
}

// RequeueParked implements webhooks.Store.
func (s *Store) RequeueParked(ctx context.Context, subscriptionID int64, at time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE webhooks_deliveries SET
		status = CASE WHEN attempts = 0 THEN 'pending' ELSE 'retrying' END, next_attempt_at = ?, updated_at = ?
		WHERE subscription_id = ? AND status = 'parked'`), store.NewTime(at), store.NewTime(at), subscriptionID)
	if err != nil {
		return 0, fmt.Errorf("webhookssql: requeue parked: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ParkDue implements webhooks.Store.
func (s *Store) ParkDue(ctx context.Context, subscriptionID int64, now time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE webhooks_deliveries SET status = 'parked', next_attempt_at = NULL, updated_at = ?
		WHERE subscription_id = ? AND `+claimable+` AND next_attempt_at <= ?`), store.NewTime(now), subscriptionID, store.NewTime(now))
	if err != nil {
		return 0, fmt.Errorf("webhookssql: park due: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PruneDeliveries implements webhooks.Store.
func (s *Store) PruneDeliveries(ctx context.Context, before time.Time, batch int) (int, error) {
	total := 0
	for {
		res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM webhooks_deliveries WHERE id IN (SELECT id FROM webhooks_deliveries
			WHERE status IN ('delivered', 'failed') AND created_at < ? ORDER BY id LIMIT ?)`), store.NewTime(before), batch)
		if err != nil {
			return total, fmt.Errorf("webhookssql: prune deliveries: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += int(n)
		if int(n) < batch {
			return total, nil
		}
	}
}

// DeliveriesAbout implements webhooks.Store.
func (s *Store) DeliveriesAbout(ctx context.Context, customerID string, orderIDs []string, afterID int64, limit int) ([]webhooks.Delivery, error) {
	var conds []string
	var args []any
	if customerID != "" {
		conds, args = append(conds, "customer_id = ?"), append(args, customerID)
	}
	if len(orderIDs) > 0 {
		conds, args = append(conds, "order_id IN (?)"), append(args, orderIDs)
	}
	if len(conds) == 0 {
		return nil, nil
	}
	query, args, err := sqlx.In(`SELECT `+fullDeliveryColumns+` FROM webhooks_deliveries WHERE id > ? AND (`+
		strings.Join(conds, " OR ")+`) ORDER BY id LIMIT ?`, append(append([]any{afterID}, args...), limit)...)
	if err != nil {
		return nil, err
	}
	var rows []deliveryRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(query), args...); err != nil {
		return nil, fmt.Errorf("webhookssql: deliveries about: %w", err)
	}
	out := make([]webhooks.Delivery, len(rows))
	for i := range rows {
		out[i] = rows[i].delivery()
	}
	return out, nil
}

// RedactDelivery implements webhooks.Store.
func (s *Store) RedactDelivery(ctx context.Context, id int64, payload json.RawMessage, hash string) error {
	var res sql.Result
	var err error
	if payload == nil {
		res, err = s.db.ExecContext(ctx, s.q(`UPDATE webhooks_deliveries SET response_body = NULL WHERE id = ?`), id)
	} else {
		res, err = s.db.ExecContext(ctx, s.q(`UPDATE webhooks_deliveries SET payload = ?, payload_hash = ?, response_body = NULL
			WHERE id = ?`), string(payload), hash, id)
	}
	return affected("redact delivery", res, err)
}

// FailedAttempts implements webhooks.Store.
func (s *Store) FailedAttempts(ctx context.Context, deliveryID int64) ([]webhooks.Attempt, error) {
	var rows []struct {
		Number   int        `db:"attempt"`
		Status   *int       `db:"response_status"`
		Response string     `db:"response_excerpt"`
		At       store.Time `db:"created_at"`
	}
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT attempt, response_status, response_excerpt, created_at
		FROM webhooks_attempts WHERE delivery_id = ? ORDER BY attempt`), deliveryID); err != nil {
		return nil, fmt.Errorf("webhookssql: failed attempts: %w", err)
	}
	out := make([]webhooks.Attempt, len(rows))
	for i, r := range rows {
		out[i] = webhooks.Attempt{Number: r.Number, ResponseStatus: r.Status, Response: r.Response, At: r.At.Time}
	}
	return out, nil
}
