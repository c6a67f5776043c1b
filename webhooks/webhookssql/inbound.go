package webhookssql

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

const inboundColumns = `id, provider, event_id, event_type, verified, duplicate, error_code, payload_hash, payload_size, payload,
	payload_truncated, parsed, response_status, correlation_id, session_reference, received_at`

type inboundRow struct {
	ID               int64                      `db:"id"`
	Provider         string                     `db:"provider"`
	EventID          *string                    `db:"event_id"`
	EventType        *string                    `db:"event_type"`
	Verified         bool                       `db:"verified"`
	Duplicate        bool                       `db:"duplicate"`
	ErrorCode        *string                    `db:"error_code"`
	PayloadHash      string                     `db:"payload_hash"`
	PayloadSize      int                        `db:"payload_size"`
	Payload          string                     `db:"payload"`
	PayloadTruncated bool                       `db:"payload_truncated"`
	Parsed           store.JSON[map[string]any] `db:"parsed"`
	ResponseStatus   int                        `db:"response_status"`
	CorrelationID    *string                    `db:"correlation_id"`
	SessionReference *string                    `db:"session_reference"`
	ReceivedAt       store.Time                 `db:"received_at"`
}

func (r *inboundRow) record() webhooks.InboundRecord {
	return webhooks.InboundRecord{ID: r.ID, Provider: r.Provider, EventID: deref(r.EventID), EventType: deref(r.EventType),
		Verified: r.Verified, Duplicate: r.Duplicate, ErrorCode: deref(r.ErrorCode), PayloadHash: r.PayloadHash,
		PayloadSize: r.PayloadSize, Payload: r.Payload, PayloadTruncated: r.PayloadTruncated, Parsed: r.Parsed.V,
		ResponseStatus: r.ResponseStatus, CorrelationID: deref(r.CorrelationID), SessionReference: deref(r.SessionReference),
		ReceivedAt: r.ReceivedAt.Time}
}

const insertInbound = `INSERT INTO webhooks_inbound (provider, event_id, event_type, verified, duplicate, error_code,
	payload_hash, payload_size, payload, payload_truncated, parsed, response_status, correlation_id, session_reference, received_at)`

func inboundArgs(r *webhooks.InboundRecord) []any {
	var parsed any
	if r.Parsed != nil {
		parsed = store.JSON[map[string]any]{V: r.Parsed}
	}
	return []any{r.Provider, nullable(r.EventID), nullable(r.EventType), r.Verified, r.Duplicate, nullable(r.ErrorCode),
		r.PayloadHash, r.PayloadSize, r.Payload, r.PayloadTruncated, parsed, r.ResponseStatus, nullable(r.CorrelationID),
		nullable(r.SessionReference), store.NewTime(r.ReceivedAt)}
}

// RecordInbound implements webhooks.Store.
func (s *Store) RecordInbound(ctx context.Context, r *webhooks.InboundRecord) error {
	if err := s.db.On(ctx).QueryRowxContext(ctx, s.q(insertInbound+` VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		inboundArgs(r)...).Scan(&r.ID); err != nil {
		return fmt.Errorf("webhookssql: record inbound: %w", err)
	}
	return nil
}

// ReceiveEvent implements webhooks.Store: on Postgres one statement.
func (s *Store) ReceiveEvent(ctx context.Context, r *webhooks.InboundRecord) (bool, error) {
	var err error
	claim := []any{r.Provider, r.EventID, store.NewTime(r.ReceivedAt)}
	if s.postgres() {
		args := inboundArgs(r)
		args = append(args[:4:4], args[5:]...) // duplicate comes from the claim
		err = s.db.On(ctx).QueryRowxContext(ctx, s.q(`WITH c AS (
				INSERT INTO webhooks_inbound_claims (provider, event_id, claimed_at) VALUES (?, ?, ?)
				ON CONFLICT (provider, event_id) DO NOTHING RETURNING 1
			)
			`+insertInbound+` VALUES (?, ?, ?, ?, NOT EXISTS (SELECT 1 FROM c), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id, duplicate`), append(claim, args...)...).Scan(&r.ID, &r.Duplicate)
	} else {
		err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			res, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO webhooks_inbound_claims (provider, event_id, claimed_at)
				VALUES (?, ?, ?) ON CONFLICT (provider, event_id) DO NOTHING`), claim...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			r.Duplicate = n == 0
			return tx.QueryRowxContext(ctx, tx.Rebind(insertInbound+` VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
				inboundArgs(r)...).Scan(&r.ID)
		})
	}
	if err != nil {
		return false, fmt.Errorf("webhookssql: receive event: %w", err)
	}
	return !r.Duplicate, nil
}

// ListInbound implements webhooks.Store.
func (s *Store) ListInbound(ctx context.Context, q webhooks.InboundQuery) ([]webhooks.InboundRecord, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if q.Provider != "" {
		where, args = append(where, "provider = ?"), append(args, q.Provider)
	}
	if q.EventID != "" {
		where, args = append(where, "event_id = ?"), append(args, q.EventID)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.Reader().GetContext(ctx, &total, s.q(`SELECT COUNT(*) FROM webhooks_inbound WHERE `+cond), args...); err != nil {
		return nil, 0, fmt.Errorf("webhookssql: count inbound: %w", err)
	}
	var rows []inboundRow
	if err := s.db.Reader().SelectContext(ctx, &rows, s.q(`SELECT `+inboundColumns+` FROM webhooks_inbound WHERE `+cond+`
		ORDER BY id DESC LIMIT ? OFFSET ?`), append(args, q.Limit, q.Offset)...); err != nil {
		return nil, 0, fmt.Errorf("webhookssql: list inbound: %w", err)
	}
	out := make([]webhooks.InboundRecord, len(rows))
	for i := range rows {
		out[i] = rows[i].record()
	}
	return out, total, nil
}

// PruneInbound implements webhooks.Store.
func (s *Store) PruneInbound(ctx context.Context, before time.Time, batch int) (int, error) {
	total := 0
	for {
		res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM webhooks_inbound WHERE id IN (SELECT id FROM webhooks_inbound
			WHERE received_at < ? ORDER BY id LIMIT ?)`), store.NewTime(before), batch)
		if err != nil {
			return total, fmt.Errorf("webhookssql: prune inbound: %w", err)
		}
		n, _ := res.RowsAffected()
		total += int(n)
		if int(n) < batch {
			break
		}
	}
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM webhooks_inbound_claims WHERE claimed_at < ?`), store.NewTime(before)); err != nil {
		return total, fmt.Errorf("webhookssql: prune inbound claims: %w", err)
	}
	return total, nil
}

// RedactInbound implements webhooks.Store.
func (s *Store) RedactInbound(ctx context.Context, sessionRefs []string, email string) (int, error) {
	var conds []string
	var args []any
	if len(sessionRefs) > 0 {
		conds, args = append(conds, "session_reference IN (?)"), append(args, sessionRefs)
	}
	if email != "" {
		escaped := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(email))
		conds, args = append(conds, `LOWER(payload) LIKE ? ESCAPE '\'`), append(args, "%"+escaped+"%")
	}
	if len(conds) == 0 {
		return 0, nil
	}
	query, args, err := sqlx.In(`UPDATE webhooks_inbound SET payload = '', parsed = NULL WHERE (`+strings.Join(conds, " OR ")+`)
		AND (payload <> '' OR parsed IS NOT NULL)`, args...)
	if err != nil {
		return 0, fmt.Errorf("webhookssql: redact inbound: %w", err)
	}
	res, err := s.db.ExecContext(ctx, s.q(query), args...)
	if err != nil {
		return 0, fmt.Errorf("webhookssql: redact inbound: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PaymentSessions is a minimal webhooks.PaymentSessions in the table
// webhooks_payment_sessions: sessions are pending until settled, when they
// become succeeded or failed. It is for hosts without a checkout of their
// own (and for the reference server); a shop settles its own carts.
type PaymentSessions struct {
	db  *store.DB
	now func() time.Time
}

var _ webhooks.PaymentSessions = (*PaymentSessions)(nil)

// NewPaymentSessions returns the sessions on db (migrated with
// Migrations); now is the clock, time.Now when nil.
func NewPaymentSessions(db *store.DB, now func() time.Time) *PaymentSessions {
	if now == nil {
		now = time.Now
	}
	return &PaymentSessions{db: db, now: now}
}

// Add records a pending session (again: it is pending anew).
func (p *PaymentSessions) Add(ctx context.Context, provider, reference string) error {
	now := store.NewTime(p.now())
	_, err := p.db.ExecContext(ctx, p.db.Rebind(`INSERT INTO webhooks_payment_sessions (provider, reference, status, created_at,
		updated_at) VALUES (?, ?, 'pending', ?, ?) ON CONFLICT (provider, reference) DO UPDATE SET status = 'pending',
		updated_at = excluded.updated_at`), provider, reference, now, now)
	if err != nil {
		return fmt.Errorf("webhookssql: add payment session: %w", err)
	}
	return nil
}

// Status returns a session's status: pending, succeeded or failed.
func (p *PaymentSessions) Status(ctx context.Context, provider, reference string) (string, error) {
	var status string
	err := p.db.GetContext(ctx, &status, p.db.Rebind(`SELECT status FROM webhooks_payment_sessions WHERE provider = ? AND reference = ?`),
		provider, reference)
	if err != nil {
		return "", notFound("payment session", err)
	}
	return status, nil
}

// Awaiting implements webhooks.PaymentSessions.
func (p *PaymentSessions) Awaiting(ctx context.Context, from, to time.Time, limit int) ([]webhooks.PaymentSession, error) {
	var rows []struct {
		Provider  string     `db:"provider"`
		Reference string     `db:"reference"`
		UpdatedAt store.Time `db:"updated_at"`
	}
	if err := p.db.Reader().SelectContext(ctx, &rows, p.db.Rebind(`SELECT provider, reference, updated_at FROM webhooks_payment_sessions
		WHERE status = 'pending' AND updated_at >= ? AND updated_at <= ? ORDER BY updated_at, reference LIMIT ?`),
		store.NewTime(from), store.NewTime(to), limit); err != nil {
		return nil, fmt.Errorf("webhookssql: awaiting payment sessions: %w", err)
	}
	out := make([]webhooks.PaymentSession, len(rows))
	for i, r := range rows {
		out[i] = webhooks.PaymentSession{Provider: r.Provider, Reference: r.Reference, UpdatedAt: r.UpdatedAt.Time}
	}
	return out, nil
}

// Settle implements webhooks.PaymentSessions: a pending session becomes
// succeeded or failed; a settled one stays as it is.
func (p *PaymentSessions) Settle(ctx context.Context, sess webhooks.PaymentSession, outcome webhooks.PaymentOutcome) error {
	if outcome != webhooks.PaymentSucceeded && outcome != webhooks.PaymentFailed {
		return nil
	}
	_, err := p.db.ExecContext(ctx, p.db.Rebind(`UPDATE webhooks_payment_sessions SET status = ?, updated_at = ?
		WHERE provider = ? AND reference = ? AND status = 'pending'`), string(outcome), store.NewTime(p.now()), sess.Provider, sess.Reference)
	if err != nil {
		return fmt.Errorf("webhookssql: settle payment session: %w", err)
	}
	return nil
}
