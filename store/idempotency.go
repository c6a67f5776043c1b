package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// Idempotency keeps Idempotency-Key records in the table
// groundwork_idempotency (see [CoreMigrations]), so a key holds across
// every instance on the database.
type Idempotency struct {
	db  *DB
	now func() time.Time
}

// NewIdempotency returns the records on db; now is the clock (time.Now
// when nil).
func NewIdempotency(db *DB, now func() time.Time) *Idempotency {
	if now == nil {
		now = time.Now
	}
	return &Idempotency{db: db, now: now}
}

type idempotencyRow struct {
	Scope       string                    `db:"scope"`
	Key         string                    `db:"key"`
	RequestHash string                    `db:"request_hash"`
	Status      int                       `db:"status"`
	Header      JSON[map[string][]string] `db:"header"`
	Body        []byte                    `db:"body"`
	CreatedAt   Time                      `db:"created_at"`
	ExpiresAt   Time                      `db:"expires_at"`
}

// Begin takes key for a request: it returns nil when this request now
// owns the key (the caller runs it, then calls Complete or Release), or
// the record of the earlier request that holds it: done (Status set), or
// still running. An expired record, or one whose request has run longer
// than stuck (it died), is taken over.
func (i *Idempotency) Begin(ctx context.Context, scope, key, requestHash string, ttl, stuck time.Duration) (*driverless.IdempotencyRecord, error) {
	for range 3 {
		now := NewTime(i.now())
		res, err := i.db.ExecContext(ctx, i.db.Rebind(`INSERT INTO groundwork_idempotency (scope, key, request_hash, status,
			created_at, expires_at) VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT (scope, key) DO NOTHING`),
			scope, key, requestHash, now, NewTime(now.Add(ttl)))
		if err != nil {
			return nil, fmt.Errorf("store: idempotency begin: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil, nil
		}
		var r idempotencyRow
		err = i.db.GetContext(ctx, &r, i.db.Rebind(`SELECT scope, key, request_hash, status, header, body, created_at, expires_at
			FROM groundwork_idempotency WHERE scope = ? AND key = ?`), scope, key)
		if errors.Is(MapError(err), ErrNotFound) {
			continue // released meanwhile: try again
		}
		if err != nil {
			return nil, fmt.Errorf("store: idempotency begin: %w", err)
		}
		expired := !r.ExpiresAt.After(now.Time)
		dead := r.Status == 0 && stuck > 0 && !r.CreatedAt.Add(stuck).After(now.Time)
		if !expired && !dead {
			return &driverless.IdempotencyRecord{Scope: r.Scope, Key: r.Key, RequestHash: r.RequestHash, Status: r.Status,
				Header: r.Header.V, Body: r.Body, CreatedAt: r.CreatedAt.Time, ExpiresAt: r.ExpiresAt.Time}, nil
		}
		// Take it over, unless another request did first.
		res, err = i.db.ExecContext(ctx, i.db.Rebind(`UPDATE groundwork_idempotency SET request_hash = ?, status = 0,
			header = NULL, body = NULL, created_at = ?, expires_at = ? WHERE scope = ? AND key = ? AND created_at = ?`),
			requestHash, now, NewTime(now.Add(ttl)), scope, key, r.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("store: idempotency begin: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil, nil
		}
	}
	return nil, errors.New("store: idempotency begin: the key keeps changing hands")
}

// Complete records the response of the request that owns key.
func (i *Idempotency) Complete(ctx context.Context, scope, key string, status int, header map[string][]string, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	_, err := i.db.ExecContext(ctx, i.db.Rebind(`UPDATE groundwork_idempotency SET status = ?, header = ?, body = ?
		WHERE scope = ? AND key = ? AND status = 0`), status, JSON[map[string][]string]{V: header}, body, scope, key)
	if err != nil {
		return fmt.Errorf("store: idempotency complete: %w", err)
	}
	return nil
}

// Release frees a key whose request did not finish (it panicked), so a
// retry runs it again.
func (i *Idempotency) Release(ctx context.Context, scope, key string) error {
	_, err := i.db.ExecContext(ctx, i.db.Rebind(`DELETE FROM groundwork_idempotency WHERE scope = ? AND key = ? AND status = 0`), scope, key)
	if err != nil {
		return fmt.Errorf("store: idempotency release: %w", err)
	}
	return nil
}

// Sweep deletes expired records.
func (i *Idempotency) Sweep(ctx context.Context) (int, error) {
	return sweepIdempotency(ctx, i.db, NewTime(i.now()))
}

func sweepIdempotency(ctx context.Context, db *DB, now Time) (int, error) {
	res, err := db.ExecContext(ctx, db.Rebind(`DELETE FROM groundwork_idempotency WHERE expires_at <= ?`), now)
	if err != nil {
		return 0, fmt.Errorf("store: idempotency sweep: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// idempotencySweepInterval is how often a [Queue] deletes expired
// Idempotency-Key records.
const idempotencySweepInterval = time.Hour

// IdempotencySweepArgs is the job that deletes expired Idempotency-Key
// records; a [Queue] schedules it every hour.
type IdempotencySweepArgs struct{}

// Kind implements river.JobArgs.
func (IdempotencySweepArgs) Kind() string { return "groundwork_idempotency_sweep" }

type idempotencySweepWorker struct {
	river.WorkerDefaults[IdempotencySweepArgs]
	db *DB
}

func (w *idempotencySweepWorker) Work(ctx context.Context, _ *river.Job[IdempotencySweepArgs]) error {
	_, err := sweepIdempotency(ctx, w.db, NewTime(time.Now()))
	return err
}
