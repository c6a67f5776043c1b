package webhookssql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

// ---- deliveries ----

// deliveryColumns leave out the payload and the response body.
const deliveryColumns = `id, subscription_id, event, event_id, status, attempts, next_attempt_at, response_status,
	delivered_at, payload_hash, order_id, customer_id, request_id, created_at, updated_at`

const fullDeliveryColumns = deliveryColumns + `, payload, response_body`

type deliveryRow struct {
	ID             int64      `db:"id"`
	SubscriptionID int64      `db:"subscription_id"`
	Event          string     `db:"event"`
	EventID        string     `db:"event_id"`
	Status         string     `db:"status"`
	Attempts       int        `db:"attempts"`
	NextAttemptAt  store.Time `db:"next_attempt_at"`
	ResponseStatus *int       `db:"response_status"`
	DeliveredAt    store.Time `db:"delivered_at"`
	PayloadHash    string     `db:"payload_hash"`
	OrderID        *string    `db:"order_id"`
	CustomerID     *string    `db:"customer_id"`
	RequestID      string     `db:"request_id"`
	CreatedAt      store.Time `db:"created_at"`
	UpdatedAt      store.Time `db:"updated_at"`
	Payload        *string    `db:"payload"`
	ResponseBody   *string    `db:"response_body"`
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (r *deliveryRow) delivery() webhooks.Delivery {
	d := webhooks.Delivery{ID: r.ID, SubscriptionID: r.SubscriptionID, Event: r.Event, EventID: r.EventID,
		Status: webhooks.Status(r.Status), Attempts: r.Attempts, NextAttemptAt: ptrTime(r.NextAttemptAt),
		ResponseStatus: r.ResponseStatus, DeliveredAt: ptrTime(r.DeliveredAt), PayloadHash: r.PayloadHash,
		OrderID: deref(r.OrderID), CustomerID: deref(r.CustomerID), RequestID: r.RequestID, CreatedAt: r.CreatedAt.Time,
		UpdatedAt: r.UpdatedAt.Time, ResponseBody: r.ResponseBody}
	if r.Payload != nil {
		d.Payload = json.RawMessage(*r.Payload)
	}
	return d
}

// CreateDeliveries implements webhooks.Store: one statement when no two
// deliveries share a subscription, atomic on its own.
func (s *Store) CreateDeliveries(ctx context.Context, ds []webhooks.Delivery) error {
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error { return s.insertDeliveries(ctx, tx, ds) })
	if err != nil {
		return fmt.Errorf("webhookssql: create deliveries: %w", err)
	}
	return nil
}

// distinctSubscriptions reports whether no two of ds share a
// subscription, which insertDeliveries writes in one statement.
func distinctSubscriptions(ds []webhooks.Delivery) bool {
	seen := make(map[int64]bool, len(ds))
	for _, d := range ds {
		if seen[d.SubscriptionID] {
			return false
		}
		seen[d.SubscriptionID] = true
	}
	return true
}

// insertDeliveries writes ds in one statement when their subscriptions
// differ (as in a fan-out), matching the returned IDs by subscription.
func (s *Store) insertDeliveries(ctx context.Context, tx sqlx.QueryerContext, ds []webhooks.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	bySub := make(map[int64]int, len(ds))
	for i, d := range ds {
		bySub[d.SubscriptionID] = i
	}
	batches := [][]webhooks.Delivery{ds}
	if !distinctSubscriptions(ds) {
		batches = batches[:0]
		for i := range ds {
			batches = append(batches, ds[i:i+1])
		}
	}
	offset := 0
	for _, batch := range batches {
		var b strings.Builder
		b.WriteString(`INSERT INTO webhooks_deliveries (subscription_id, event, event_id, status, attempts, next_attempt_at,
			response_status, response_body, delivered_at, payload, payload_hash, order_id, customer_id, request_id, created_at,
			updated_at) VALUES `)
		args := make([]any, 0, len(batch)*16)
		for i, d := range batch {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, d.SubscriptionID, d.Event, d.EventID, string(d.Status), d.Attempts, optTime(d.NextAttemptAt),
				d.ResponseStatus, d.ResponseBody, optTime(d.DeliveredAt), string(d.Payload), d.PayloadHash, nullable(d.OrderID),
				nullable(d.CustomerID), d.RequestID, store.NewTime(d.CreatedAt), store.NewTime(d.UpdatedAt))
		}
		b.WriteString(" RETURNING id, subscription_id")
		rows, err := tx.QueryContext(ctx, s.q(b.String()), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, sub int64
			if err := rows.Scan(&id, &sub); err != nil {
				rows.Close()
				return err
			}
			if len(batch) == 1 {
				ds[offset].ID = id
			} else {
				ds[bySub[sub]].ID = id
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		offset += len(batch)
	}
	return nil
}

// Delivery implements webhooks.Store.
func (s *Store) Delivery(ctx context.Context, id int64) (*webhooks.Delivery, error) {
	var r deliveryRow
	if err := s.db.Reader().GetContext(ctx, &r, s.q(`SELECT `+fullDeliveryColumns+` FROM webhooks_deliveries WHERE id = ?`), id); err != nil {
		return nil, notFound("delivery", err)
	}
	d := r.delivery()
	return &d, nil
}

// ListDeliveries implements webhooks.Store.
func (s *Store) ListDeliveries(ctx context.Context, q webhooks.DeliveryQuery) ([]webhooks.Delivery, int, error) {
	where, args := []string{"subscription_id = ?"}, []any{q.SubscriptionID}
	if q.Event != "" {
		where, args = append(where, "event = ?"), append(args, q.Event)
	}
	if q.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(q.Status))
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.Reader().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM webhooks_deliveries WHERE `+cond), args...); err != nil {
		return nil, 0, fmt.Errorf("webhookssql: count deliveries: %w", err)
	}
	var rows []deliveryRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+deliveryColumns+` FROM webhooks_deliveries WHERE `+cond+`
		ORDER BY `+order(q.Sort, []string{"id", "created_at"}, "id DESC")+` LIMIT ? OFFSET ?`), append(args, q.Limit, q.Offset)...); err != nil {
		return nil, 0, fmt.Errorf("webhookssql: list deliveries: %w", err)
	}
	out := make([]webhooks.Delivery, len(rows))
	for i := range rows {
		out[i] = rows[i].delivery()
	}
	return out, total, nil
}

// RecentDeliveries implements webhooks.Store.
func (s *Store) RecentDeliveries(ctx context.Context, subscriptionIDs []int64, n int) (map[int64][]webhooks.Delivery, error) {
	out := make(map[int64][]webhooks.Delivery, len(subscriptionIDs))
	if len(subscriptionIDs) == 0 || n <= 0 {
		return out, nil
	}
	query, args, err := sqlx.In(`SELECT `+deliveryColumns+` FROM (SELECT `+deliveryColumns+`,
		ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY id DESC) AS rank FROM webhooks_deliveries
		WHERE subscription_id IN (?)) ranked WHERE rank <= ? ORDER BY subscription_id, id DESC`, subscriptionIDs, n)
	if err != nil {
		return nil, err
	}
	var rows []deliveryRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(query), args...); err != nil {
		return nil, fmt.Errorf("webhookssql: recent deliveries: %w", err)
	}
	for i := range rows {
		d := rows[i].delivery()
		out[d.SubscriptionID] = append(out[d.SubscriptionID], d)
	}
	return out, nil
}
