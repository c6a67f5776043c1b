// Package webhookssql is the [webhooks.Store] on SQLite and Postgres.
package webhookssql

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the webhooks schema; pass it to store.Migrate.
var Migrations = store.MigrationsFrom("webhooks", migrations, "migrations")

// Store is the webhooks.Store on a store.DB.
type Store struct {
	db    *store.DB
	stmts *store.StmtCache // the delivery hot path's statements, prepared once
}

var _ webhooks.Store = (*Store)(nil)

// New returns a Store on db, which must be migrated with [Migrations].
func New(db *store.DB) *Store { return &Store{db: db, stmts: store.NewStmtCache(db)} }

// RunInTx implements webhooks.Store: a transaction of the store's DB
// ([store.DB.RunInTx]), which the methods called with its context join.
func (s *Store) RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.RunInTx(ctx, fn)
}

func (s *Store) q(query string) string { return s.db.Rebind(query) }

func (s *Store) postgres() bool { return s.db.Dialect() == store.Postgres }

// inTx wraps a caller's *sql.Tx for sqlx.
func (s *Store) inTx(tx *sql.Tx) *sqlx.Tx { return &sqlx.Tx{Tx: tx, Mapper: s.db.Mapper} }

func notFound(what string, err error) error {
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return webhooks.ErrNotFound
	}
	return fmt.Errorf("webhookssql: %s: %w", what, err)
}

func affected(what string, res sql.Result, err error) error {
	if err != nil {
		return fmt.Errorf("webhookssql: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("webhookssql: %s: %w", what, err)
	}
	if n == 0 {
		return webhooks.ErrNotFound
	}
	return nil
}

func ptrTime(t store.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

func optTime(t *time.Time) store.Time {
	if t == nil {
		return store.Time{}
	}
	return store.NewTime(*t)
}

// ---- subscriptions ----

const subscriptionColumns = `id, owner, name, url, events, sealed_secret, is_active, standard_webhooks, consecutive_failures,
	last_success_at, last_failure_at, created_at, updated_at, previous_sealed_secret, previous_secret_expires_at, description, headers,
	rate_limit, channels`

type subscriptionRow struct {
	ID                  int64                         `db:"id"`
	Owner               string                        `db:"owner"`
	Name                string                        `db:"name"`
	URL                 string                        `db:"url"`
	Events              store.JSON[[]string]          `db:"events"`
	SealedSecret        string                        `db:"sealed_secret"`
	IsActive            bool                          `db:"is_active"`
	StandardWebhooks    bool                          `db:"standard_webhooks"`
	ConsecutiveFailures int                           `db:"consecutive_failures"`
	LastSuccessAt       store.Time                    `db:"last_success_at"`
	LastFailureAt       store.Time                    `db:"last_failure_at"`
	CreatedAt           store.Time                    `db:"created_at"`
	UpdatedAt           store.Time                    `db:"updated_at"`
	PreviousSealed      string                        `db:"previous_sealed_secret"`
	PreviousExpiresAt   store.Time                    `db:"previous_secret_expires_at"`
	Description         string                        `db:"description"`
	Headers             store.JSON[map[string]string] `db:"headers"`
	RateLimit           int                           `db:"rate_limit"`
	Channels            store.JSON[[]string]          `db:"channels"`
}

func (r *subscriptionRow) subscription() *webhooks.Subscription {
	events := r.Events.V
	if events == nil {
		events = []string{}
	}
	return &webhooks.Subscription{ID: r.ID, Owner: r.Owner, Name: r.Name, URL: r.URL, Events: events, SealedSecret: r.SealedSecret,
		IsActive: r.IsActive, StandardWebhooks: r.StandardWebhooks, ConsecutiveFailures: r.ConsecutiveFailures,
		LastSuccessAt: ptrTime(r.LastSuccessAt), LastFailureAt: ptrTime(r.LastFailureAt), CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time, PreviousSealedSecret: r.PreviousSealed, PreviousSecretExpiresAt: ptrTime(r.PreviousExpiresAt),
		Description: r.Description, Headers: r.Headers.V, RateLimit: r.RateLimit, Channels: r.Channels.V}
}

// CreateSubscription implements webhooks.Store.
func (s *Store) CreateSubscription(ctx context.Context, sub *webhooks.Subscription) error {
	err := s.db.QueryRowxContext(ctx, s.q(`INSERT INTO webhooks_subscriptions (channels, description, headers, rate_limit, owner, name,
		url, events, sealed_secret, is_active, standard_webhooks, consecutive_failures, last_success_at, last_failure_at, created_at,
		updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		channelsJSON(sub.Channels), sub.Description, headersJSON(sub.Headers), sub.RateLimit, sub.Owner, sub.Name, sub.URL, store.JSON[[]string]{V: sub.Events}, sub.SealedSecret, sub.IsActive, sub.StandardWebhooks,
		sub.ConsecutiveFailures, optTime(sub.LastSuccessAt), optTime(sub.LastFailureAt), store.NewTime(sub.CreatedAt),
		store.NewTime(sub.UpdatedAt)).Scan(&sub.ID)
	if err != nil {
		return fmt.Errorf("webhookssql: create subscription: %w", store.MapError(err))
	}
	return nil
}

// UpdateSubscription implements webhooks.Store.
func (s *Store) UpdateSubscription(ctx context.Context, sub *webhooks.Subscription) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE webhooks_subscriptions SET name = ?, url = ?, events = ?, sealed_secret = ?,
		is_active = ?, standard_webhooks = ?, consecutive_failures = ?, updated_at = ?, previous_sealed_secret = ?,
		previous_secret_expires_at = ?, description = ?, headers = ?, rate_limit = ?, channels = ? WHERE id = ?`),
		sub.Name, sub.URL, store.JSON[[]string]{V: sub.Events}, sub.SealedSecret, sub.IsActive, sub.StandardWebhooks,
		sub.ConsecutiveFailures, store.NewTime(sub.UpdatedAt), sub.PreviousSealedSecret, optTime(sub.PreviousSecretExpiresAt),
		sub.Description, headersJSON(sub.Headers), sub.RateLimit, channelsJSON(sub.Channels), sub.ID)
	return affected("update subscription", res, err)
}

// DeleteSubscription implements webhooks.Store.
func (s *Store) DeleteSubscription(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM webhooks_subscriptions WHERE id = ?`), id)
	return affected("delete subscription", res, err)
}

// Subscription implements webhooks.Store.
func (s *Store) Subscription(ctx context.Context, id int64) (*webhooks.Subscription, error) {
	var r subscriptionRow
	if err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT `+subscriptionColumns+` FROM webhooks_subscriptions WHERE id = ?`), id); err != nil {
		return nil, notFound("subscription", err)
	}
	return r.subscription(), nil
}

// order turns a "field" or "-field" sort into SQL, from the allowed
// columns; def is used when sort is empty or not allowed.
func order(sort string, allowed []string, def string) string {
	col, desc := strings.TrimPrefix(sort, "-"), strings.HasPrefix(sort, "-")
	for _, a := range allowed {
		if a == col {
			dir := "ASC"
			if desc {
				dir = "DESC"
			}
			return col + " " + dir + ", id " + dir
		}
	}
	return def
}

// ListSubscriptions implements webhooks.Store.
func (s *Store) ListSubscriptions(ctx context.Context, q webhooks.SubscriptionQuery) ([]webhooks.Subscription, int, error) {
	where, args := "1 = 1", []any{}
	if q.Active != nil {
		where, args = where+" AND is_active = ?", append(args, *q.Active)
	}
	if q.Owner != nil {
		where, args = where+" AND owner = ?", append(args, *q.Owner)
	}
	var total int
	if err := s.db.Reader().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM webhooks_subscriptions WHERE `+where), args...); err != nil {
		return nil, 0, fmt.Errorf("webhookssql: count subscriptions: %w", err)
	}
	var rows []subscriptionRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+subscriptionColumns+` FROM webhooks_subscriptions WHERE `+where+`
		ORDER BY `+order(q.Sort, []string{"name", "created_at", "id"}, "created_at DESC, id DESC")+` LIMIT ? OFFSET ?`),
		append(args, q.Limit, q.Offset)...); err != nil {
		return nil, 0, fmt.Errorf("webhookssql: list subscriptions: %w", err)
	}
	out := make([]webhooks.Subscription, len(rows))
	for i := range rows {
		out[i] = *rows[i].subscription()
	}
	return out, total, nil
}

// CreateFanout implements webhooks.Store: an INSERT ... SELECT over the
// active subscriptions that listen to the event, so a fan-out is one
// statement whoever listens, atomic on its own.
func (s *Store) CreateFanout(ctx context.Context, tx *sql.Tx, tmpl webhooks.Delivery) ([]webhooks.Delivery, error) {
	values := `?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?`
	listens := `EXISTS (SELECT 1 FROM json_each(s.events) WHERE json_each.value IN ('*', ?))`
	if s.postgres() {
		// Parameters in a SELECT list get no type from the columns they
		// fill: name them.
		values = `?::text, ?::text, ?::text, 0, ?::timestamptz, ?::json, ?::text, ?::text, ?::text, ?::text, ?::timestamptz, ?::timestamptz`
		listens = `(s.events @> '["*"]'::jsonb OR s.events @> jsonb_build_array(?::text))`
	}
	owned := "s.owner = ?" // the event's owner's subscriptions, or every owner's
	if tmpl.Owner == webhooks.AllOwners {
		owned = "TRUE"
	}
	// Endpoints without channels, or with one of the event's.
	channeled := `s.channels = '[]'`
	switch {
	case s.postgres() && len(tmpl.Channels) > 0:
		channeled = `(s.channels = '[]'::jsonb OR jsonb_exists_any(s.channels, ?::text[]))`
	case s.postgres():
		channeled = `s.channels = '[]'::jsonb`
	case len(tmpl.Channels) > 0:
		channeled = `(s.channels = '[]' OR EXISTS (SELECT 1 FROM json_each(s.channels) c WHERE c.value IN (?` +
			strings.Repeat(", ?", len(tmpl.Channels)-1) + `)))`
	}
	query := s.q(`INSERT INTO webhooks_deliveries (subscription_id, event, event_id, status, attempts, next_attempt_at, payload,
		payload_hash, order_id, customer_id, request_id, created_at, updated_at)
		SELECT s.id, ` + values + ` FROM webhooks_subscriptions s
		WHERE s.is_active = ? AND ` + owned + ` AND ` + listens + ` AND ` + channeled + ` ORDER BY s.id RETURNING id, subscription_id`)
	args := []any{tmpl.Event, tmpl.EventID, string(tmpl.Status), optTime(tmpl.NextAttemptAt), string(tmpl.Payload), tmpl.PayloadHash,
		nullable(tmpl.OrderID), nullable(tmpl.CustomerID), tmpl.RequestID, store.NewTime(tmpl.CreatedAt), store.NewTime(tmpl.UpdatedAt),
		true}
	if tmpl.Owner != webhooks.AllOwners {
		args = append(args, tmpl.Owner)
	}
	args = append(args, tmpl.Event)
	switch {
	case s.postgres() && len(tmpl.Channels) > 0:
		args = append(args, tmpl.Channels)
	case len(tmpl.Channels) > 0:
		for _, c := range tmpl.Channels {
			args = append(args, c)
		}
	}
	var in *sqlx.Tx // nil: the transaction ctx carries, else the pool
	if tx != nil {
		in = s.inTx(tx)
	}
	var out []webhooks.Delivery
	rows, err := s.stmts.QueryContext(ctx, in, query, args...)
	if err == nil {
		for rows.Next() {
			d := tmpl
			if err = rows.Scan(&d.ID, &d.SubscriptionID); err != nil {
				break
			}
			out = append(out, d)
		}
		err = errors.Join(err, rows.Close(), rows.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("webhookssql: create fan-out: %w", err)
	}
	// Rows came back in insertion order, which follows the SELECT's on
	// both databases; sort to promise it.
	slices.SortFunc(out, func(a, b webhooks.Delivery) int { return cmp.Compare(a.SubscriptionID, b.SubscriptionID) })
	return out, nil
}

// headersJSON is a subscription's custom headers as stored: an object,
// {} for none.
func headersJSON(h map[string]string) store.JSON[map[string]string] {
	if h == nil {
		h = map[string]string{}
	}
	return store.JSON[map[string]string]{V: h}
}

// TakeRate implements webhooks.Store: one statement, so instances racing
// for an endpoint's second each take a place or none.
func (s *Store) TakeRate(ctx context.Context, subscriptionID int64, second int64, limit int) (bool, error) {
	var taken int
	err := s.db.QueryRowxContext(ctx, s.q(`INSERT INTO webhooks_rate (subscription_id, second, taken) VALUES (?, ?, 1)
		ON CONFLICT (subscription_id) DO UPDATE SET
		taken = CASE WHEN webhooks_rate.second = excluded.second THEN webhooks_rate.taken + 1 ELSE 1 END, second = excluded.second
		WHERE webhooks_rate.second < excluded.second OR webhooks_rate.second = excluded.second AND webhooks_rate.taken < ?
		RETURNING taken`), subscriptionID, second, limit).Scan(&taken)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("webhookssql: take rate: %w", store.MapError(err))
	}
	return true, nil
}

// channelsJSON is an endpoint's channels as stored: an array, [] for none.
func channelsJSON(c []string) store.JSON[[]string] {
	if c == nil {
		c = []string{}
	}
	return store.JSON[[]string]{V: c}
}
