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

// The flush's read of visitors' last views is a primary-key look-up per
// visitor under the generic plan a prepared statement gets, on a table of
// a busy day that was never analysed (as on a fresh database without
// autovacuum): never a scan of the day.
func TestLastViewsPlanNeedsNoStatistics(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Dialects(), store.Postgres) {
		t.Skip("a Postgres query plan: needs " + storetest.EnvPostgres)
	}
	db := storetest.Open(t, store.Postgres, Migrations)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `INSERT INTO reporting_seen (day, visitor, scope, last_seen)
		SELECT '2026-06-01', md5(i::text), s, now() FROM generate_series(1, 20000) AS i, unnest(ARRAY['t:', 'p:/', 's:', 'd:desktop']) AS s`)
	require.NoError(t, err)
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, `PREPARE last_views(text[], text[]) AS `+lastViewsKeyedQuery)
	require.NoError(t, err)
	visitors := make([]string, 500)
	for i := range visitors {
		visitors[i] = fmt.Sprintf("'%x'", i)
	}
	days := strings.TrimSuffix(strings.Repeat("'2026-06-01',", 500), ",")
	rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE last_views(ARRAY[`+days+`], ARRAY[`+strings.Join(visitors, ",")+`])`)
	require.NoError(t, err)
	var plan []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan = append(plan, line)
	}
	require.NoError(t, rows.Err())
	text := strings.Join(plan, "\n")
	require.NotContains(t, text, "Seq Scan on reporting_seen", text)
	// The IN list's generic plan is an index scan too, on (day, scope)
	// only, with the visitors as a filter over every row of the day; the
	// look-up's condition holds the visitor.
	require.NotContains(t, text, "Filter:", text)
	require.Contains(t, text, "visitor = k.visitor", text)
}
