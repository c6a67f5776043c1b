package webhookssql

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TestClaimWalksTheDueIndex checks the plan of the delivery loop's claim
// on a table the database has not analysed, holding a backlog: twenty
// thousand due deliveries made by one fan-out (one due time). The claim
// must walk the due index in its order and stop at its limit; a plan that
// gathers every due row and sorts it makes each claim cost as much as
// the backlog is long.
func TestClaimWalksTheDueIndex(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := New(storetest.Open(t, d, Migrations))
		at := store.NewTime(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
		var sub int64
		require.NoError(t, s.db.GetContext(ctx, &sub, s.q(`INSERT INTO webhooks_subscriptions (name, url, events, sealed_secret,
			created_at, updated_at) VALUES ('backlog', 'https://example.com/hook', '["*"]', 'sealed', ?, ?) RETURNING id`), at, at))
		_, err := s.db.ExecContext(ctx, s.q(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
			INSERT INTO webhooks_deliveries (subscription_id, event, event_id, status, next_attempt_at, payload, payload_hash,
				created_at, updated_at)
			SELECT ?, 'order.placed', 'evt', 'pending', ?, '{}', 'hash', ?, ? FROM n`), sub, at, at, at)
		require.NoError(t, err)

		explain := "EXPLAIN "
		if d == store.SQLite {
			explain = "EXPLAIN QUERY PLAN "
		}
		var plan []string
		require.NoError(t, s.db.InTx(ctx, func(tx *sqlx.Tx) error {
			if s.postgres() {
				if err := walkDueInOrder(ctx, tx); err != nil {
					return err
				}
			}
			rows, err := tx.QueryxContext(ctx, explain+s.dueRead(), store.NewTime(at.Add(time.Minute)), "[0]", 100)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				cols, err := rows.SliceScan()
				if err != nil {
					return err
				}
				line, _ := cols[len(cols)-1].(string) // Postgres: the line; SQLite: its detail, last
				if b, ok := cols[len(cols)-1].([]byte); ok {
					line = string(b)
				}
				plan = append(plan, line)
			}
			return rows.Err()
		}))
		text := strings.Join(plan, "\n")
		require.Contains(t, text, "webhooks_deliveries_due", "the claim reads the due index")
		if d == store.SQLite {
			require.NotContains(t, text, "TEMP B-TREE", "the claim sorts the due rows:\n%s", text)
		} else {
			require.NotRegexp(t, `(?m)^\s*(->\s*)?(Incremental )?Sort`, text, "the claim sorts the due rows:\n%s", text)
		}
	})
}
