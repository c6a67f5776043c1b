package driverless_test

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store/driverless"
)

func TestExplainMissingTable(t *testing.T) {
	t.Parallel()
	driverless.RegisterMigrationLine(driverless.MigrationLine{Line: "widgets", Expr: "widgetsql.Migrations", FS: fstest.MapFS{
		"sqlite/0001_widgets.sql":   {Data: []byte("CREATE TABLE widgets_parts (id INTEGER);\n")},
		"postgres/0001_widgets.sql": {Data: []byte("CREATE TABLE IF NOT EXISTS widgets_parts(id BIGINT);\n")},
	}})
	for _, c := range []struct{ err, call string }{
		{"SQL logic error: no such table: widgets_parts (1)", "store.Migrate(ctx, db, widgetsql.Migrations)"},
		{`ERROR: relation "widgets_parts" does not exist (SQLSTATE 42P01)`, "store.Migrate(ctx, db, widgetsql.Migrations)"},
		{`ERROR: relation "app.widgets_parts" does not exist (SQLSTATE 42P01)`, "store.Migrate(ctx, db, widgetsql.Migrations)"},
		{"no such table: river_job", "without MigrateOptions.WithoutQueue"},
		{"no such table: gadgets", "the Migrations of the package whose table it is"},
	} {
		raw := errors.New(c.err)
		err := driverless.ExplainMissingTable(raw)
		require.ErrorIs(t, err, driverless.ErrNotMigrated, c.err)
		require.ErrorIs(t, err, raw, "the driver's error stays in the chain")
		require.ErrorContains(t, err, c.call)
		require.Same(t, err, driverless.ExplainMissingTable(err), "explained once")
	}
	other := errors.New("UNIQUE constraint failed")
	require.Same(t, other, driverless.ExplainMissingTable(other))
	require.NoError(t, driverless.ExplainMissingTable(nil))
}
