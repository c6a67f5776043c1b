package reportingsql

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The flush's read of its visitors' days is a primary-key look-up per
// visitor under the generic plan a prepared statement gets, on a table of
// a busy day that was never analysed (as on a fresh database without
// autovacuum): never a scan of the day.
func TestVisitorDaysPlanNeedsNoStatistics(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Dialects(), store.Postgres) {
		t.Skip("a Postgres query plan: needs " + storetest.EnvPostgres)
	}
	db := storetest.Open(t, store.Postgres, Migrations)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `INSERT INTO reporting_seen (day, visitor, scope, last_seen)
		SELECT '2026-06-01', md5(i::text), 't:', now() FROM generate_series(1, 80000) AS i`)
	require.NoError(t, err)
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, `PREPARE lock_visitors(text[], text[], text[], timestamptz) AS `+lockVisitorsQuery)
	require.NoError(t, err)
	visitors := make([]string, 500)
	for i := range visitors {
		visitors[i] = fmt.Sprintf("'%x'", i)
	}
	days := strings.TrimSuffix(strings.Repeat("'2026-06-01',", 500), ",")
	sites := strings.TrimSuffix(strings.Repeat("'',", 500), ",")
	rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE lock_visitors(ARRAY[`+sites+`], ARRAY[`+days+`], ARRAY[`+strings.Join(visitors, ",")+`], now())`)
	require.NoError(t, err)
	var plan []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan = append(plan, line)
	}
	require.NoError(t, rows.Err())
	text := strings.Join(plan, "\n")
	require.NotContains(t, text, "Scan on reporting_seen", text)
	// Each visitor's row is found by the primary key's index, as the
	// insert's conflict.
	require.Contains(t, text, "Conflict Arbiter Indexes: reporting_seen_pkey", text)
}
